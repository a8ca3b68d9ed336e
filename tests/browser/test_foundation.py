"""The quick-start promise in a real browser: the demo GM logs in and opens the campaign; a player reads a sheet
on a phone."""

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from campaigns.models import Campaign
from characters.models import Character
from tests.browser.conftest import log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(transactional_db):
    call_command("load_demo", stdout=io.StringIO())
    return Campaign.objects.get(name="La Cripta de Hielo")


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
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    screenshot(phone, "sheet-player-phone")
    phone.get_by_label("Idioma").select_option("en")
    phone.get_by_role("button", name="Cambiar").click()
    expect(phone.get_by_text("Constitution (CON)")).to_be_visible()
    assert phone.errors == []
