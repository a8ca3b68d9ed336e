"""The GM's table over HTTP: every action succeeds, refuses bad input with a message and no change, and answers 404
to anyone but the campaign's GM."""

import pytest
from django.urls import reverse

from campaigns.models import Event
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import Disease, Illness, Wound
from tests.helpers import HTMX, World, client_for, fall_ill, gm_table, plague, snapshot
from tests.regions import element_by_id, elements_of, region_ids

PATIENT_ACTIONS = ("treat_wounds", "treat_illness", "medicate", "exertion")


def act_url(world: World, action: str) -> str:
    return reverse(action, kwargs={"campaign_id": world.campaign_a.pk})


def post(world: World, action: str, data: dict, user=None, htmx: bool = True):
    return client_for(user or world.gm_a).post(act_url(world, action), data, **(HTMX if htmx else {}))


def pg(character: Character) -> int:
    return Character.objects.get(pk=character.pk).pg


def kill(world: World, character: Character) -> None:
    actions.apply_damage(world.campaign_a, [character], Attack(amount=character.max_pg), by=world.gm_a)


def refused(world: World, action: str, data: dict, message: str):
    """POST an action that must be refused: 422, the message in the form, nothing changed."""
    before = snapshot()
    response = post(world, action, data)
    assert response.status_code == 422
    html = response.content.decode()
    assert message in html
    assert "cannot" not in html  # the engine's English never reaches the GM
    assert snapshot() == before
    return response


# --- the table -------------------------------------------------------------------------------------------------------


def test_table_shows_the_clock_and_every_character(world: World):
    html = gm_table(world)
    assert "Día 1, 00:00" in html and "Aldara" in html and "Borin" in html and "Tomás" in html
    assert "Zed" not in html  # another campaign's


def test_table_cards_show_pg_and_penalties(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    html = gm_table(world)
    assert "5</strong> / 80" in html and "−4 a tiradas físicas" in html and "−2 a las demás tiradas" in html


def test_table_shows_the_log(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    html = gm_table(world)
    assert "Daño: Ataque físico directo" in html and "Aldara pierde 75 PG" in html


@pytest.mark.parametrize(
    "data, expected_pg",
    [
        ({"kind": "attack", "amount": "12"}, 68),
        ({"kind": "collision", "speed_kmh": "50", "weight_kg": ""}, 80 - 5 - 7),
        ({"kind": "fall", "height_m": "6", "weight_kg": "90", "difficulty": "12", "die_{a1}": "1"}, 80 - 6 - 9),
        ({"kind": "drowning", "turns": "4"}, 72),
        ({"kind": "gas", "turns": "4"}, 76),
    ],
)
def test_damage_of_each_kind(world: World, data, expected_pg):
    data = {k.replace("{a1}", str(world.char_a1.pk)): v for k, v in data.items()}
    response = post(world, "damage", {**data, "characters": [world.char_a1.pk], "character": world.char_a1.pk})
    assert response.status_code == 200
    assert pg(world.char_a1) == expected_pg
    html = response.content.decode()
    # Only the regions it touched, each once: Aldara's card (not Borin's), the undo button and the log's new entry —
    # not the whole table, not the clock, which did not move; and what this tab alone needs: the announcement, the
    # form closed, the keyboard on her card.
    assert 'id="table"' not in html and response.headers["HX-Reswap"] == "none" and response["X-Regions"] == "1"
    a1, a2 = world.char_a1.pk, world.char_a2.pk
    touched = [f"card-{a1}", f"card-actions-{a1}", "undo-button", "log-entries"]
    assert sorted(region_ids(html)) == sorted([*touched, "announce", "said", f"slot-{a1}"])  # each once
    assert f"{expected_pg}</strong> / 80" in element_by_id(html, f"card-{a1}").html
    assert f"card-{a2}" not in html and f"character-{a2}" not in html and "Borin" not in html
    event = Event.objects.latest("id")
    assert [e.id for e in elements_of(html) if e.id.startswith("entry-")] == [f"entry-{event.pk}"]  # the entry alone
    assert element_by_id(html, "announce").inner == f"Aldara: {expected_pg}/80 PG"  # the aria-live announcement
    assert element_by_id(html, f"slot-{a1}").inner == "" and response["X-Focus"] == f"character-{a1}"


def test_damage_by_dice_to_the_party(world: World):
    party = [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]
    response = post(world, "damage", {"kind": "attack", "amount": "2d6+1", "characters": party})
    assert response.status_code == 200
    lost = 80 - pg(world.char_a1)
    assert 3 <= lost <= 13 and pg(world.char_a2) == 120 - lost and pg(world.npc_a) == 50 - lost
    html = response.content.decode()
    assert "Tirada de daño: 2d6" in html
    # every card it touched, once; the group form closed, the keyboard back on the group's buttons
    cards = [f"{region}-{pk}" for pk in party for region in ("card", "card-actions")]
    assert sorted(region_ids(html)) == sorted([*cards, "undo-button", "log-entries", "announce", "said", "slot-party"])
    assert response["X-Focus"] == "party-damage"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"kind": "attack", "amount": "1000000d1000000"}, "como mucho 1000 caras"),
        ({"kind": "attack", "amount": "siete"}, "2d6"),
        ({"kind": "attack", "amount": "1001"}, "entre 0 y 1000"),
        ({"kind": "attack", "amount": "x" * 10_000}, "como mucho 50 caracteres"),
        ({"kind": "collision", "speed_kmh": "rápido"}, "número entero"),
        ({"kind": "collision", "speed_kmh": "99999"}, "menor o igual a 2000"),
        ({"kind": "fall", "height_m": "3", "difficulty": "12", "die_{a1}": "21"}, "menor o igual a 20"),
        ({"kind": "gas", "turns": "-1"}, "mayor o igual a 0"),
        ({"kind": "magia", "turns": "1"}, "Elige una opción válida"),
        ({"kind": "attack", "amount": "5", "characters": "{b}"}, "Elige una opción válida"),
        ({"kind": "attack", "amount": "5", "characters": ""}, "obligatorio"),
    ],
)
def test_bad_damage_input_shows_a_message_and_changes_nothing(world: World, data, message):
    data = {"characters": world.char_a1.pk, **data}
    data = {
        k.replace("{a1}", str(world.char_a1.pk)): str(v).replace("{b}", str(world.char_b.pk)) for k, v in data.items()
    }
    before = snapshot()
    response = post(world, "damage", {**data, "slot": str(world.char_a1.pk)})
    assert response.status_code == 422
    assert message in response.content.decode()
    # Into the card's slot, which is always on the table (the quick-damage box has no form open there).
    assert (response.headers["HX-Retarget"], response.headers["HX-Reswap"]) == (
        f"#slot-{world.char_a1.pk}",
        "innerHTML",
    )
    assert snapshot() == before


