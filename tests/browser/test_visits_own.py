"""Issue 48, items 6, 7 and 13, in real browsers on a real ASGI server: the GM who adds a character on its own page,
or several with "Añadir varios", comes back to a table that tells them nothing of it ("Desde tu última visita" is for
what others did); what their co-GM did meanwhile is told, a newcomer "entered with" the PG it joined with (and its
PG now beside), the weekly losses of a plague are PG lost to the plague and its resistance roll names it. Screenshots
in test-artifacts/."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign, Membership, Role
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.browser.test_party import open_page
from tests.helpers import context_for, plague, screenshot, stored_health

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WEEK = 7 * 86400


def co_gm_of(campaign: Campaign) -> User:
    user = User.objects.create_user("segunda", password="x")
    Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
    return user


def back_at_the_table(page: Page, table: str) -> None:
    expect(page).to_have_url(table)
    expect(page.locator("body[data-live]")).to_have_count(1)


def test_the_gms_own_additions_are_no_news_the_co_gms_are(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    context = context_for(browser, server, "narrador")
    try:
        gm = open_page(context, table)
        expect(gm.locator("#since-visit")).to_have_count(0)  # a first visit

        # One character on its own page, back to the table: nothing to tell the GM about it.
        gm.goto(f"{table}characters/new/")
        gm.get_by_label("Nombre").fill("Explorador")
        gm.get_by_label("Constitución (CON)").fill("5")
        gm.get_by_role("button", name="Guardar").click()
        back_at_the_table(gm, table)
        expect(gm.locator("li.card h3", has_text="Explorador")).to_have_count(1)
        expect(gm.locator("#since-visit")).to_have_count(0)

        # Several at once: the same.
        gm.get_by_role("link", name="Añadir varios").click()
        gm.get_by_label("Nombre").fill("Alto")
        gm.get_by_label("Cuántos").fill("2")
        gm.get_by_label("Constitución (CON)").fill("5")
        gm.get_by_label("Cuántos").press("Enter")
        back_at_the_table(gm, table)
        expect(gm.locator("li.card h3", has_text="Alto 2")).to_have_count(1)
        expect(gm.locator("#since-visit")).to_have_count(0)
        gm.reload()
        expect(gm.locator("#since-visit")).to_have_count(0)

        # Away from the table, the plague reaches Aldara, who loses PG to it week after week; then the co-GM brings a
        # weak newcomer (CON 2) and hits it for 5.
        gm.goto(f"{table}sessions/")
        co_gm = co_gm_of(demo)
        aldara = Character.objects.get(campaign=demo, name="Aldara")
        actions.expose(demo, [aldara], plague(), by=co_gm, dice_by_character={aldara.pk: 1})
        actions.advance_clock(demo, 3 * WEEK, by=co_gm)
        lost = sum(wound.amount for wound in stored_health(aldara).wounds if wound.kind == "illness")  # awaits a cure
        newcomer = actions.add_character(demo, actions.Sheet("Novato", 2), by=co_gm).characters[0]
        joined = newcomer.pg
        actions.apply_damage(demo, [newcomer], Attack(amount=5), by=co_gm)
        assert lost > 0

        gm.goto(table)
        panel = gm.locator("#since-visit")
        novato = panel.locator(".stretch-character", has_text="Novato")
        expect(novato).to_contain_text(f"Entró en la campaña con {joined} PG.")
        expect(novato).to_contain_text(f"PG: {joined} → {joined - 5} de {joined}.")
        expect(novato).not_to_contain_text(f"con {joined - 5} PG")
        plagued = panel.locator(".stretch-character", has_text="Aldara")
        expect(plagued).to_contain_text(f"Perdió {lost} PG por Peste.")
        expect(plagued).to_contain_text("Tirada de resistencia contra Peste")
        expect(panel).not_to_contain_text("de Enfermedad")
        for own in ("Explorador", "Alto 1", "Alto 2"):
            expect(panel).not_to_contain_text(own)
        screenshot(gm, "visits-own-actions-not-news")
        assert gm.errors == []
    finally:
        context.close()
