"""Issue 25, co-GMs, as people use them in real browsers on a real ASGI server: the owner, on a desktop, invites a
co-GM from "Co-narradores"; the newcomer, on a 375 px phone, is told on the login page what the link is for, accepts,
runs the table (their damage reaches the owner live, named as theirs in the log) and sees no Export or Delete; the
owner removes them and their screen stops following the campaign; an undo brings them back. In English, a player is
made co-GM on their phone, and once removed finds their own player's page again. axe finds nothing serious on the
co-GMs' page and the invitation."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_party import open_page
from tests.helpers import ARTIFACTS, card, context_for, opened, page_width, screenshot, settings_of, settled, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def invite_link(owner: Page, table: str, invite: str = "Invitar a un co-narrador") -> str:
    """The owner's way to a co-GM link: the table's "Co-narradores", the button, the link's field."""
    owner.goto(table)
    settings_of(owner).get_by_role("link", name="Co-narradores" if "co-narrador" in invite else "Co-GMs").click()
    owner.get_by_role("button", name=invite).click()
    field = owner.locator(".invitation input[readonly]")
    expect(field).to_have_count(1)
    expect(owner.locator("details.qr")).to_have_count(1)
    return field.input_value()


def fits(page: Page) -> None:
    assert page_width(page) <= 375


def test_the_owner_names_a_co_gm_who_runs_the_table_from_a_phone_and_is_removed(
    browser: Browser, server: str, demo: Campaign
):
    table = f"{server}/campaigns/{demo.pk}/"
    get_user_model().objects.create_user("carla", password="no-se-usa")
    owner_context = context_for(browser, server, "narrador")
    phone_context = browser.new_context(
        locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    try:
        owner = open_page(owner_context, table)
        link = invite_link(owner, table)
        screenshot(owner, "co-gms-owner-link")
        assert serious_violations(owner) == []

        # Signed out, the link goes to the login page, which says what it is for.
        phone = open_page(phone_context, link)
        expect(phone.locator(".invited")).to_contain_text("como co-narrador")
        sign_in(phone_context, server, "carla")
        phone.goto(link)
        expect(phone.locator("main")).to_contain_text("te invita a narrar la campaña «La Cripta de Hielo»")
        fits(phone)
        screenshot(phone, "co-gms-invitation-phone")
        assert serious_violations(phone) == []
        phone.get_by_role("button", name="Aceptar como co-narrador").click()
        expect(phone).to_have_url(table)
        expect(phone.get_by_role("status").first).to_contain_text("Ahora eres co-narrador")
        expect(phone.get_by_role("link", name="Exportar")).to_have_count(0)
        expect(phone.get_by_role("link", name="Borrar campaña")).to_have_count(0)
        expect(phone.locator("body[data-live]")).to_have_count(1)

        # The co-GM acts from the phone; the owner's open table follows, naming who did it.
        owner.goto(table)
        expect(owner.locator("body[data-live]")).to_have_count(1)
        expect(owner.locator("aside.log")).to_contain_text("carla se une como co-narrador")
        opened(card(phone, "Borin")).get_by_role("link", name="Daño", exact=True).click()
        settled(phone)
        card(phone, "Borin").get_by_label("Daño (PG o tirada)").fill("3")
        card(phone, "Borin").get_by_role("button", name="Aplicar daño").click()
        first = owner.locator("aside.log .entry").first
        expect(first).to_contain_text("carla")
        fits(phone)
        screenshot(phone, "co-gms-co-gm-table-phone")
        expect(phone.locator("aside.log .entry").first).to_contain_text("carla")
        phone.locator("aside.log").screenshot(path=str(ARTIFACTS / "co-gms-co-gm-log-phone.png"))
        phone.locator(".table-head").screenshot(path=str(ARTIFACTS / "co-gms-co-gm-head-phone.png"))

        # The co-GM sees who narrates, not the owner's buttons.
        settings_of(phone).get_by_role("link", name="Co-narradores").click()
        expect(phone.locator(".co-gms")).to_contain_text("carla")
        expect(phone.get_by_role("button", name="Quitar")).to_have_count(0)
        fits(phone)
        screenshot(phone, "co-gms-list-co-gm-phone")
        phone.goto(table)
        expect(phone.locator("body[data-live]")).to_have_count(1)

        # The owner removes them: the phone's table stops following the campaign at once.
        settings_of(owner).get_by_role("link", name="Co-narradores").click()
        screenshot(owner, "co-gms-owner-list")
        owner.get_by_role("button", name="Quitar a carla").click()
        expect(owner.get_by_role("status").first).to_contain_text("carla ya no es co-narrador")
        expect(phone.locator("#screen-gone")).to_be_visible()
        screenshot(phone, "co-gms-removed-phone")
        assert phone.goto(table).status == 404

        # An undo brings them back.
        owner.goto(table)
        owner.get_by_role("button", name="Deshacer: carla ya no es co-narrador").click()
        expect(owner.locator("aside.log .entry.undone").first).to_contain_text("carla ya no es co-narrador")
        assert phone.goto(table).status == 200
        expect(card(phone, "Borin")).to_have_count(1)
        screenshot(owner, "co-gms-owner-table-after-undo")
    finally:
        owner_context.close()
        phone_context.close()


def test_a_player_made_co_gm_in_english_plays_on_once_removed(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    owner_context = context_for(browser, server, "narrador", locale="en-GB")
    phone_context = context_for(browser, server, "ana", locale="en-GB", phone=True)
    try:
        owner = open_page(owner_context, table)
        link = invite_link(owner, table, "Invite a co-GM")
        phone = open_page(phone_context, link)
        expect(phone.locator("main")).to_contain_text("invites you to run the campaign")
        phone.get_by_role("button", name="Accept as co-GM").click()
        expect(phone).to_have_url(table)
        expect(card(phone, "Borin")).to_have_count(1)  # the whole table, not ana's page
        fits(phone)
        screenshot(phone, "co-gms-player-as-co-gm-phone-en")
        phone.goto(f"{server}/")
        expect(phone.locator("main")).to_contain_text("co-GM, with narrador")
        fits(phone)
        screenshot(phone, "co-gms-home-phone-en")

        owner.goto(table)
        settings_of(owner).get_by_role("link", name="Co-GMs").click()
        owner.get_by_role("button", name="Remove ana").click()
        expect(owner.get_by_role("status").first).to_contain_text("ana is no longer a co-GM")
        screenshot(owner, "co-gms-owner-list-en")
        assert serious_violations(owner) == []
        phone.goto(table)
        expect(phone.locator("main")).to_contain_text("Aldara")
        expect(card(phone, "Borin")).to_have_count(0)  # a player's page again: her own character
        fits(phone)
        screenshot(phone, "co-gms-player-again-phone-en")
        owner.goto(table)
        expect(owner.locator("aside.log")).to_contain_text("Still plays their characters.")
    finally:
        owner_context.close()
        phone_context.close()
