"""Accessibility and both languages (issue 10): axe-core finds no serious or critical violation on the GM's table
(with forms open), a character's sheet and the character form, in Spanish and in English; the invited player's
login and sign-up pages say who invited them to what."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Invitation
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import CheckKind
from tests.helpers import card, opened, page_width, screenshot, settled, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Axe()


def serious_violations(page: Page) -> list[str]:
    # axe is injected with page.evaluate, which runs through the DevTools protocol: the page's strict CSP
    # (script-src 'self') does not block it, so the check runs on the page exactly as served.
    violations = AXE.run(page).response["violations"]
    return [
        f"{v['impact']} {v['id']}: {v['help']} — {[node['target'] for node in v['nodes']][:5]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def switch_language(page: Page, code: str, button: str) -> None:
    page.get_by_label("Idioma").select_option(code)
    page.get_by_role("button", name=button).click()


@pytest.mark.parametrize(
    "language",
    [
        {"code": "es", "switch": None, "damage": "Daño", "party": "Daño a varios", "kind": "Tipo de daño"},
        {"code": "en", "switch": "Cambiar", "damage": "Damage", "party": "Damage several", "kind": "Kind of damage"},
    ],
    ids=["es", "en"],
)
def test_axe_finds_nothing_serious_on_the_table_the_sheet_and_the_character_form(
    page: Page, live_server, demo: Campaign, language: dict
):
    sign_in(page.context, live_server.url, "narrador")
    table = f"{live_server.url}/campaigns/{demo.pk}/"
    page.goto(table)
    if language["switch"]:
        switch_language(page, language["code"], language["switch"])
    expect(page.locator("html")).to_have_attribute("lang", language["code"])
    found = {}

    # The table with a card's form and the group form open, the help shown.
    opened(card(page, "Borin")).get_by_role("link", name=language["damage"], exact=True).click()
    settled(page)
    page.get_by_role("link", name=language["party"]).click()
    settled(page)
    page.locator("#form-party").get_by_label(language["kind"]).select_option("fall")
    settled(page)
    page.keyboard.press("Escape")  # out of any field, so that ? is a shortcut
    page.locator("h1").click()
    page.keyboard.press("?")
    expect(page.locator("#shortcuts")).to_be_visible()
    found["table"] = serious_violations(page)
    screenshot(page, f"table-forms-open-{language['code']}")

    borin = Character.objects.get(name="Borin")
    page.goto(f"{table}characters/{borin.pk}/")
    found["sheet"] = serious_violations(page)
    page.goto(f"{table}characters/{borin.pk}/edit/")
    found["character form"] = serious_violations(page)
    page.goto(f"{table}characters/new/")
    page.locator("main form button[type=submit]").click()  # empty: the form with its error messages
    expect(page.locator(".errorlist").first).to_be_visible()
    found["character form with errors"] = serious_violations(page)

    assert found == {name: [] for name in found}, found
    assert [error for error in page.errors if "status of 400" not in error] == []  # the refused form answers 400


def test_the_player_sheet_on_a_phone_in_english_passes_axe(phone: Page, live_server, demo: Campaign):
    sign_in(phone.context, live_server.url, "bruno")
    borin = Character.objects.get(name="Borin")
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/characters/{borin.pk}/")
    switch_language(phone, "en", "Cambiar")
    expect(phone.get_by_role("heading", name="Wounds")).to_be_visible()
    assert page_width(phone) <= 375
    assert serious_violations(phone) == []
    assert phone.errors == []


@pytest.mark.parametrize(
    "language",
    [
        {"switch": None, "says": "Te han invitado a «La Cripta de Hielo» como Sibila.", "signup": "Regístrate"},
        {"switch": "Cambiar", "says": "You have been invited to “La Cripta de Hielo” as Sibila.", "signup": "Sign up"},
    ],
    ids=["es", "en"],
)
def test_the_invited_player_is_told_what_they_are_invited_to(page: Page, live_server, demo: Campaign, language):
    token = Invitation.objects.get(character__name="Sibila").token
    page.goto(f"{live_server.url}/invite/{token}/")  # not logged in: the login page, with the invitation as next
    if language["switch"]:
        switch_language(page, "en", language["switch"])
    expect(page.get_by_text(language["says"])).to_be_visible()
    page.get_by_role("link", name=language["signup"]).click()
    expect(page.get_by_text(language["says"])).to_be_visible()
    assert serious_violations(page) == []
    assert page.errors == []


def test_the_axe_check_would_catch_a_serious_violation(page: Page):
    # The tests above assert an empty list: make sure the check finds what it should.
    page.set_content('<html lang="es"><body><main><img src="data:,"><button></button></main></body></html>')
    found = serious_violations(page)
    assert any("image-alt" in line for line in found) and any("button-name" in line for line in found), found


def test_what_issue_13_added_passes_axe_on_a_phone_and_the_table(page: Page, phone: Page, live_server, demo: Campaign):
    # Aldara at 4 PG (penalties and the exertion warning, each with its "¿Por qué?"), an exertion check called for her,
    # companions shown by word: Ana's page and sheet on her phone; the GM's table with the calls and a preview open.
    aldara = Character.objects.get(name="Aldara")
    actions.apply_damage(demo, [aldara], Attack(amount=aldara.pg - 4), by=demo.gm)
    actions.call_check(demo, [aldara], actions.Call(CheckKind.EXERTION), by=demo.gm)
    found = {}
    sign_in(phone.context, live_server.url, "ana")
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    expect(phone.get_by_role("heading", name="Compañeros")).to_be_visible()
    found["player page"] = serious_violations(phone)
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/characters/{aldara.pk}/")
    expect(phone.locator(".warning")).to_be_visible()
    found["player sheet"] = serious_violations(phone)
    assert page_width(phone) <= 375
    screenshot(phone, "a11y-sheet-exertion")

    sign_in(page.context, live_server.url, "narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    page.get_by_label("Ver antes qué pasará").check()
    page.get_by_label("Otra duración").fill("3d")
    page.get_by_label("Otra duración").press("Enter")
    expect(page.get_by_role("heading", name="¿Qué pasará?")).to_be_visible()
    found["table with calls and a preview"] = serious_violations(page)

    assert found == {name: [] for name in found}, found
    assert phone.errors == [] and page.errors == []
