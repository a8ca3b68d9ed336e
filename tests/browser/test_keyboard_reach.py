"""Where the keyboard lands and how far it has to go (issue 24): every form page opens in its first field (after a
refusal, in the field it is about); after "Invitar" the keyboard is in the link, its Copy button next; `j`/`k` and the
arrows go from card to card; a skip link takes the first Tab past the clock and the called checks to the cards. The
test live server (WSGI) is enough: nothing here needs a live stream."""

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import CheckKind
from tests.helpers import card, opened, screenshot, settings_of, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table(page: Page, live_server, demo: Campaign) -> Page:
    sign_in(page.context, live_server.url, "narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    yield page
    assert [error for error in page.errors if "status of 400" not in error] == []  # a refused page form answers 400


def test_form_pages_open_in_their_first_field_and_a_refusal_in_its_field(table: Page):
    table.get_by_role("link", name="Añadir personaje").click()
    expect(table.get_by_label("Nombre")).to_be_focused()
    table.keyboard.type("Eira")
    table.get_by_label("Constitución (CON)").fill("99")
    table.get_by_label("Constitución (CON)").press("Enter")
    expect(table.locator(".errorlist").first).to_be_visible()
    expect(table.get_by_label("Constitución (CON)")).to_be_focused()  # not the name, which was right
    table.go_back()
    table.go_back()

    settings_of(table).get_by_role("link", name="Enfermedades de la campaña").click()
    table.get_by_role("link", name="Añadir enfermedad").click()
    expect(table.locator("main form input:not([type=hidden])").first).to_be_focused()

    table.locator(".brand").click()
    table.get_by_role("link", name="Nueva campaña").click()
    expect(table.locator("main form input:not([type=hidden])").first).to_be_focused()


def test_after_inviting_the_keyboard_is_in_the_link_with_copy_next(table: Page):
    npc = opened(card(table, "Hermano Tomás"))
    npc.get_by_role("button", name="Invitar").click()
    link = npc.get_by_label("Enlace de invitación para Hermano Tomás")
    expect(link).to_be_focused()
    assert "/invite/" in link.input_value()
    table.keyboard.press("Tab")
    expect(npc.get_by_role("button", name="Copiar")).to_be_focused()


def test_j_k_and_the_arrows_go_from_card_to_card(table: Page):
    names = [name.strip() for name in table.locator("#cards > li.card h3").all_inner_texts()]
    assert len(names) == 4, names

    def on(name: str) -> None:
        expect(card(table, name).locator("h3 a")).to_be_focused()

    table.locator("h1").click()  # nothing focused: j starts at the first card, k at the last
    table.keyboard.press("j")
    on(names[0])
    table.keyboard.press("j")
    on(names[1])
    table.keyboard.press("k")
    on(names[0])
    table.keyboard.press("ArrowDown")
    on(names[1])
    table.keyboard.press("ArrowUp")
    on(names[0])
    table.keyboard.press("ArrowUp")  # the first already: it stays
    on(names[0])
    table.keyboard.press("d")  # a card reached so is the focused card of every other shortcut
    expect(card(table, names[0]).locator("form.action-form")).to_be_visible()
    table.keyboard.press("Escape")
    table.locator("h1").click()
    table.keyboard.press("k")
    on(names[-1])

    table.keyboard.press("?")  # the help lists them
    expect(table.locator("#shortcuts")).to_contain_text("Tarjeta siguiente o anterior")
    screenshot(table, "keyboard-shortcuts-help")


def test_the_first_tab_offers_a_way_straight_to_the_cards(page: Page, live_server, demo: Campaign):
    # Two checks pending: many stops between the top of the page and the first card, but three keys reach it.
    aldara, borin = Character.objects.get(name="Aldara"), Character.objects.get(name="Borin")
    actions.apply_damage(demo, [aldara], Attack(amount=aldara.pg - 4), by=demo.gm)
    actions.call_check(demo, [aldara], actions.Call(CheckKind.EXERTION), by=demo.gm)
    actions.call_check(demo, [borin], actions.Call(CheckKind.FALL, height_m=3), by=demo.gm)
    sign_in(page.context, live_server.url, "narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    skip = page.get_by_role("link", name="Ir a los personajes")
    expect(skip).not_to_be_in_viewport()  # out of sight until the keyboard reaches it
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    screenshot(page, "keyboard-skip-link")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(card(page, "Aldara").locator("h3 a")).to_be_focused()
    assert page.errors == []
