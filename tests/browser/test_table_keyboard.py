"""The table under the GM's hands (docs/architecture.md principle 8, issue 10): Enter does what was typed, focus follows
the action, the quick-damage box, the group selectors and the shortcut keys. Strokes are counted where the issue counts
them. No live updates are needed here: the test live server (WSGI) is enough."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions, engine
from rules.damage import Attack
from tests.helpers import card, opened, page_width, plague, screenshot, settled, sign_in, snapshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOUR = 3600


@pytest.fixture
def table(page: Page, live_server, demo: Campaign) -> Page:
    """The demo's table, open in the GM's browser (Día 1, 02:00)."""
    sign_in(page.context, live_server.url, "narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    page.evaluate("window.stillTheSamePage = true")  # gone if anything reloads the page
    yield page
    assert page.evaluate("window.stillTheSamePage") is True  # every action answered in place
    assert page.errors == []


def clock() -> int:
    return Campaign.objects.get().clock


def pgs() -> dict[str, int]:
    return dict(Character.objects.values_list("name", "pg"))


def heading_link(page: Page, name: str):
    return card(page, name).locator("h3 a")


def focused_is_not_lost(page: Page) -> None:
    """Focus sits on something of the table, not on the page itself or the logo at its top."""
    assert page.evaluate("document.activeElement !== document.body && !document.activeElement.matches('.brand')")


# --- the clock: Enter advances exactly what was typed --------------------------------------------------------------


def test_enter_in_the_duration_field_advances_exactly_the_typed_duration(table: Page):
    start = clock()
    expect(table.locator(".clock")).to_have_text("Día 1, 02:00")
    duration = table.locator("#advance-duration")
    duration.fill("8h")
    duration.press("Enter")
    expect(table.locator(".clock")).to_have_text("Día 1, 10:00")
    assert clock() == start + 8 * HOUR
    expect(duration).to_be_focused()  # ready for the next one

    # A duration it cannot read: a message, nothing moves; the presets stay buttons; the corrected value applies.
    duration.fill("mañana")
    duration.press("Enter")
    form = table.locator("#form-advance")
    expect(form.get_by_role("alert")).to_be_visible()
    assert clock() == start + 8 * HOUR
    for preset in ("+1 turno", "+1 minuto", "+1 hora", "+8 horas de descanso", "+1 día de descanso"):
        expect(form.get_by_role("button", name=preset, exact=True)).to_be_visible()
    expect(form.locator("select")).to_have_count(0)  # no "Preset" select appeared
    expect(form.get_by_role("button", name="Cancelar")).to_have_count(0)
    expect(form.get_by_role("link", name="Cancelar")).to_have_count(0)
    table.locator("#advance-duration").fill("2h")
    form.get_by_role("button", name="Avanzar", exact=True).click()
    expect(table.locator(".clock")).to_have_text("Día 1, 12:00")
    assert clock() == start + 10 * HOUR
    expect(table.get_by_role("button", name="+1 turno")).to_be_visible()  # the clock controls are all still there


# --- focus -----------------------------------------------------------------------------------------------------------


def test_focus_opens_on_the_first_field_and_returns_to_what_was_acted_on(table: Page):
    aldara = Character.objects.get(name="Aldara")
    # Opening a card's form: its first field to type in, the amount.
    opened(card(table, "Aldara")).get_by_role("link", name="Daño", exact=True).click()
    amount = card(table, "Aldara").get_by_label("Daño (PG o tirada)")
    expect(amount).to_be_focused()
    # Escape closes it and gives focus back to the link that opened it.
    table.keyboard.press("Escape")
    expect(card(table, "Aldara").locator("form.action-form")).to_have_count(0)
    expect(card(table, "Aldara").get_by_role("link", name="Daño", exact=True)).to_be_focused()

    # After an action: the card's heading link; the next Tab stays on that card, not on the logo.
    table.keyboard.press("Enter")
    expect(amount).to_be_focused()
    settled(table)  # htmx wires the new form up when it settles (20 ms): a robot types faster than that
    table.keyboard.type("2")
    table.keyboard.press("Enter")
    expect(card(table, "Aldara").locator(".pg-value")).to_have_text(str(aldara.pg - 2))
    expect(card(table, "Aldara")).to_be_focused()  # the card itself: a change redraws what is inside it
    table.keyboard.press("Tab")
    focused_is_not_lost(table)
    assert table.evaluate("id => document.activeElement.closest('#' + id) !== null", f"character-{aldara.pk}")

    # The group form: the kind first; choosing a kind shows its fields and keeps the focus on the kind (arrows go on
    # through the kinds); Enter goes to the kind's first field.
    table.get_by_role("link", name="Daño a varios").click()
    party = table.locator("#form-party")
    expect(party.get_by_label("Tipo de daño")).to_be_focused()
    settled(table)
    party.get_by_label("Tipo de daño").select_option(label="Gases nocivos")
    expect(party.get_by_label("Turnos")).to_be_visible()
    expect(party.get_by_label("Tipo de daño")).to_be_focused()
    table.keyboard.press("Enter")
    expect(party.get_by_label("Turnos")).to_be_focused()
    table.keyboard.press("Escape")
    expect(party).to_have_count(0)
    expect(table.get_by_role("link", name="Daño a varios")).to_be_focused()

    # After a group action: "Daño a varios", for the next one.
    table.keyboard.press("Enter")
    expect(party.get_by_label("Tipo de daño")).to_be_focused()
    settled(table)
    party.get_by_label("Daño (PG o tirada)").fill("1")
    party.get_by_label("Daño (PG o tirada)").press("Enter")
    expect(party).to_have_count(0)
    expect(table.get_by_role("link", name="Daño a varios")).to_be_focused()
    table.keyboard.press("Tab")
    focused_is_not_lost(table)

    # After an advance: the duration field. After an undo: the undo button (there is more to undo).
    table.get_by_role("button", name="+1 hora").click()
    expect(table.locator("#advance-duration")).to_be_focused()
    settled(table)
    table.get_by_role("button", name="Deshacer: ", exact=False).click()
    expect(table.locator(".clock")).to_have_text("Día 1, 02:00")
    expect(table.locator("#undo-form button")).to_be_focused()


# --- quick damage: 7 PG in two strokes --------------------------------------------------------------------------------


def test_quick_damage_is_a_digit_and_enter_on_a_focused_card(table: Page):
    borin = Character.objects.get(name="Borin")
    heading_link(table, "Borin").focus()
    strokes = ["7", "Enter"]
    for key in strokes:
        table.keyboard.press(key)
    expect(card(table, "Borin").locator(".pg-value")).to_have_text(str(borin.pg - 7))
    assert len(strokes) == 2
    assert Character.objects.get(name="Borin").pg == borin.pg - 7
    assert [w.kind for w in Character.objects.get(name="Borin").wounds.order_by("-id")[:1]] == ["attack"]
    expect(table.locator("aside.log")).to_contain_text("Borin pierde 7 PG")
    expect(card(table, "Borin")).to_be_focused()  # the card itself: a change redraws what is inside it
    left_in_the_box = card(table, "Borin").get_by_label("Daño rápido").input_value()  # checked at the end

    # Any focused element of a card will do, the card's links too.
    opened(card(table, "Borin")).get_by_role("link", name="Tratar heridas").focus()
    table.keyboard.press("1")
    table.keyboard.press("2")  # typed into the box now: a two-digit amount
    table.keyboard.press("Enter")
    expect(card(table, "Borin").locator(".pg-value")).to_have_text(str(borin.pg - 19))

    # Bad input: the message in the card's slot, nothing changes, no server error.
    before = snapshot()
    box = card(table, "Borin").get_by_label("Daño rápido")
    box.fill("x")
    box.press("Enter")
    expect(table.locator(f"#slot-{borin.pk} [role=alert]")).to_be_visible()
    assert snapshot() == before
    assert table.errors == []  # a 422, no 500

    # Once applied, the box is empty again, as a fresh load shows it: a "7" left there reads as damage still to come.
    assert left_in_the_box == ""


# --- group actions: who is ticked, and the dice of the ticked --------------------------------------------------------


def ticked(form) -> dict[str, bool]:
    return {
        box.evaluate("b => b.labels[0].textContent.trim()"): box.is_checked()
        for box in form.locator("input[name=characters]").all()
    }


def test_group_forms_tick_the_living_and_show_dice_only_for_the_ticked(page: Page, live_server, demo: Campaign):
    narrador = get_user_model().objects.get(username="narrador")
    sibila = Character.objects.get(name="Sibila")
    actions.apply_damage(demo, [sibila], Attack(amount=sibila.pg), by=narrador)  # Sibila dies
    sign_in(page.context, live_server.url, "narrador")
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/")

    page.get_by_role("link", name="Daño a varios").click()
    party = page.locator("#form-party")
    expect(party.get_by_label("Tipo de daño")).to_be_focused()
    settled(page)
    living = {"Aldara": True, "Borin": True, "Hermano Tomás": True, "Sibila (muerto)": False}
    assert ticked(party) == living
    expect(party.locator(f"input[value='{sibila.pk}']")).to_have_attribute("data-dead", "")
    party.get_by_role("button", name="ninguno").click()
    assert set(ticked(party).values()) == {False}
    party.get_by_role("button", name="todos").click()
    assert set(ticked(party).values()) == {True}
    party.get_by_role("button", name="vivos").click()
    assert ticked(party) == living

    # A fall: a 1d20 per ticked character, none for the dead one until she is ticked.
    party.get_by_label("Tipo de daño").select_option(label="Caída")
    expect(party.get_by_label("Altura (m)")).to_be_visible()
    settled(page)
    assert ticked(party) == living  # the reload kept the ticks
    die = party.locator(f"[data-die-for='{sibila.pk}']")
    expect(die).to_be_hidden()
    for name in ("Aldara", "Borin", "Hermano Tomás"):
        expect(party.get_by_label(f"1d20 de {name}", exact=False)).to_be_visible()
    party.locator(f"input[value='{sibila.pk}']").check()
    expect(die).to_be_visible()
    party.get_by_label("Aldara", exact=True).uncheck()
    expect(party.get_by_label("1d20 de Aldara", exact=False)).to_be_hidden()
    party.get_by_role("button", name="ninguno").click()
    expect(party.locator("[data-die-for]:visible")).to_have_count(0)
    party.get_by_role("button", name="vivos").click()
    expect(party.locator("[data-die-for]:visible")).to_have_count(3)
    table_before = pgs()
    party.get_by_label("Altura (m)").fill("2")
    for name in ("Aldara", "Borin", "Hermano Tomás"):
        party.get_by_label(f"1d20 de {name}", exact=False).fill("20")  # everyone lands well: no damage
    party.get_by_role("button", name="Aplicar daño").click()
    expect(party).to_have_count(0)
    assert pgs() == table_before

    # The exposure: the same choices and a 1d12 per ticked character.
    page.get_by_role("link", name="Exponer a una enfermedad").click()
    party = page.locator("#form-party")
    expect(party.get_by_label("Enfermedad")).to_be_visible()
    settled(page)
    assert ticked(party) == living
    expect(party.locator(f"[data-die-for='{sibila.pk}']")).to_be_hidden()
    expect(party.locator("[data-die-for]:visible")).to_have_count(3)
    party.locator(f"input[value='{sibila.pk}']").check()
    expect(party.locator(f"[data-die-for='{sibila.pk}']")).to_be_visible()
    party.get_by_role("button", name="ninguno").click()
    expect(party.locator("[data-die-for]:visible")).to_have_count(0)
    screenshot(page, "group-expose-form")
    assert page.errors == []


# --- shortcut keys -------------------------------------------------------------------------------------------------


def test_shortcut_keys(table: Page):
    # ? shows the help, and says so to a screen reader; ? again hides it.
    toggle = table.get_by_role("button", name="Atajos de teclado (?)")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    table.keyboard.press("?")
    expect(table.locator("#shortcuts")).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    table.keyboard.press("?")
    expect(table.locator("#shortcuts")).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")

    # d on a focused card opens its "Daño", on the kind (as "v" does: "d", "c", "a" is a fall; issue 48).
    heading_link(table, "Borin").focus()
    table.keyboard.press("d")
    expect(card(table, "Borin").get_by_label("Tipo de daño")).to_be_focused()
    table.keyboard.press("Escape")
    expect(card(table, "Borin").locator("form.action-form")).to_have_count(0)

    # v: "Daño a varios"; e: "Exponer a una enfermedad".
    table.keyboard.press("v")
    expect(table.locator("#form-party").get_by_label("Tipo de daño")).to_be_focused()
    table.keyboard.press("Escape")
    table.keyboard.press("e")
    expect(table.locator("#form-party").get_by_label("Enfermedad")).to_be_visible()
    focused_is_not_lost(table)
    table.keyboard.press("Escape")
    expect(table.locator("#form-party")).to_have_count(0)

    # t: the duration field. Letters typed there are text, not shortcuts.
    table.keyboard.press("t")
    expect(table.locator("#advance-duration")).to_be_focused()
    table.keyboard.type("1t")
    expect(table.locator("#advance-duration")).to_have_value("1t")
    table.keyboard.press("Enter")
    expect(table.get_by_role("button", name="Deshacer: Pasa el tiempo", exact=False)).to_be_visible()
    assert clock() == 2 * HOUR + 6  # one turn
    settled(table)  # htmx wires the new table up when it settles (20 ms): a robot types faster than that

    # u: undo, from anywhere but a field.
    heading_link(table, "Borin").focus()
    table.keyboard.press("u")
    expect(table.locator("aside.log .entry.undone").first).to_contain_text("Pasa el tiempo")
    assert clock() == 2 * HOUR


@pytest.mark.parametrize(
    ("language", "gas_key", "party_link", "more_characters"),
    [("es", "g", "Daño a varios", 0), ("en", "t", "Damage several", 3)],  # g: Gases nocivos; t: Toxic gas
    ids=["es-4-characters", "en-7-characters"],
)
def test_the_gas_trap_on_the_whole_party_takes_four_strokes(
    table: Page, demo: Campaign, language: str, gas_key: str, party_link: str, more_characters: int
):
    narrador = get_user_model().objects.get(username="narrador")
    for number in range(more_characters):  # the same strokes for any party size
        actions.add_character(demo, actions.Sheet(f"Extra {number}", 10), by=narrador)
    if language != "es":
        table.get_by_label("Idioma").select_option(language)
        table.get_by_role("button", name="Cambiar").click()
        expect(table.locator("html")).to_have_attribute("lang", language)
    else:
        table.reload()
    table.evaluate("window.stillTheSamePage = true")
    before = pgs()
    assert len(before) == 4 + more_characters

    strokes = ["v", gas_key, "3", "Enter"]  # the group form, the gas, 3 turns, apply: the living are ticked already
    for key in strokes:
        table.keyboard.press(key)
        settled(table)  # a robot types faster than htmx settles (20 ms); a person does not
    expect(table.locator("#form-party")).to_have_count(0)
    assert len(strokes) <= 5
    gas = engine.gas_damage(3)
    after = pgs()
    assert after == {name: pg - gas for name, pg in before.items()}, (before, after)
    expect(table.get_by_role("link", name=party_link)).to_be_focused()


# --- small frictions -------------------------------------------------------------------------------------------------


def test_a_long_name_wraps_and_single_choices_are_made(table: Page, demo: Campaign):
    narrador = get_user_model().objects.get(username="narrador")
    actions.add_character(demo, actions.Sheet("Eira" + "x" * 90, 9), by=narrador)
    aldara = Character.objects.get(name="Aldara")
    actions.expose(demo, [aldara], plague(), by=narrador, dice_by_character={aldara.pk: 1})  # 1 + CON 8 < 12: ill
    table.reload()
    table.evaluate("window.stillTheSamePage = true")
    assert page_width(table) <= 1280  # the long name wraps

    # Aldara's only illness is already chosen in "Medicamentos"; other selects begin with "— elige —".
    opened(card(table, "Aldara")).get_by_role("link", name="Medicamentos").click()
    settled(table)
    illness = card(table, "Aldara").get_by_label("Enfermedad")
    expect(illness.locator("option")).to_have_count(1)
    expect(illness).not_to_have_value("")
    table.keyboard.press("Escape")
    table.get_by_role("link", name="Exponer a una enfermedad").click()
    expect(table.locator("#form-party").get_by_label("Enfermedad").locator("option").first).to_have_text("— elige —")


def test_enter_in_a_forms_choice_sends_it(table: Page):
    # The healer is a choice: arrows pick Hermano Tomás, Enter treats Aldara's wounds, as Enter in a field would.
    opened(card(table, "Aldara")).get_by_role("link", name="Tratar heridas").click()
    healer = card(table, "Aldara").get_by_label("Sanador (Curar Heridas)")
    expect(healer).to_be_focused()
    settled(table)
    healer.select_option(label="Hermano Tomás")
    healer.press("Enter")
    expect(card(table, "Aldara").locator("form.action-form")).to_have_count(0)
    expect(table.locator("#log-entries")).to_contain_text("Hermano Tomás trata las heridas de Aldara")
    expect(card(table, "Aldara")).to_be_focused()  # the card itself: a change redraws what is inside it
    # The kind of damage is not sent by Enter: it goes to that kind's fields, to fill in.
    table.get_by_role("link", name="Daño a varios").click()
    party = table.locator("#form-party")
    settled(table)
    party.get_by_label("Tipo de daño").select_option(label="Caída")
    expect(party.get_by_label("Altura (m)")).to_be_visible()
    party.get_by_label("Tipo de daño").press("Enter")
    expect(party.get_by_label("Altura (m)")).to_be_focused()
    expect(party.locator(".errorlist")).to_have_count(0)
