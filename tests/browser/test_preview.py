"""The GM previews a time skip from the keyboard, reads it, applies it with Enter; a change made in another tab
between the preview and "Aplicar" gets them the new preview instead, and an open preview follows the table. On a
phone it reads at 375 px."""

import pytest
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.browser.test_table import open_table
from tests.helpers import card, page_width, screenshot, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_preview_then_apply_with_the_keyboard_and_a_stale_preview_is_replaced(
    page: Page, browser: Browser, live_server, demo: Campaign
):
    open_table(page, live_server.url, demo)
    start = demo.clock
    page.get_by_label("Ver antes qué pasará").check()
    duration = page.locator("#form-advance input[name=duration]")
    duration.fill("2 lunas")  # refused, with examples that work
    duration.press("Enter")
    expect(page.locator("#form-advance [role=alert]")).to_contain_text("«lunas»")
    duration.fill("2 semanas")
    duration.press("Enter")
    preview = page.locator("#advance-preview")
    expect(page.locator("#form-advance [role=alert]")).to_have_count(0)  # the refusal of the first try is gone
    expect(preview.get_by_role("heading", name="¿Qué pasará?")).to_be_visible()
    expect(preview).to_contain_text("Si avanzas 2 semanas")
    expect(preview.get_by_role("button", name="Aplicar")).to_be_focused()
    screenshot(page, "preview-es")
    assert Campaign.objects.get(pk=demo.pk).clock == start  # a preview changes nothing

    # Another tab wounds Aldara before "Aplicar": the GM gets the new preview, nothing advances.
    other = watch_errors(browser.new_context(locale="es-ES").new_page())
    open_table(other, live_server.url, demo)
    aldara = Character.objects.get(name="Aldara").pg
    card(other, "Aldara").locator("[data-quick-damage]").fill("3")
    card(other, "Aldara").locator("[data-quick-damage]").press("Enter")
    expect(card(other, "Aldara").locator(".pg-value")).to_have_text(str(aldara - 3))
    page.keyboard.press("Enter")  # "Aplicar" has the focus
    expect(preview).to_contain_text("La mesa ha cambiado desde la previsión")
    expect(preview).to_contain_text(f"Aldara: {aldara - 3} →")
    assert Campaign.objects.get(pk=demo.pk).clock == start

    preview.get_by_role("button", name="Aplicar").click()
    settled(page)
    expect(page.locator("#advance-preview")).to_be_empty()
    expect(page.locator("#clock")).to_contain_text("Día 15")
    expect(page.get_by_label("Ver antes qué pasará")).to_be_checked()  # stays on for the next skip
    assert Campaign.objects.get(pk=demo.pk).clock == start + 14 * 86400

    # Escape, or "Cancelar", closes a preview and puts the keyboard back in the duration field.
    page.locator("#form-advance button[name=preset][value='86400']").click()
    expect(preview.get_by_role("button", name="Aplicar")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#advance-preview")).to_be_empty()
    expect(duration).to_be_focused()
    other.context.close()


def test_a_preview_reads_on_a_phone_in_english(phone: Page, live_server, demo: Campaign):
    from tests.helpers import log_in

    log_in(phone, live_server.url, "narrador", "cripta-narrador")
    phone.context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    phone.get_by_label("Show what will happen first").check()
    phone.get_by_role("button", name="+1 week of rest").click()
    preview = phone.locator("#advance-preview")
    expect(preview.get_by_role("heading", name="What will happen?")).to_be_visible()
    expect(preview).to_contain_text("If you advance 1 week")
    assert page_width(phone) <= 375
    screenshot(phone, "preview-phone-en")


def test_an_open_preview_follows_changes_from_another_tab_and_its_own(browser: Browser, demo: Campaign, server: str):
    # Issue 24: a preview is a screen like any other. Another tab wounds Aldara: the open preview is drawn again at
    # once, says why, and keeps the keyboard on "Aplicar", which then applies what it now shows. A blow struck from
    # this tab redraws it too.
    aldara = Character.objects.get(name="Aldara")
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    try:
        gm = watch_errors(context.new_page())
        sign_in(context, server, "narrador")
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        expect(gm.locator("body[data-live]")).to_have_count(1)
        gm.get_by_label("Ver antes qué pasará").check()
        gm.locator("#form-advance input[name=duration]").fill("1d")
        gm.locator("#form-advance input[name=duration]").press("Enter")
        preview = gm.locator("#advance-preview")
        expect(preview).to_contain_text(f"Aldara: {aldara.pg} →")
        expect(preview.get_by_role("button", name="Aplicar")).to_be_focused()

        actions.apply_damage(demo, [aldara], Attack(amount=3), by=demo.gm)  # another tab
        expect(preview).to_contain_text(f"Aldara: {aldara.pg - 3} →")
        expect(preview.get_by_role("status")).to_have_text("La mesa ha cambiado; la previsión está al día.")
        expect(preview.get_by_role("button", name="Aplicar")).to_be_focused()
        screenshot(gm, "preview-follows")

        box = card(gm, "Aldara").locator("[data-quick-damage]")  # this tab
        box.fill("2")
        box.press("Enter")
        expect(preview).to_contain_text(f"Aldara: {aldara.pg - 5} →")
        expect(card(gm, "Aldara")).to_be_focused()  # the blow's own focus: the redraw moved nothing

        version = Campaign.objects.get(pk=demo.pk).version
        expect(preview.locator("input[name=version]")).to_have_value(str(version))
        preview.get_by_role("button", name="Aplicar").click()
        expect(preview).to_be_empty()
        expect(gm.locator("#clock")).to_contain_text("Día 2")
        assert Campaign.objects.get(pk=demo.pk).clock == demo.clock + 86400  # applied, not refused
        assert gm.errors == []
    finally:
        context.close()
