"""Issue 25, game sessions and their recap, as the GM and a player use them in real browsers on a real ASGI server:
the GM starts session 1 (the other tab follows live), plays, ends it, reads the recap with its PG charts and shares
it; the player's phone shows the recap's link at once and reads it — without the companion the GM keeps secret. On a
phone and a desktop in English the pages read in English and nothing scrolls sideways."""

import pytest
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign, GameSession
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_party import open_page
from tests.helpers import (
    card,
    context_for,
    expect_live_equals_reload,
    page_width,
    screenshot,
    watch_errors,
    without_live_updates,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def keep_tomas_secret(demo: Campaign) -> None:
    tomas = Character.objects.get(campaign=demo, name="Hermano Tomás")
    sheet = actions.Sheet(**{**vars(actions.Sheet.of(tomas)), "party_view": "hidden"})
    actions.edit_character(demo, tomas, sheet, by=demo.gm)


def quick_damage(page: Page, name: str, amount: str) -> None:
    field = card(page, name).locator("[data-quick-damage]")
    field.fill(amount)
    field.press("Enter")


def fits_a_phone(page: Page) -> None:
    assert page_width(page) <= 375, page.url


def test_the_gm_plays_a_session_and_shares_its_recap_with_a_player(browser: Browser, server: str, demo: Campaign):
    keep_tomas_secret(demo)
    table = f"{server}/campaigns/{demo.pk}/"
    gm_context, player_context = (
        context_for(browser, server, "narrador"),
        context_for(browser, server, "ana", phone=True),
    )
    try:
        gm, other_tab = open_page(gm_context, table), open_page(gm_context, table)
        player = open_page(player_context, table)
        expect(other_tab.locator("body[data-live]")).to_have_count(1)
        expect(player.locator("body[data-live]")).to_have_count(1)
        gm.bring_to_front()

        gm.get_by_role("button", name="Empezar la sesión 1").click()
        expect(gm.locator("#game-session")).to_contain_text("Sesión 1 en juego")
        expect(other_tab.locator("#game-session")).to_contain_text("Sesión 1 en juego")  # live, no reload
        expect(gm.locator("aside.log")).to_contain_text("Empieza la sesión 1")
        quick_damage(gm, "Aldara", "7")
        expect(gm.locator("aside.log")).to_contain_text("Aldara pierde 7 PG")
        quick_damage(gm, "Hermano Tomás", "4")
        expect(gm.locator("aside.log")).to_contain_text("Hermano Tomás pierde 4 PG")
        gm.get_by_role("button", name="+1 hora").click()
        expect(gm.locator("aside.log")).to_contain_text("Pasa el tiempo: 1 h")
        screenshot(gm, "sessions-table-in-play")
        gm.get_by_role("button", name="Terminar la sesión").click()
        expect(gm.get_by_role("button", name="Empezar la sesión 2")).to_be_visible()
        expect(other_tab.get_by_role("button", name="Empezar la sesión 2")).to_be_visible()
        assert GameSession.objects.get(campaign=demo, number=1).ended is not None
        fresh = without_live_updates(watch_errors(gm_context.new_page()))
        fresh.goto(table)
        expect_live_equals_reload(other_tab, fresh, ["#game-session", "#undo-button"])

        gm.get_by_role("link", name="Resumen de la sesión 1").click()
        expect(gm.get_by_role("heading", name="Resumen de la sesión 1")).to_be_visible()
        aldara = gm.locator("section.recap-character").filter(has=gm.get_by_role("heading", name="Aldara"))
        expect(aldara).to_contain_text("1 herida de Ataque físico directo: 7 PG")
        expect(aldara.locator("svg.timeline-chart")).to_have_count(1)
        expect(gm.get_by_role("heading", name="Hermano Tomás")).to_be_visible()  # the GM reads everyone
        expect(gm.locator("section.log")).to_contain_text("Termina la sesión 1")
        assert serious_violations(gm) == []
        screenshot(gm, "sessions-recap-gm-desktop-es")
        expect(player.get_by_role("link", name="Sesión 1", exact=False)).to_have_count(0)  # not shared yet
        gm.get_by_role("button", name="Compartir con los jugadores").click()
        expect(gm.locator(".messages")).to_contain_text("Los jugadores ya pueden leer este resumen.")

        # The player's page shows it at once, live; the recap tells Aldara's session and nothing of Tomás.
        link = player.locator("#recaps").get_by_role("link")
        expect(link).to_have_count(1)
        player_fresh = without_live_updates(watch_errors(player_context.new_page()))
        player_fresh.goto(table)
        expect_live_equals_reload(player, player_fresh, ["#recaps", "#cards", "#party"])
        assert player.evaluate("window.stillTheSamePage") is True
        fits_a_phone(player)
        screenshot(player, "sessions-player-page-phone-es")
        link.click()
        expect(player.get_by_role("heading", name="Resumen de la sesión 1")).to_be_visible()
        expect(player.get_by_role("heading", name="Aldara")).to_be_visible()
        expect(player.locator("body")).not_to_contain_text("Tomás")
        expect(player.locator("body")).not_to_contain_text("Registro de la sesión")
        assert "Tomás" not in player.content()
        fits_a_phone(player)
        assert serious_violations(player) == []
        screenshot(player, "sessions-recap-player-phone-es")
        for page in (gm, other_tab, player, fresh, player_fresh):
            assert page.errors == [], page.url
    finally:
        gm_context.close()
        player_context.close()


@pytest.mark.parametrize(("username", "phone"), [("ana", True), ("narrador", False)])
def test_the_recap_in_english(browser: Browser, server: str, demo: Campaign, username: str, phone: bool):
    keep_tomas_secret(demo)
    aldara = Character.objects.get(campaign=demo, name="Aldara")
    actions.start_session(demo, by=demo.gm)
    actions.apply_damage(demo, [aldara], Attack(amount=5), by=demo.gm)
    actions.advance_clock(demo, 86400, by=demo.gm)
    actions.end_session(demo, by=demo.gm)
    actions.share_recap(demo, 1, by=demo.gm)
    context = context_for(browser, server, username, locale="en-US", phone=phone)
    try:
        page = watch_errors(context.new_page())
        page.goto(f"{server}/campaigns/{demo.pk}/")
        if phone:
            page.locator("#recaps").get_by_role("link").click()
        else:
            expect(page.get_by_role("button", name="Start session 2")).to_be_visible()
            page.get_by_role("link", name="Recap of session 1").click()
        expect(page.get_by_role("heading", name="Recap of session 1")).to_be_visible()
        expect(page.locator("body")).to_contain_text("Campaign time passed: 1 day.")
        expect(page.locator("body")).to_contain_text("1 wound of Direct physical attack: 5 HP")
        if phone:
            fits_a_phone(page)
            expect(page.locator("body")).not_to_contain_text("Tomás")
        else:
            expect(page.get_by_role("button", name="Stop sharing")).to_be_visible()
        screenshot(page, f"sessions-recap-{'player-phone' if phone else 'gm-desktop'}-en")
        assert page.errors == []
    finally:
        context.close()
