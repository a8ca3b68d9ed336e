"""Issue 48, item 11, in real browsers on a real ASGI server: a character dead of its wounds while ill with the plague
shows no illness penalty or weekly loss as if it still ran — not on the GM's table, not on its player's phone, not on
its sheet — only which illness it had when it died. Screenshots in test-artifacts/."""

import pytest
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.browser.test_party import open_page
from tests.helpers import card, context_for, plague, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_dead_characters_illness_is_no_ongoing_penalty(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    aldara = Character.objects.get(campaign=demo, name="Aldara")
    actions.expose(demo, [aldara], plague(), by=demo.gm, dice_by_character={aldara.pk: 1})
    gm_context = context_for(browser, server, "narrador")
    ana_context = context_for(browser, server, "ana", phone=True)
    try:
        gm = open_page(gm_context, table)
        ana = open_page(ana_context, table)
        expect(card(gm, "Aldara").locator(".illnesses")).to_contain_text("PG/semana")  # alive: it runs
        actions.apply_damage(demo, [aldara], Attack(amount=Character.objects.get(pk=aldara.pk).pg), by=demo.gm)

        sheet = open_page(ana_context, f"{table}characters/{aldara.pk}/")
        for state in (card(gm, "Aldara"), card(ana, "Aldara"), sheet.locator("main")):  # live, and loaded
            expect(state).to_contain_text("muerto")
            illnesses = state.locator(".illnesses")
            expect(illnesses).to_contain_text("Peste")
            expect(illnesses).to_contain_text("la tenía al morir")
            for ongoing in ("a todas las tiradas", "semana", "¿Por qué", "Se cura"):
                expect(illnesses).not_to_contain_text(ongoing)
        screenshot(gm, "dead-card-gm")
        screenshot(ana, "dead-card-player-375")
        screenshot(sheet, "dead-card-sheet-375")
        gm.reload()
        expect(card(gm, "Aldara").locator(".illnesses")).not_to_contain_text("a todas las tiradas")
        assert gm.errors == [] and ana.errors == [] and sheet.errors == []
    finally:
        gm_context.close()
        ana_context.close()
