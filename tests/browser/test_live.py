"""Two browsers on a real ASGI server: what the GM does shows on the player's phone at once, without a reload."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.core.management import call_command
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign
from characters.models import Character
from tests.browser.conftest import log_in, record_error, screenshot
from tests.browser.test_table import card, settled
from tests.servers import asgi_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_player_sees_damage_exertion_and_undo_live(browser: Browser):
    call_command("load_demo", stdout=io.StringIO())
    # The server process uses the real password hasher, not the tests' fast one.
    for username, password in (("narrador", "cripta-narrador"), ("bruno", "cripta-bruno")):
        get_user_model().objects.filter(username=username).update(
            password=PBKDF2PasswordHasher().encode(password, PBKDF2PasswordHasher().salt())
        )
    campaign = Campaign.objects.get(name="La Cripta de Hielo")
    borin = Character.objects.get(name="Borin")
    with asgi_server() as base:
        gm = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900}).new_page()
        player = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True).new_page()
        for page in (gm, player):
            page.errors = []
            page.on("console", lambda message, page=page: record_error(page, message))
        log_in(gm, base, "narrador", "cripta-narrador")
        log_in(player, base, "bruno", "cripta-bruno")
        gm.goto(f"{base}/campaigns/{campaign.pk}/")
        player.goto(f"{base}/campaigns/{campaign.pk}/characters/{borin.pk}/")
        player.evaluate("window.stillTheSamePage = true")
        pg = player.locator(".pg-value")
        expect(pg).to_have_text(str(borin.pg))

        # Damage: Borin drops to 5 PG, in the exertion band once more below.
        card(gm, "Borin").get_by_role("link", name="Daño", exact=True).click()
        settled(gm)
        card(gm, "Borin").get_by_label("Daño (PG o tirada)").fill(str(borin.pg - 4))
        card(gm, "Borin").get_by_role("button", name="Aplicar daño").click()
        expect(pg).to_have_text("4")
        expect(player.get_by_text("¡Esfuerzo!")).to_be_visible()

        # An exertion check typed in from a real die: 1 + CON 12 − 4 = 9 < 12, Borin loses 1 PG.
        card(gm, "Borin").get_by_role("link", name="Esfuerzo").click()
        settled(gm)
        card(gm, "Borin").get_by_label("1d12 (+ CON 12)").fill("1")
        card(gm, "Borin").get_by_role("button", name="Tirada de esfuerzo").click()
        expect(pg).to_have_text("3")
        expect(player.locator(".entries")).to_contain_text("Esfuerzo de Borin")

        # Undo: the player sees the PG come back and the entry struck through.
        gm.get_by_role("button", name="Deshacer el último cambio").click()
        expect(pg).to_have_text("4")
        expect(player.locator(".entry.undone").first).to_contain_text("Esfuerzo de Borin")

        assert player.evaluate("window.stillTheSamePage") is True  # no reload, no navigation
        screenshot(player, "live-player-phone")
        screenshot(gm, "live-gm")
        assert gm.errors == [] and player.errors == []
        gm.context.close()
        player.context.close()
