"""Two browsers on a real ASGI server: what the GM does shows on the player's phone at once, without a reload."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.helpers import card, log_in, opened, routable, screenshot, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_player_sees_damage_exertion_and_undo_live(browser: Browser, demo: Campaign, server: str):
    # The server process uses the real password hasher, not the tests' fast one.
    for username, password in (("narrador", "cripta-narrador"), ("bruno", "cripta-bruno")):
        get_user_model().objects.filter(username=username).update(
            password=PBKDF2PasswordHasher().encode(password, PBKDF2PasswordHasher().salt())
        )
    gm_context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    player_context = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        # Every page opened records console errors, CSP violations and uncaught exceptions (pageerror).
        gm, player = watch_errors(gm_context.new_page()), watch_errors(player_context.new_page())
        play_the_scene(gm, player, server, demo)
        assert gm.errors == []
        assert player.errors == []
    finally:
        gm_context.close()
        player_context.close()


def play_the_scene(gm: Page, player: Page, base: str, campaign: Campaign) -> None:
    borin = Character.objects.get(name="Borin")
    log_in(gm, base, "narrador", "cripta-narrador")
    log_in(player, base, "bruno", "cripta-bruno")
    gm.goto(f"{base}/campaigns/{campaign.pk}/")
    player.goto(f"{base}/campaigns/{campaign.pk}/characters/{borin.pk}/")
    player.evaluate("window.stillTheSamePage = true")
    pg = player.locator(".pg-value")
    expect(pg).to_have_text(str(borin.pg))

    # Damage: Borin drops to 4 PG, in the exertion band.
    opened(card(gm, "Borin")).get_by_role("link", name="Daño", exact=True).click()
    settled(gm)
    card(gm, "Borin").get_by_label("Daño (PG o tirada)").fill(str(borin.pg - 4))
    card(gm, "Borin").get_by_role("button", name="Aplicar daño").click()
    expect(pg).to_have_text("4")
    expect(player.get_by_text("¡Esfuerzo!")).to_be_visible()

    # An exertion check typed in from a real die: 1 + CON 12 − 4 = 9 < 12, Borin loses 1 PG.
    opened(card(gm, "Borin")).get_by_role("link", name="Esfuerzo").click()
    settled(gm)
    card(gm, "Borin").get_by_label("1d12 (+ CON 12)").fill("1")
    opened(card(gm, "Borin")).get_by_role("button", name="Tirada de esfuerzo").click()
    expect(pg).to_have_text("3")
    expect(player.locator(".entries")).to_contain_text("Esfuerzo de Borin")

    # Undo: the player sees the PG come back and the entry struck through.
    gm.get_by_role("button", name="Deshacer: Esfuerzo de Borin").click()
    expect(pg).to_have_text("4")
    expect(player.locator(".entry.undone").first).to_contain_text("Esfuerzo de Borin")

    assert player.evaluate("window.stillTheSamePage") is True  # no reload, no navigation
    screenshot(player, "live-player-phone")
    screenshot(gm, "live-gm")


@contextmanager
def open_table(browser: Browser, campaign: Campaign, server: str) -> Iterator[Page]:
    """The GM's table of the demo open in a browser on a real ASGI server, for changes made elsewhere to reach."""
    get_user_model().objects.filter(username="narrador").update(
        password=PBKDF2PasswordHasher().encode("cripta-narrador", PBKDF2PasswordHasher().salt())
    )
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    try:
        gm = watch_errors(context.new_page())
        log_in(gm, server, "narrador", "cripta-narrador")
        gm.goto(f"{server}/campaigns/{campaign.pk}/")
        gm.evaluate("window.stillTheSamePage = true")
        yield gm
        assert gm.evaluate("window.stillTheSamePage") is True
        assert gm.errors == []
    finally:
        context.close()


def test_an_open_table_offers_the_actions_a_fresh_load_would(browser: Browser, demo: Campaign, server: str):
    """Live equals reload (docs/architecture.md principle 3): after a change made in another tab or by a script, each
    card on an open table offers the action links a fresh load would (docs/rules.md §4: exertion only at 1–4 PG)."""
    narrador = get_user_model().objects.get(username="narrador")
    borin = Character.objects.get(name="Borin")
    with open_table(browser, demo, server) as gm:
        opened(card(gm, "Borin"))  # its actions shown: a link folded away is no link to a reader
        expect(card(gm, "Borin").get_by_role("link", name="Esfuerzo")).to_have_count(0)
        actions.apply_damage(demo, [borin], Attack(amount=borin.pg - 4), by=narrador)
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text("4")
        expect(card(gm, "Borin").get_by_role("link", name="Esfuerzo")).to_have_count(1)
        actions.apply_damage(demo, [borin], Attack(amount=4), by=narrador)  # he dies: only "Daño" is left
        expect(card(gm, "Borin").get_by_text("muerto")).to_be_visible()
        expect(card(gm, "Borin").get_by_role("link", name="Tratar heridas")).to_have_count(0)
        expect(card(gm, "Borin").get_by_role("link", name="Esfuerzo")).to_have_count(0)


def test_an_open_table_shows_characters_added_and_removed_elsewhere(browser: Browser, demo: Campaign, server: str):
    narrador = get_user_model().objects.get(username="narrador")
    with open_table(browser, demo, server) as gm:
        expect(card(gm, "Sibila")).to_have_count(1)
        actions.add_character(demo, actions.Sheet("Eira", 9), by=narrador)
        expect(card(gm, "Eira")).to_have_count(1)
        actions.remove_character(demo, Character.objects.get(name="Sibila"), by=narrador)
        expect(card(gm, "Sibila")).to_have_count(0)


def test_a_late_answer_never_covers_a_newer_change_and_still_lands(browser: Browser, demo: Campaign, server: str):
    # A busy server: the answer to the GM's quick damage is held while another tab wounds Borin again, which the GM's
    # stream draws at once. The held answer then lands: its older drawing of the card never covers the newer one
    # (the campaign version decides), its log entry still takes its place, the box was emptied as it was sent, and the
    # stream never sent this tab its own blow (each change reaches each screen once).
    borin = Character.objects.get(name="Borin")
    # No service worker: once it claims the page, Playwright's routes (the held answer) no longer see its requests.
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900}, service_workers="block")
    held = []

    def hold(route) -> None:
        held.append((route, route.fetch()))  # the server has acted (and told the streams); the answer waits

    try:
        gm = watch_errors(routable(context.new_page()))
        sign_in(context, server, "narrador")
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        expect(gm.locator("body[data-live]")).to_have_count(1)
        gm.route("**/act/damage/", hold)
        box = card(gm, "Borin").locator("[data-quick-damage]")
        box.fill("3")
        box.press("Enter")
        expect(box).to_have_value("")  # emptied as it was sent: the next number is the next blow
        gm.wait_for_timeout(500)
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text(str(borin.pg))  # not by its own stream
        actions.apply_damage(demo, [borin], Attack(amount=2), by=demo.gm)  # another tab
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text(str(borin.pg - 5))
        route, response = held[0]
        route.fulfill(response=response)
        expect(gm.locator("#announce")).to_have_text(f"Borin: {borin.pg - 3}/{borin.max_pg} PG")
        expect(card(gm, "Borin")).to_be_focused()
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text(str(borin.pg - 5))  # the newer state stays
        expect(gm.locator("#log-entries li.entry").nth(0)).to_contain_text("Borin pierde 2 PG")
        expect(gm.locator("#log-entries li.entry").nth(1)).to_contain_text("Borin pierde 3 PG")
        assert gm.errors == []
    finally:
        context.close()
