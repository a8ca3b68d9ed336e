"""Issue 48 (items 9 and 13): keys typed while a form opens reach it, in order. A GM who types "v", "c", "a", Enter,
"3", Enter at 30 ms a key — faster than the group form comes (held here 150 ms on its way, as a slow network would) —
gets a 3 m fall for the whole party, not a drowning; "d", "c", "a" on a card opens its "Daño" on the kind, as "v"
does; and after a form refused because the table changed since it was drawn, one Enter sends it again. No live
updates are needed: the test live server (WSGI) is enough."""

import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, Route, expect

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions
from tests.helpers import card, screenshot, settled, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STALE = "La mesa ha cambiado desde que abriste este formulario: revisa las opciones y vuelve a enviarlo."


def slow_forms(page: Page) -> None:
    """Every GET of the damage form (the form, a kind's fields) held 150 ms on its way: slower than the keys."""

    def held(route: Route) -> None:
        if route.request.method == "GET":
            time.sleep(0.15)
        route.fallback()

    page.route("**/act/damage/**", held)


@pytest.fixture
def table(routed: Page, live_server, demo: Campaign) -> Page:
    sign_in(routed.context, live_server.url, "narrador")
    routed.goto(f"{live_server.url}/campaigns/{demo.pk}/")
    routed.evaluate("window.stillTheSamePage = true")
    yield routed
    assert routed.evaluate("window.stillTheSamePage") is True
    assert routed.errors == []


def latest_damage() -> dict:
    return Event.objects.filter(action="damage").latest("id").details


def test_keys_typed_while_the_group_form_opens_reach_it_in_order(table: Page, demo: Campaign):
    slow_forms(table)
    living = Character.objects.filter(campaign=demo, died_at=None).count()
    events = Event.objects.count()
    table.locator("#characters-title").focus()
    table.keyboard.type("vca\n3\n", delay=30)  # the group form, Caída, its height: 3, send it
    # Sent and answered: the keyboard is back where the form opened from (the form may not even be open yet when the
    # typing ends, on a busy machine, so that it has no form on the table says nothing by itself).
    expect(table.get_by_role("link", name="Daño a varios")).to_be_focused()
    expect(table.locator("#form-party")).to_have_count(0)
    assert Event.objects.count() == events + 1
    fall = latest_damage()
    assert (fall["kind"], fall["height_m"]) == ("fall", 3), fall  # not "Asfixia por inmersión"
    assert len(fall["rolls"]) == living  # every living character rolled their fall
    expect(table.locator("#log-entries")).not_to_contain_text("Asfixia")


def test_a_cards_damage_from_the_keyboard_opens_on_the_kind(table: Page, demo: Campaign):
    borin = Character.objects.get(name="Borin")
    slow_forms(table)
    card(table, "Borin").locator("h3 a").focus()
    table.keyboard.type("dca", delay=30)  # as "v c a": the kind first, Caída
    form = card(table, "Borin").locator("form.action-form")
    kind = form.get_by_label("Tipo de daño")
    expect(kind).to_be_focused()
    expect(kind).to_have_value("fall")
    expect(form.get_by_label("Altura (m)")).to_be_visible()
    expect(form.get_by_label("Daño (PG o tirada)")).to_have_count(0)  # "ca" was never typed into the amount
    screenshot(table, "type-ahead-card-fall")
    table.keyboard.type("\n3\n", delay=30)
    expect(form).to_have_count(0)
    fall = latest_damage()
    assert (fall["kind"], fall["height_m"]) == ("fall", 3), fall
    assert [roll["character"] for roll in fall["rolls"]] == [borin.pk]
    expect(card(table, "Borin")).to_be_focused()


def test_one_enter_sends_again_a_form_refused_because_the_table_changed(table: Page, demo: Campaign):
    narrador = get_user_model().objects.get(username="narrador")
    before = {c.name: c.pg for c in Character.objects.all()}
    table.get_by_role("link", name="Daño a varios").click()
    party = table.locator("#form-party")
    expect(party.get_by_label("Tipo de daño")).to_be_focused()
    settled(table)
    amount = party.get_by_label("Daño (PG o tirada)")
    amount.focus()
    table.keyboard.type("2")
    actions.add_character(demo, actions.Sheet("Eira", 10), by=narrador)  # the choices change under the open form
    table.keyboard.press("Enter")
    expect(party.get_by_text(STALE)).to_be_visible()
    settled(table)
    assert {c.name: c.pg for c in Character.objects.all() if c.name != "Eira"} == before
    expect(party.get_by_label("Tipo de daño")).not_to_be_focused()
    expect(amount).to_be_focused()  # where the GM was: one Enter sends it again
    expect(amount).to_have_value("2")
    screenshot(table, "type-ahead-stale-refused")
    table.keyboard.press("Enter")
    expect(party).to_have_count(0)
    after = {c.name: c.pg for c in Character.objects.all() if c.name != "Eira"}
    assert after == {name: pg - 2 for name, pg in before.items()}


def test_a_stale_form_sent_by_its_button_keeps_the_focus_on_it(table: Page, demo: Campaign):
    narrador = get_user_model().objects.get(username="narrador")
    borin = Character.objects.get(name="Borin")
    table.get_by_role("link", name="Daño a varios").click()
    party = table.locator("#form-party")
    settled(table)
    party.get_by_label("Daño (PG o tirada)").fill("1")
    actions.add_character(demo, actions.Sheet("Eira", 10), by=narrador)
    party.get_by_role("button", name="Aplicar daño").focus()
    table.keyboard.press("Enter")
    expect(party.get_by_text(STALE)).to_be_visible()
    settled(table)
    expect(party.get_by_role("button", name="Aplicar daño")).to_be_focused()
    table.keyboard.press("Enter")
    expect(party).to_have_count(0)
    assert Character.objects.get(pk=borin.pk).pg == borin.pg - 1