def test_bad_input_without_htmx_renders_a_page(world: World):
    response = post(world, "damage", {"kind": "gas", "turns": "", "characters": world.char_a1.pk}, htmx=False)
    assert response.status_code == 400 and "obligatorio" in response.content.decode()
    assert "<html" in response.content.decode()


def test_success_without_htmx_redirects(world: World):
    response = post(world, "damage", {"kind": "gas", "turns": "2", "characters": world.char_a1.pk}, htmx=False)
    assert response.status_code == 302 and pg(world.char_a1) == 78


# --- the forms -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["damage", "expose", "advance"])
def test_a_party_form_loads_as_a_fragment(world: World, action: str):
    response = client_for(world.gm_a).get(act_url(world, action), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<form" in html and "<html" not in html


@pytest.mark.parametrize("action", PATIENT_ACTIONS)
def test_a_patient_form_loads_as_a_fragment_for_htmx(world: World, action: str):
    response = client_for(world.gm_a).get(f"{act_url(world, action)}?character={world.char_a1.pk}", **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<form" in html and "<html" not in html


@pytest.mark.parametrize("action", PATIENT_ACTIONS)
def test_a_patient_form_loads_as_a_page_without_htmx(world: World, action: str):
    response = client_for(world.gm_a).get(f"{act_url(world, action)}?character={world.char_a1.pk}")
    assert response.status_code == 200
    assert "<html" in response.content.decode() and "<form" in response.content.decode()


@pytest.mark.parametrize("query", ["", "?character={b}", "?character=x", "?character=99999999"])
@pytest.mark.parametrize("action", PATIENT_ACTIONS)
def test_a_patient_form_needs_a_character_of_this_campaign(world: World, action: str, query: str):
    url = act_url(world, action) + query.format(b=world.char_b.pk)
    assert client_for(world.gm_a).get(url).status_code == 404


def test_changing_the_damage_kind_reloads_the_form_with_its_fields_and_no_errors(world: World):
    url = f"{act_url(world, 'damage')}?character={world.char_a1.pk}&kind=fall"
    html = client_for(world.gm_a).get(url, **HTMX).content.decode()
    assert 'name="height_m"' in html and 'name="turns"' not in html
    assert "obligatorio" not in html


def test_an_unknown_action_is_404(world: World):
    assert client_for(world.gm_a).get(f"/campaigns/{world.campaign_a.pk}/act/teleport/").status_code == 404


# --- the clock -------------------------------------------------------------------------------------------------------


@pytest.fixture
def wounded(world: World) -> World:
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=10), by=world.gm_a)
    return world


