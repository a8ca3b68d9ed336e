"""Issue 13, part 3, in real browsers on a real ASGI server: the GM changes a companion and what the players see of
one another, and a player's phone follows live, without a reload; in English on a 375 px phone the word is English
and nothing scrolls sideways."""

import pytest
from django.utils import translation
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import explained
from tests.helpers import (
    card,
    context_for,
    expect_live_equals_reload,
    page_width,
    screenshot,
    settings_of,
    settled,
    watch_errors,
    without_live_updates,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_page(context: BrowserContext, url: str) -> Page:
    page = watch_errors(context.new_page())
    page.goto(url)
    page.evaluate("window.stillTheSamePage = true")  # gone if anything reloads the page
    return page


def companion(page: Page, name: str):
    return page.locator("li.companion").filter(has=page.locator(".companion-name", has_text=name))


def test_the_players_companions_follow_the_gm_live(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    gm_context, player_context = (
        context_for(browser, server, "narrador"),
        context_for(browser, server, "ana", phone=True),
    )
    try:
        gm, other_tab = open_page(gm_context, table), open_page(gm_context, table)
        player = open_page(player_context, table)
        fresh = without_live_updates(watch_errors(player_context.new_page()))
        gm.bring_to_front()
        # A word for each companion (the demo campaign's setting): Borin (bruno) is hurt, Tomás unhurt.
        expect(companion(player, "Borin")).to_contain_text("bruno")
        expect(companion(player, "Borin").locator(".companion-state")).to_have_text("Herido")
        expect(companion(player, "Hermano Tomás").locator(".companion-state")).to_have_text("Ileso")
        expect(player.locator("#party")).not_to_contain_text("PG")

        # The GM hits Borin hard (quick damage, Enter): the player reads "Grave", and still no number.
        borin = Character.objects.get(name="Borin")
        box = card(gm, "Borin").locator("[data-quick-damage]")
        box.fill(str(borin.pg - 5))
        box.press("Enter")
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text("5")
        expect(companion(player, "Borin").locator(".companion-state")).to_have_text("Grave")
        expect(player.locator("#party")).not_to_contain_text("5/120")
        expect_live_equals_reload(player, fresh, ["#party", "#cards"])

        # "nada": the companions go, names and all.
        control = settings_of(gm).get_by_label("Los jugadores ven de los demás")
        control.select_option(label="nada")
        gm.locator("#form-partyview").get_by_role("button", name="Guardar").click()
        expect(player.locator("#party")).to_contain_text("No ves a ningún otro personaje")
        expect(player.locator("#party")).not_to_contain_text("Borin")
        expect(gm.locator("aside.log")).to_contain_text("Los jugadores ven de los demás: nada")
        expect(other_tab.get_by_label("Los jugadores ven de los demás")).to_have_value("hidden")  # the GM's other tab
        expect_live_equals_reload(player, fresh, ["#party"])
        screenshot(player, "party-player-nothing")

        # Their exact PG, sent from the keyboard: Enter in the select sends it; the focus stays on the control.
        settled(gm)
        control = gm.get_by_label("Los jugadores ven de los demás")
        control.focus()
        control.select_option("exact")
        control.press("Enter")
        expect(companion(player, "Borin")).to_contain_text("PG 5/120")
        expect(companion(player, "Hermano Tomás")).to_contain_text("PG 50/50")
        expect(gm.get_by_label("Los jugadores ven de los demás")).to_be_focused()
        expect(gm.get_by_label("Los jugadores ven de los demás")).to_have_value("exact")
        expect_live_equals_reload(player, fresh, ["#party"])

        assert player.evaluate("window.stillTheSamePage") is True
        assert gm.evaluate("window.stillTheSamePage") is True and other_tab.evaluate("window.stillTheSamePage")
        screenshot(player, "party-player-exact")
        screenshot(gm, "party-gm")
        for page in (gm, other_tab, player, fresh):
            assert page.errors == [], page.url
    finally:
        gm_context.close()
        player_context.close()


def test_a_refused_choice_says_why_and_changes_nothing(browser: Browser, server: str, demo: Campaign):
    """A forged value (an option made up in the page) is refused beside the control, with the campaign as it was."""
    context = context_for(browser, server, "narrador")
    try:
        gm = watch_errors(context.new_page())
        # The stream's first message draws the control again: wait for it, or it may land over the refusal.
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        expect(gm.locator("body[data-live]")).to_have_count(1)
        gm.evaluate(
            """() => {
              const select = document.getElementById("party_view");
              select.options[0].value = "todo";
              select.value = "todo";
              select.form.querySelector("button[type=submit]").click();
            }"""
        )
        expect(gm.locator("#form-partyview [role=alert]")).to_contain_text("Elige una opción válida")
        assert Campaign.objects.get(pk=demo.pk).party_view == "band"
        assert gm.errors == []
    finally:
        context.close()


def test_on_a_phone_in_english(browser: Browser, server: str, demo: Campaign):
    context = context_for(browser, server, "ana", locale="en-US", phone=True)
    try:
        player = open_page(context, f"{server}/campaigns/{demo.pk}/")
        expect(player.get_by_role("heading", name="Your characters")).to_be_visible()
        with translation.override("en"):
            hurt, unhurt = str(explained.CONDITIONS["hurt"]), str(explained.CONDITIONS["unhurt"])
        assert (hurt, unhurt) == ("Hurt", "Unhurt")
        expect(companion(player, "Borin").locator(".companion-state")).to_have_text(hurt)
        expect(companion(player, "Hermano Tomás").locator(".companion-state")).to_have_text(unhurt)
        assert page_width(player) <= 375
        # The word explains itself: it links to its line of the rules, in English too.
        companion(player, "Borin").locator(".companion-state").click()
        expect(player.locator("#condition-hurt")).to_be_visible()
        assert page_width(player) <= 375
        screenshot(player, "party-rules-phone-en")
        player.go_back()
        expect(player.locator("#party")).to_be_visible()
        screenshot(player, "party-player-phone-en")
        assert player.errors == []
    finally:
        context.close()
