"""The quick-start promise in a real browser: the demo GM logs in and opens the campaign; a player reads a sheet
on a phone."""

import pytest
from playwright.sync_api import expect

from characters.models import Character
from tests.helpers import log_in, page_width, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_demo_gm_logs_in_and_opens_the_campaign(page, live_server, demo):
    log_in(page, live_server.url, "narrador", "cripta-narrador")
    page.get_by_role("link", name="La Cripta de Hielo").click()
    expect(page.get_by_role("heading", name="La Cripta de Hielo")).to_be_visible()
    for name in ("Aldara", "Borin", "Sibila", "Hermano Tomás"):
        expect(page.get_by_role("link", name=name)).to_be_visible()
    screenshot(page, "campaign-gm")
    assert page.errors == []


def test_gm_adds_a_character_and_bad_input_shows_a_message(page, live_server, demo):
    log_in(page, live_server.url, "narrador", "cripta-narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/characters/new/")
    page.get_by_label("Nombre").fill("Eira")
    page.get_by_label("Constitución (CON)").fill("31")
    page.get_by_role("button", name="Guardar").click()
    expect(page.get_by_text("menor o igual a 30")).to_be_visible()
    assert not Character.objects.filter(name="Eira").exists()
    page.get_by_label("Constitución (CON)").fill("9")
    page.get_by_role("button", name="Guardar").click()
    expect(page.get_by_role("link", name="Eira")).to_be_visible()
    assert Character.objects.get(name="Eira").max_pg == 90


def test_player_reads_the_sheet_on_a_phone_in_english(phone, live_server, demo):
    log_in(phone, live_server.url, "ana", "cripta-ana")
    phone.get_by_role("link", name="La Cripta de Hielo").click()
    phone.get_by_role("link", name="Aldara").click()
    expect(phone.get_by_role("heading", name="Aldara")).to_be_visible()
    aldara = Character.objects.get(name="Aldara")
    expect(phone.get_by_text(f"{aldara.pg} / 80")).to_be_visible()
    assert page_width(phone) <= 375
    screenshot(phone, "sheet-player-phone")
    phone.get_by_label("Idioma").select_option("en")
    phone.get_by_role("button", name="Cambiar").click()
    expect(phone.get_by_text("Constitution (CON)")).to_be_visible()
    assert phone.errors == []


@pytest.mark.parametrize("fixture", ["page", "phone"])
def test_the_browser_fixtures_record_uncaught_exceptions(request, fixture):
    # The other browser tests end with `assert page.errors == []`: make sure that list would catch a script error.
    page = request.getfixturevalue(fixture)
    page.set_content("<p>empty</p>")
    with page.expect_event("pageerror"):
        page.evaluate("setTimeout(() => { throw new Error('boom') }, 0)")
    assert len(page.errors) == 1 and "boom" in page.errors[0]