def test_a_rest_preset_heals_only_who_rests(wounded: World):
    world = wounded
    response = post(world, "advance", {"preset": "86400", "resting": [world.char_a1.pk]})
    assert response.status_code == 200 and "Día 2, 00:00" in response.content.decode()
    assert (pg(world.char_a1), pg(world.char_a2)) == (71, 110)


def test_a_short_preset_is_not_rest(wounded: World):
    world = wounded
    everyone = [world.char_a1.pk, world.char_a2.pk]
    post(world, "advance", {"duration": "23h", "resting": everyone})  # an hour short of a PG back
    response = post(world, "advance", {"preset": "3600", "resting": everyone})
    assert response.status_code == 200
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 24 * 3600
    assert (pg(world.char_a1), pg(world.char_a2)) == (70, 110)  # had that hour been rest, each would be 1 PG up
    post(world, "advance", {"duration": "1h", "resting": everyone})
    assert (pg(world.char_a1), pg(world.char_a2)) == (71, 111)


def test_a_typed_duration_advances_the_clock(wounded: World):
    world = wounded
    response = post(world, "advance", {"duration": "2d", "resting": [world.char_a1.pk, world.char_a2.pk]})
    assert response.status_code == 200 and "Día 3, 00:00" in response.content.decode()
    assert (pg(world.char_a1), pg(world.char_a2)) == (72, 112)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 2 * 86400


@pytest.mark.parametrize(
    "data, message",
    [
        ({"duration": "mañana"}, "No se entiende"),
        ({"duration": "0"}, "mayor que cero"),
        ({}, "Elige un botón"),
        ({"preset": "999"}, "Elige una opción válida"),
        ({"duration": "1h", "resting": "{b}"}, "Elige una opción"),
    ],
)
def test_advance_bad_input(world: World, data, message):
    data = {k: str(v).replace("{b}", str(world.char_b.pk)) for k, v in data.items()}
    before = snapshot()
    response = post(world, "advance", {**data, "slot": "advance"})
    assert response.status_code == 422 and message in response.content.decode()
    assert snapshot() == before


# --- illness ---------------------------------------------------------------------------------------------------------


def test_expose_with_typed_dice(world: World):
    data = {
        "disease": plague().pk,
        "characters": [world.char_a1.pk, world.char_a2.pk],
        f"die_{world.char_a1.pk}": "1",
        f"die_{world.char_a2.pk}": "12",
    }
    response = post(world, "expose", data)
    assert response.status_code == 200
    assert Illness.objects.filter(character=world.char_a1).exists()
    assert not Illness.objects.filter(character=world.char_a2).exists()  # 12 + 12 resists
    assert "Aldara enferma" in response.content.decode()


def test_expose_refuses_a_die_out_of_range(world: World):
    data = {
        "disease": Disease.objects.get(name="Gripe").pk,
        "characters": world.char_a1.pk,
        f"die_{world.char_a1.pk}": "13",
    }
    refused(world, "expose", data, "menor o igual a 12")


def test_expose_refuses_another_campaigns_disease(world: World):
    foreign = Disease.objects.create(name="Ajena", category="common", penalty=-1, campaign=world.campaign_b)
    refused(world, "expose", {"disease": foreign.pk, "characters": world.char_a1.pk}, "Elige una opción válida")


def test_treat_illness(world: World, healer):
    illness = fall_ill(world, world.char_a1, plague())
    response = post(world, "treat_illness", {"character": world.char_a1.pk, "illness": illness.pk, "healer": healer.pk})
    assert response.status_code == 200
    illness.refresh_from_db()
    assert illness.treated and illness.cured_at is None  # the plague needs medicine too


def test_medicine_after_treatment_cures(world: World, healer):
    illness = fall_ill(world, world.char_a1, plague())
    post(world, "treat_illness", {"character": world.char_a1.pk, "illness": illness.pk, "healer": healer.pk})
    response = post(world, "medicate", {"character": world.char_a1.pk, "illness": illness.pk})
    assert response.status_code == 200 and "Curada." in response.content.decode()
    illness.refresh_from_db()
    assert illness.cured_at == 0


def test_a_patient_cannot_treat_their_own_illness(world: World):
    Character.objects.filter(pk=world.char_a1.pk).update(heal_wounds=3)
    illness = fall_ill(world, world.char_a1, plague())
    data = {"character": world.char_a1.pk, "illness": illness.pk, "healer": world.char_a1.pk}
    refused(world, "treat_illness", data, "Elige una opción válida")  # not offered in the form


def test_medicating_an_illness_another_character_has_is_refused(world: World):
    illness = fall_ill(world, world.char_a1, plague())
    refused(world, "medicate", {"character": world.char_a2.pk, "illness": illness.pk}, "Elige una opción válida")


