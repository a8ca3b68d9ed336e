"""A GM runs the demo campaign from the table page alone; a player follows on a phone."""

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules.models import Illness
from tests.helpers import card, log_in, opened, page_width, screenshot, settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pg_of(name: str) -> int:
    return Character.objects.get(name=name).pg


def open_table(page: Page, base_url: str, campaign: Campaign) -> None:
    log_in(page, base_url, "narrador", "cripta-narrador")
    page.goto(f"{base_url}/campaigns/{campaign.pk}/")
    page.evaluate("window.stillTheSamePage = true")  # gone if anything reloads the page


def damage(page: Page, name: str, kind_label: str, fields: dict[str, str]) -> None:
    opened(card(page, name)).get_by_role("link", name="Daño", exact=True).click()
    settled(page)
    form = card(page, name).locator("form.action-form")
    if kind_label != "Ataque físico directo":
        form.get_by_label("Tipo de daño").select_option(label=kind_label)
        settled(page)
        # The form reloads with that kind's fields (htmx); wait for them before typing.
        expect(form.get_by_label(next(iter(fields)), exact=True)).to_be_visible()
    for label, value in fields.items():
        form.get_by_label(label, exact=True).fill(value)
    form.get_by_role("button", name="Aplicar daño").click()
    expect(card(page, name).locator("form.action-form")).to_have_count(0)


def test_gm_runs_a_fight_a_fall_a_gas_trap_a_rest_and_a_plague(page: Page, live_server, demo):
    open_table(page, live_server.url, demo)
    start = pg_of("Aldara")

    damage(page, "Aldara", "Ataque físico directo", {"Daño (PG o tirada)": "7"})
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(start - 7))
    damage(page, "Aldara", "Colisión", {"Velocidad (km/h)": "30"})  # 3 + 62 kg → 6: 9 PG
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(start - 16))
    damage(page, "Aldara", "Caída", {"Altura (m)": "3", "1d20 de Aldara (+ Saltar 6)": "1"})  # 3 + 6 = 9 PG
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(start - 25))
    damage(page, "Aldara", "Asfixia por inmersión", {"Turnos": "2"})
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(start - 29))
    assert pg_of("Aldara") == start - 29

    # A gas trap hits the party: one form, several characters.
    borin, sibila = pg_of("Borin"), pg_of("Sibila")
    page.get_by_role("link", name="Daño a varios").click()
    settled(page)
    party = page.locator("#form-party")
    party.get_by_label("Tipo de daño").select_option(label="Gases nocivos")
    settled(page)
    expect(party.get_by_label("Turnos")).to_be_visible()
    for name in ("Borin", "Sibila"):
        party.get_by_label(name, exact=True).check()
    party.get_by_label("Turnos").fill("4")
    party.get_by_role("button", name="Aplicar daño").click()
    expect(card(page, "Borin").locator(".pg-value")).to_have_text(str(borin - 4))
    expect(card(page, "Sibila").locator(".pg-value")).to_have_text(str(sibila - 4))

    # Bad input: a message beside the field, nothing changes.
    opened(card(page, "Borin")).get_by_role("link", name="Daño", exact=True).click()
    settled(page)
    card(page, "Borin").get_by_label("Daño (PG o tirada)").fill("1000000d1000000")
    card(page, "Borin").get_by_role("button", name="Aplicar daño").click()
    expect(card(page, "Borin").get_by_text("como mucho 1000 caras")).to_be_visible()
    assert pg_of("Borin") == borin - 4
    opened(card(page, "Borin")).get_by_role("link", name="Cancelar").click()
    expect(card(page, "Borin").locator("form.action-form")).to_have_count(0)

    # A day of rest: Aldara recovers 1 PG of the attack, the drowning and gas are long gone.
    before_rest = pg_of("Aldara")
    page.get_by_role("button", name="+1 día de descanso").click()
    expect(page.locator(".clock")).to_contain_text("Día 2")
    assert pg_of("Aldara") > before_rest
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(pg_of("Aldara")))

    # The plague: typed dice at the table, Aldara fails (1 + CON 8 < 12), Borin resists (12 + 12).
    page.get_by_role("link", name="Exponer a una enfermedad").click()
    settled(page)
    party = page.locator("#form-party")
    party.get_by_label("Enfermedad").select_option(label="Peste")
    party.get_by_label("Aldara", exact=True).check()
    party.get_by_label("Borin", exact=True).check()
    party.get_by_label("1d12 de Aldara (+ CON 8)").fill("1")
    party.get_by_label("1d12 de Borin (+ CON 12)").fill("12")
    party.get_by_role("button", name="Exponer a una enfermedad").click()
    expect(card(page, "Aldara").get_by_text("Peste")).to_be_visible()
    expect(page.locator(".log")).to_contain_text("Aldara enferma")
    assert Illness.objects.filter(character__name="Aldara").count() == 1

    # Undo the exposure: the illness is gone, the entry is struck through.
    # The button names the event it undoes.
    page.get_by_role("button", name="Deshacer: Exposición a Peste").click()
    expect(card(page, "Aldara").get_by_text("Peste")).to_have_count(0)
    expect(page.locator(".entry.undone").first).to_contain_text("Exposición a Peste")
    assert Illness.objects.filter(character__name="Aldara").count() == 0

    assert page.evaluate("window.stillTheSamePage") is True  # every action answered in place
    screenshot(page, "table-gm")
    assert page.errors == []


