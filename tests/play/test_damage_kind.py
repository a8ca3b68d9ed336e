"""The kind of damage and the fields shown for it (issue 20, point 3): the page says which kind's fields it showed
(fields_for), and a blow is applied only with the fields of the kind posted — never with a field the GM could not see.
The browser side (the keyboard, focus on the select, the redraw of the fields alone) is in tests/browser."""

import re

import pytest
from django.urls import reverse

from campaigns.models import Event
from tests.helpers import HTMX, World, client_for, snapshot


def damage_url(world: World) -> str:
    return reverse("damage", kwargs={"campaign_id": world.campaign_a.pk})


def party(world: World) -> list[int]:
    return [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]


def fields_box(html: str) -> str:
    """The box of the kind's fields, as the page draws it (the kind it is for, and what is in it)."""
    match = re.search(r'<div id="kind-fields-party".*?</div>(?=\s*<fieldset class="who)', html, re.S)
    assert match, html
    return match.group(0)


def test_a_kind_posted_with_another_kinds_fields_applies_nothing_and_draws_its_own(world: World):
    # The page showed the collision's fields (speed 3), the select says fall: the bug of issue 20.
    data = {"kind": "fall", "fields_for": "collision", "speed_kmh": "3", "weight_kg": "80", "characters": party(world)}
    before, events = snapshot(), Event.objects.count()
    response = client_for(world.gm_a).post(damage_url(world), {**data, "slot": "party"}, **HTMX)
    assert response.status_code == 422
    assert Event.objects.count() == events and snapshot() == before
    html = response.content.decode()
    assert "Los campos que había no eran los de «Caída»: no se ha aplicado nada." in html
    # Drawn again with the fall's fields, ready for Enter: what was typed for both kinds (the weight) kept, the
    # fall's own defaults in place, no complaint about fields not seen yet.
    box = fields_box(html)
    assert 'data-kind="fall"' in box and 'name="fields_for" value="fall"' in box
    assert 'name="height_m"' in box and 'name="speed_kmh"' not in html
    assert re.search(r'name="weight_kg" value="80"', box) and re.search(r'name="difficulty" value="12"', box)
    assert "obligatorio" not in html
    assert "Pedir la tirada a sus jugadores" in html  # the fall's call button too


def test_the_refusal_speaks_english(world: World):
    data = {"kind": "gas", "fields_for": "attack", "amount": "3", "characters": party(world), "slot": "party"}
    response = client_for(world.gm_a).post(damage_url(world), data, HTTP_ACCEPT_LANGUAGE="en", **HTMX)
    assert response.status_code == 422
    assert "The fields shown were not those of “Toxic gas”: nothing was applied." in response.content.decode()
    assert not Event.objects.exists()


def test_without_javascript_the_choice_of_kind_draws_its_fields_and_applies_nothing(world: World):
    # A plain browser does not redraw on change: the first send of a new kind brings its fields.
    data = {"kind": "drowning", "fields_for": "attack", "amount": "7", "characters": party(world)}
    response = client_for(world.gm_a).post(damage_url(world), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "no eran los de «Asfixia por inmersión»" in html and 'name="turns"' in html
    assert not Event.objects.exists()


@pytest.mark.parametrize(
    ("fields", "details"),
    [
        ({"kind": "fall", "height_m": "3", "difficulty": "12"}, {"height_m": 3, "difficulty": 12}),
        ({"kind": "collision", "speed_kmh": "30"}, {"speed_kmh": 30}),
        ({"kind": "attack", "amount": "4"}, {}),
    ],
)
def test_the_kind_whose_fields_were_shown_is_applied(world: World, fields: dict, details: dict):
    data = {**fields, "fields_for": fields["kind"], "characters": party(world), "slot": "party"}
    response = client_for(world.gm_a).post(damage_url(world), data, **HTMX)
    assert response.status_code == 200
    event = Event.objects.get(action="damage")
    assert event.details["kind"] == fields["kind"]
    assert details.items() <= event.details.items()


def test_changing_the_kind_draws_the_new_kinds_fields_and_keeps_the_weight(world: World):
    # What the select's hx-get sends: the whole form as it is, with the kind just chosen.
    query = {"slot": "party", "kind": "collision", "fields_for": "fall", "height_m": "3", "weight_kg": "75"}
    html = client_for(world.gm_a).get(damage_url(world), query, **HTMX).content.decode()
    box = fields_box(html)
    assert 'data-kind="collision"' in box and 'name="fields_for" value="collision"' in box
    assert 'name="speed_kmh"' in box and 'name="height_m"' not in html
    assert re.search(r'name="weight_kg" value="75"', box)
    # Its dice and call button (the fall's) are gone with it: their boxes are there, empty, for the next kind.
    assert '<div id="dice-party" class="kind-part"></div>' in html
    assert '<span id="call-party" class="kind-part"></span>' in html