def test_treating_an_illness_twice_is_refused(world: World, healer):
    illness = fall_ill(world, world.char_a1, plague())
    data = {"character": world.char_a1.pk, "illness": illness.pk, "healer": healer.pk}
    assert post(world, "treat_illness", data).status_code == 200
    refused(world, "treat_illness", data, "Elige una opción válida")  # no longer offered


def test_medicating_an_illness_twice_is_refused(world: World):
    illness = fall_ill(world, world.char_a1, plague())
    data = {"character": world.char_a1.pk, "illness": illness.pk}
    assert post(world, "medicate", data).status_code == 200
    refused(world, "medicate", data, "Elige una opción válida")  # no longer offered


# --- wounds and healers ----------------------------------------------------------------------------------------------


def test_treat_wounds(world: World, healer):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    assert post(world, "treat_wounds", {"character": world.char_a1.pk, "healer": healer.pk}).status_code == 200
    assert Wound.objects.get(character=world.char_a1).treated


def test_treat_wounds_with_nothing_to_treat_is_refused(world: World, healer):
    data = {"character": world.char_a1.pk, "healer": healer.pk}
    refused(world, "treat_wounds", data, "Aldara no tiene heridas sin tratar.")


def healers_case(world: World, case: str) -> Character:
    """A healer the form does not offer."""
    if case == "without the skill":
        return world.char_a2
    if case == "from another campaign":
        Character.objects.filter(pk=world.char_b.pk).update(heal_wounds=6)
        return world.char_b
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    kill(world, world.npc_a)
    return world.npc_a


@pytest.mark.parametrize("case", ["without the skill", "from another campaign", "dead"])
def test_treat_wounds_refuses_a_healer_who_cannot_heal(world: World, case: str):
    healer = healers_case(world, case)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    refused(world, "treat_wounds", {"character": world.char_a1.pk, "healer": healer.pk}, "Elige una opción válida")


@pytest.mark.parametrize("case", ["without the skill", "from another campaign", "dead"])
def test_treat_illness_refuses_a_healer_who_cannot_heal(world: World, case: str):
    healer = healers_case(world, case)
    illness = fall_ill(world, world.char_a1, plague())
    data = {"character": world.char_a1.pk, "illness": illness.pk, "healer": healer.pk}
    refused(world, "treat_illness", data, "Elige una opción válida")


# --- the dead: the rules' refusals reach the GM in Spanish -----------------------------------------------------------


def test_exposing_a_group_with_a_dead_character_skips_it_and_says_so(world: World):
    kill(world, world.npc_a)
    data = {
        "disease": plague().pk,
        "characters": [world.char_a1.pk, world.npc_a.pk],
        f"die_{world.char_a1.pk}": "1",
        f"die_{world.npc_a.pk}": "1",
    }
    response = post(world, "expose", data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Tomás ha muerto: sin tirada" in html and "Aldara enferma" in html
    assert Illness.objects.filter(character=world.char_a1).exists()
    assert not Illness.objects.filter(character=world.npc_a).exists()


def test_exposing_only_the_dead_is_refused(world: World):
    kill(world, world.npc_a)
    data = {"disease": plague().pk, "characters": [world.npc_a.pk]}
    refused(world, "expose", data, "Tomás ha muerto y no puede hacerlo.")


def test_treating_a_dead_characters_wounds_is_refused(world: World):
    Character.objects.filter(pk=world.char_a2.pk).update(heal_wounds=6)
    kill(world, world.npc_a)
    data = {"character": world.npc_a.pk, "healer": world.char_a2.pk}
    refused(world, "treat_wounds", data, "Tomás ha muerto y no puede hacerlo.")


@pytest.mark.parametrize("action", ["treat_illness", "medicate"])
def test_caring_for_a_dead_characters_illness_is_refused(world: World, action: str):
    Character.objects.filter(pk=world.char_a2.pk).update(heal_wounds=6)
    illness = fall_ill(world, world.npc_a, plague())
    kill(world, world.npc_a)
    data = {"character": world.npc_a.pk, "illness": illness.pk, "healer": world.char_a2.pk}
    refused(world, action, data, "Tomás ha muerto y no puede hacerlo.")


def test_exertion_on_the_dead_is_refused(world: World):
    kill(world, world.npc_a)
    refused(world, "exertion", {"character": world.npc_a.pk, "die": "5"}, "Tomás ha muerto.")


# --- exertion --------------------------------------------------------------------------------------------------------


def test_a_failed_exertion_check_costs_one_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)
    response = post(world, "exertion", {"character": world.char_a1.pk, "die": "1"})
    assert response.status_code == 200 and pg(world.char_a1) == 2


def test_exertion_refuses_a_die_out_of_range(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)
    refused(world, "exertion", {"character": world.char_a1.pk, "die": "13"}, "menor o igual a 12")
