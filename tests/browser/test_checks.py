"""Checks called by the GM and rolled on the players' phones, in real browsers on a real ASGI server: the call shows on
the player's sheet at once, the die typed there (Enter) runs the fall and its result reaches the GM's table live; the
GM answers for an NPC, lets the server roll, cancels one. In English on a phone too."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import CalledCheck
from tests.helpers import card, opened, page_width, screenshot, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_fall_called_by_the_gm_is_rolled_on_the_players_phone(browser: Browser, demo: Campaign, server: str):
    aldara = Character.objects.get(name="Aldara")
    gm_context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    phone_context = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        gm, ana = watch_errors(gm_context.new_page()), watch_errors(phone_context.new_page())
        sign_in(gm_context, server, "narrador")
        sign_in(phone_context, server, "ana")
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        ana.goto(f"{server}/campaigns/{demo.pk}/characters/{aldara.pk}/")
        ana.evaluate("window.stillTheSamePage = true")
        expect(ana.locator(".my-checks")).to_have_count(0)

        # The GM calls a 6 m fall for everyone instead of rolling it.
        gm.get_by_role("link", name="Daño a varios").click()
        settled(gm)
        gm.locator("#form-party select[name=kind]").select_option("fall")
        settled(gm)
        gm.locator("#form-party").get_by_label("Altura (m)").fill("6")
        gm.get_by_role("button", name="Pedir la tirada a sus jugadores").click()
        calls = gm.locator("#calls")
        expect(calls.get_by_role("heading", name="Tirada de caída (6 m, dificultad 12)")).to_be_visible()
        expect(calls).to_contain_text("Aldara: 1d20 + Saltar 6 contra 12")

        # Ana's sheet shows it at once; a die out of range is refused with a message and changes nothing.
        check = ana.locator(".my-checks")
        expect(check.get_by_role("heading", name="Tirada de caída (6 m)")).to_be_visible()
        expect(check).to_contain_text("1d20 + Saltar 6 contra 12")
        die = check.get_by_label("Tu dado (1–20)")
        die.fill("25")
        die.press("Enter")
        expect(check.get_by_role("alert")).to_contain_text("20")
        expect(check.get_by_label("Tu dado (1–20)")).to_be_focused()  # back in the field, beside the message
        assert Character.objects.get(pk=aldara.pk).pg == aldara.pg
        screenshot(ana, "check-phone-es")

        # The die she rolled, typed and Enter: the fall happens, as if the GM had typed it.
        check.get_by_label("Tu dado (1–20)").fill("3")
        check.get_by_label("Tu dado (1–20)").press("Enter")
        expect(ana.locator("#check-said")).to_contain_text("1d20 (3) + Saltar 6 = 9 contra 12: fallo")
        expect(ana.locator(".my-checks")).to_have_count(0)
        expect(ana.locator("#check-said")).to_be_focused()  # what the die did, read next
        lost = aldara.pg - Character.objects.get(pk=aldara.pk).pg
        assert lost > 0
        expect(ana.locator(".pg-value")).to_have_text(str(aldara.pg - lost))

        # The GM's table gets it live: the roll in the calls panel, the card, the log.
        expect(calls).to_contain_text("Aldara — caída: 1d20 (3) + Saltar 6 = 9 contra 12: fallo")
        expect(calls).to_contain_text("Tirada pedida: ana anota el dado")
        expect(gm.locator("#log-entries")).to_contain_text("Tirada pedida: ana anota el dado")

        # The GM answers for Borin with a die typed at the table, lets the server roll for Hermano Tomás, and
        # cancels Sibila's: the panel empties, the log keeps all of it.
        row = calls.locator("li", has_text="Borin:")
        row.get_by_label("Dado tirado en la mesa (1–20)").fill("20")
        row.get_by_label("Dado tirado en la mesa (1–20)").press("Enter")
        expect(calls).to_contain_text("Borin — caída: 1d20 (20)")
        calls.locator("li", has_text="Hermano Tomás:").get_by_role("button", name="Que tire el servidor").click()
        expect(calls).to_contain_text("Hermano Tomás — caída: 1d20 (")
        gm.get_by_role("button", name="Anular la tirada de Sibila").click()
        expect(calls.get_by_role("heading")).to_have_count(0)
        expect(gm.locator("#log-entries")).to_contain_text("Tirada anulada: caída de 6 m (dificultad 12)")
        assert not CalledCheck.objects.filter(status="pending").exists()

        # Undo the cancellation: Sibila's check waits again, on the GM's table.
        gm.get_by_role("button", name="Deshacer: Tirada anulada").click()
        expect(calls).to_contain_text("Sibila: 1d20 + Saltar 4 contra 12")  # the name, then what to roll
        assert ana.evaluate("window.stillTheSamePage") is True  # no reload, no navigation
        screenshot(gm, "check-gm")
        assert gm.errors == [] and ana.errors == []
    finally:
        gm_context.close()
        phone_context.close()


def test_an_exertion_check_on_the_players_page_in_english(browser: Browser, demo: Campaign, server: str):
    borin = Character.objects.get(name="Borin")
    narrador = get_user_model().objects.get(username="narrador")
    actions.apply_damage(demo, [borin], Attack(amount=borin.pg - 3), by=narrador)  # 3 PG: exertion
    context = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
    gm_context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    try:
        phone, gm = watch_errors(context.new_page()), watch_errors(gm_context.new_page())
        sign_in(context, server, "bruno")
        sign_in(gm_context, server, "narrador")
        for someone in (context, gm_context):  # English, as chosen with the language switch
            someone.add_cookies([{"name": "django_language", "value": "en", "url": server}])
        phone.goto(f"{server}/campaigns/{demo.pk}/")
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        opened(card(gm, "Borin")).get_by_role("link", name="Exertion").click()
        settled(gm)
        opened(card(gm, "Borin")).get_by_role("button", name="Ask the players to roll").click()
        expect(gm.locator("#calls")).to_contain_text("Borin: 1d12 + CON 12 − 4 (low HP) against 12")
        checks = phone.locator("#my-checks")
        expect(checks.get_by_role("heading", name="Exertion check")).to_be_visible()
        expect(checks).to_contain_text("Borin: 1d12 + CON 12 − 4 (low HP) against 12")
        assert page_width(phone) <= 375
        screenshot(phone, "check-phone-en")
        checks.get_by_role("button", name="Let the server roll for me").click()
        expect(phone.locator("#check-said")).to_contain_text("Borin — exertion: 1d12 (")
        expect(checks.get_by_role("heading")).to_have_count(0)
        assert phone.errors == [] and gm.errors == []
    finally:
        context.close()
        gm_context.close()