def test_table_in_english(page: Page, live_server, demo):
    open_table(page, live_server.url, demo)
    page.get_by_label("Idioma").select_option("en")
    page.get_by_role("button", name="Cambiar").click()
    expect(page.get_by_role("heading", name="Characters")).to_be_visible()
    expect(page.locator(".clock")).to_contain_text("Day 1")
    opened(card(page, "Borin")).get_by_role("link", name="Damage", exact=True).click()
    settled(page)
    card(page, "Borin").get_by_label("Damage (HP or roll)").fill("3")
    card(page, "Borin").get_by_role("button", name="Apply damage").click()
    expect(page.locator(".log")).to_contain_text("Borin loses 3 HP")
    screenshot(page, "table-gm-english")
    assert page.errors == []


def test_player_reads_the_sheet_on_a_phone(phone: Page, live_server, demo):
    log_in(phone, live_server.url, "bruno", "cripta-bruno")
    borin = Character.objects.get(name="Borin")
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/characters/{borin.pk}/")
    expect(phone.get_by_role("heading", name="Borin")).to_be_visible()
    expect(phone.locator(".pg-value")).to_have_text(str(borin.pg))
    expect(phone.locator(".wounds").get_by_text("Ataque físico directo", exact=True)).to_be_visible()
    expect(phone.get_by_text("Sana del todo en").first).to_be_visible()
    expect(phone.get_by_text("Borin pierde 14 PG")).to_be_visible()
    assert phone.get_by_text("Aldara").count() == 0  # another character's numbers never show
    assert phone.locator("a[href*='/act/']").count() == 0
    assert page_width(phone) <= 375
    screenshot(phone, "sheet-player-phone")
    assert phone.errors == []


@pytest.mark.parametrize(
    "status, words",
    [
        (503, "La base de datos no responde ahora mismo"),
        (429, "Demasiadas peticiones"),
        (500, "No se ha podido hacer"),
        (None, "Sin conexión con el servidor"),
    ],
)
def test_a_failed_click_says_so_and_the_next_one_clears_it(routed: Page, live_server, demo, status, words):
    page = routed  # its requests seen by the route that fails them
    open_table(page, live_server.url, demo)
    notice = page.locator("#request-failed")
    expect(notice).to_be_hidden()

    def fail(route):
        if status is None:
            route.abort("connectionrefused")
        else:
            route.fulfill(status=status, body="x", headers={"Retry-After": "5"})

    page.route("**/act/damage/**", fail)
    opened(card(page, "Aldara")).get_by_role("link", name="Daño", exact=True).click()
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(words)
    page.unroute("**/act/damage/**")
    opened(card(page, "Aldara")).get_by_role("link", name="Daño", exact=True).click()
    expect(card(page, "Aldara").locator("form.action-form")).to_be_visible()
    expect(notice).to_be_hidden()
    page.errors.clear()  # the failed request itself is logged by the browser: that is the point of this test


def test_older_log_entries_come_on_demand_and_take_the_keyboard(page: Page, live_server, demo):
    from play.log.pages import LOG_LENGTH
    from rules import actions
    from rules.damage import Attack

    aldara = Character.objects.get(name="Aldara")
    for _ in range(LOG_LENGTH):
        actions.apply_damage(demo, [aldara], Attack(amount=0), by=demo.gm)
    open_table(page, live_server.url, demo)
    entries = page.locator("aside.log ol.entries > li.entry")
    expect(entries).to_have_count(LOG_LENGTH)
    more = page.get_by_role("button", name="Sucesos anteriores")
    more.focus()
    page.keyboard.press("Enter")
    expect(entries).to_have_count(LOG_LENGTH + demo.events.count() - LOG_LENGTH)
    expect(more).to_have_count(0)
    # the keyboard stays in the log, on the first older entry (after htmx settles)
    expect(page.locator("aside.log ol.entries > li.entry:focus")).to_have_count(1)
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.errors == []


def test_an_action_leaves_the_other_open_forms_as_they_were(page: Page, live_server, demo):
    open_table(page, live_server.url, demo)
    opened(card(page, "Borin")).get_by_role("link", name="Daño", exact=True).click()
    settled(page)
    borin_form = card(page, "Borin").locator("form.action-form")
    borin_form.get_by_label("Daño (PG o tirada)").fill("3")
    page.locator("#advance-duration").fill("2h")
    aldara = pg_of("Aldara")
    quick = card(page, "Aldara").get_by_label("Daño rápido")
    quick.fill("2")
    quick.press("Enter")
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(aldara - 2))
    expect(quick).to_have_value("")  # the box used is cleared
    expect(borin_form).to_be_visible()  # the other form and what was typed in it stay
    expect(borin_form.get_by_label("Daño (PG o tirada)")).to_have_value("3")
    expect(page.locator("#advance-duration")).to_have_value("2h")
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.errors == []


def test_a_form_drawn_a_moment_ago_is_still_sent_by_htmx(page: Page, live_server, demo):
    """Typing fast right after a swap can submit a form htmx has not wired yet: it must not become a plain POST."""
    open_table(page, live_server.url, demo)
    aldara = pg_of("Aldara")
    # the card drawn again by plain DOM: exactly what htmx has not processed yet
    page.evaluate("() => { const li = document.querySelector('li.card'); li.outerHTML = li.outerHTML; }")
    quick = card(page, "Aldara").get_by_label("Daño rápido")
    quick.fill("3")
    quick.press("Enter")
    expect(card(page, "Aldara").locator(".pg-value")).to_have_text(str(aldara - 3))
    assert page.evaluate("window.stillTheSamePage") is True  # no plain submit, no reload, no 403
    assert page.errors == []
