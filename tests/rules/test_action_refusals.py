"""The write path's refusals (each in Spanish, for the GM, nothing written), exertion, undo, the sheet and NOTIFY."""

import json
from dataclasses import replace

import pytest

from campaigns.models import Event
from characters.models import Character
from rules import actions, engine
from rules.actions import ActionError
from rules.damage import Attack
from rules.models import Illness, Wound
from tests.helpers import World, engine_pg, fall_ill, notify_listener, plague, reload, snapshot

DAY = engine.DAY


def assert_stored_pg_matches_engine(*characters: Character) -> None:
    for character in characters:
        fresh = reload(character)
        assert fresh.pg == engine_pg(fresh), fresh.name


# --- refusals: each in Spanish, for the GM, and nothing written -----------------------------------------------------


def refused(call) -> ActionError:
    """Run an action that must be refused; check it wrote nothing and return its error."""
    before = snapshot()
    with pytest.raises(ActionError) as error:
        call()
    assert snapshot() == before
    assert "cannot" not in error.value.message and "already" not in error.value.message  # no engine English
    return error.value


def kill(world: World, character: Character) -> None:
    actions.apply_damage(world.campaign_a, [character], Attack(amount=character.max_pg), by=world.gm_a)
    assert reload(character).dead


def test_treating_wounds_when_none_are_untreated_is_refused(world: World, healer: Character):
    error = refused(lambda: actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a))
    assert (error.field, error.message) == ("patient", "Aldara no tiene heridas sin tratar.")


def test_treating_wounds_twice_is_refused(world: World, healer: Character):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a)
    error = refused(lambda: actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a))
    assert error.message == "Aldara no tiene heridas sin tratar."


def test_a_patient_cannot_treat_their_own_illness(world: World):
    Character.objects.filter(pk=world.char_a1.pk).update(heal_wounds=3)
    illness = fall_ill(world, world.char_a1, plague())
    error = refused(
        lambda: actions.treat_illness(world.campaign_a, world.char_a1, illness, world.char_a1, by=world.gm_a)
    )
    assert (error.field, error.message) == ("healer", "Un personaje no puede tratar su propia enfermedad.")


def test_treating_an_illness_twice_is_refused(world: World, healer: Character):
    illness = fall_ill(world, world.char_a1, plague())
    actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a)
    error = refused(lambda: actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a))
    assert (error.field, error.message) == ("illness", "Esa enfermedad ya ha sido tratada.")


def test_medicating_an_illness_twice_is_refused(world: World):
    illness = fall_ill(world, world.char_a1, plague())  # serious: medicine alone does not cure it
    actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a)
    error = refused(lambda: actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a))
    assert (error.field, error.message) == ("illness", "Esa enfermedad ya tiene sus medicamentos.")


@pytest.mark.parametrize("care", ["treat_illness", "medicate"])
def test_caring_for_a_cured_illness_is_refused(world: World, healer: Character, care: str):
    illness = fall_ill(world, world.char_a1, plague())
    actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a)
    actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a)
    if care == "treat_illness":
        error = refused(lambda: actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a))
    else:
        error = refused(lambda: actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a))
    assert (error.field, error.message) == ("illness", "Esa enfermedad ya está curada.")


def test_caring_for_an_illness_the_patient_does_not_have_is_refused(world: World):
    illness = fall_ill(world, world.char_a1, plague())
    error = refused(lambda: actions.medicate(world.campaign_a, world.char_a2, illness, by=world.gm_a))
    assert (error.field, error.message) == ("illness", "Ese personaje no padece esa enfermedad.")


def treat(world: World, action: str, healer: Character):
    """A call of treat_wounds or treat_illness on Aldara, wounded and ill, by this healer."""
    if action == "treat_wounds":
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
        return lambda: actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a)
    illness = fall_ill(world, world.char_a1, plague())
    return lambda: actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a)


@pytest.mark.parametrize("action", ["treat_wounds", "treat_illness"])
def test_a_dead_healer_is_refused(world: World, healer: Character, action: str):
    kill(world, healer)
    error = refused(treat(world, action, healer))
    assert (error.field, error.message) == ("healer", "Tomás ha muerto y no puede curar.")


@pytest.mark.parametrize("action", ["treat_wounds", "treat_illness"])
def test_a_healer_from_another_campaign_is_refused(world: World, action: str):
    Character.objects.filter(pk=world.char_b.pk).update(heal_wounds=9)
    error = refused(treat(world, action, reload(world.char_b)))
    assert (error.field, error.message) == ("healer", "El sanador no pertenece a esta campaña.")


@pytest.mark.parametrize("action", ["treat_wounds", "treat_illness"])
def test_a_healer_without_curar_heridas_is_refused(world: World, action: str):
    error = refused(treat(world, action, world.char_a2))
    assert (error.field, error.message) == ("healer", "Borin no tiene la habilidad Curar Heridas.")


def test_exposing_a_group_skips_its_dead_members(world: World):
    kill(world, world.npc_a)
    party = [world.char_a1, world.char_a2, world.npc_a]
    dice = {world.char_a1.pk: 1, world.char_a2.pk: 12}  # Aldara 1 + 8 < 12 falls ill; Borin 12 + 12 resists
    outcome = actions.expose(world.campaign_a, party, plague(), dice_by_character=dice, by=world.gm_a)
    details = outcome.event.details
    assert details["skipped"] == [world.npc_a.pk]
    assert sorted(roll["character"] for roll in details["rolls"]) == sorted([world.char_a1.pk, world.char_a2.pk])
    assert details["fell_ill"] == [world.char_a1.pk]
    assert not Illness.objects.filter(character=world.npc_a).exists()
    assert str(world.npc_a.pk) not in outcome.event.after


def test_exposing_only_the_dead_is_refused(world: World):
    kill(world, world.npc_a)
    error = refused(lambda: actions.expose(world.campaign_a, [world.npc_a], plague(), by=world.gm_a))
    assert (error.field, error.message) == ("characters", "Tomás ha muerto y no puede hacerlo.")


def test_exposing_several_dead_is_refused_naming_them(world: World):
    kill(world, world.npc_a)
    kill(world, world.char_a2)
    error = refused(lambda: actions.expose(world.campaign_a, [world.npc_a, world.char_a2], plague(), by=world.gm_a))
    assert (error.field, error.message) == ("characters", "Todos los elegidos han muerto: Borin, Tomás.")


def test_treating_a_dead_characters_wounds_is_refused(world: World, healer: Character):
    kill(world, world.char_a1)
    error = refused(lambda: actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a))
    assert error.message == "Aldara ha muerto y no puede hacerlo."


@pytest.mark.parametrize("care", ["treat_illness", "medicate"])
def test_caring_for_a_dead_characters_illness_is_refused(world: World, healer: Character, care: str):
    illness = fall_ill(world, world.char_a1, plague())
    kill(world, world.char_a1)
    if care == "treat_illness":
        error = refused(lambda: actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a))
    else:
        error = refused(lambda: actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a))
    assert error.message == "Aldara ha muerto y no puede hacerlo."


def test_exertion_on_the_dead_is_refused(world: World):
    kill(world, world.npc_a)
    error = refused(lambda: actions.exertion(world.campaign_a, world.npc_a, die=5, by=world.gm_a))
    assert (error.field, error.message) == ("character", "Tomás ha muerto.")


# --- exertion --------------------------------------------------------------------------------------------------------


def test_a_failed_exertion_check_costs_one_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=47), by=world.gm_a)  # PG 3
    # 1d12 + CON 5 − 4 (PG 3-4 penalty on other rolls) against 12: a 10 makes 11, a failure.
    outcome = actions.exertion(world.campaign_a, world.npc_a, die=10, by=world.gm_a)
    [roll] = outcome.event.details["rolls"]
    assert (roll["total"], roll["success"], roll["penalties"]) == (11, False, [["pg", -4]])
    assert reload(world.npc_a).pg == 2
    assert outcome.event.details["damage"] == {str(world.npc_a.pk): 1}
    assert outcome.event.details["pg"] == {str(world.npc_a.pk): [3, 2]}


def test_a_successful_exertion_check_costs_nothing(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=47), by=world.gm_a)  # PG 3
    outcome = actions.exertion(world.campaign_a, world.npc_a, die=11, by=world.gm_a)  # 11 + 5 − 4 = 12
    assert outcome.event.details["rolls"][0]["success"] is True
    assert reload(world.npc_a).pg == 3


def test_exertion_at_one_pg_can_kill(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=49), by=world.gm_a)  # PG 1
    outcome = actions.exertion(world.campaign_a, world.npc_a, die=1, by=world.gm_a)  # 1 + 5 − 6 fails
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at, tomas.dead) == (0, 0, True)
    assert outcome.event.after[str(tomas.pk)]["died_at"] == 0


@pytest.mark.parametrize("damage, pg", [(0, 50), (45, 5), (10, 40)])
def test_exertion_at_five_pg_or_more_is_refused(world: World, damage: int, pg: int):
    """docs/rules.md §4: the check exists only while 1 ≤ PG ≤ 4."""
    if damage:
        actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=damage), by=world.gm_a)
    assert reload(world.npc_a).pg == pg
    error = refused(lambda: actions.exertion(world.campaign_a, world.npc_a, die=1, by=world.gm_a))
    assert (error.field, error.message) == (
        "character",
        "Tomás no necesita tirada de esfuerzo: solo se hace con 4 PG o menos.",
    )


@pytest.mark.parametrize("pg", [4, 1])
def test_exertion_is_allowed_from_four_pg_down_to_one(world: World, pg: int):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50 - pg), by=world.gm_a)
    outcome = actions.exertion(world.campaign_a, world.npc_a, die=12, by=world.gm_a)
    assert outcome.event.action == "exertion"


@pytest.mark.parametrize("die", [0, 13])
def test_exertion_refuses_a_die_out_of_range(world: World, die: int):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=47), by=world.gm_a)  # PG 3
    error = refused(lambda: actions.exertion(world.campaign_a, world.npc_a, die=die, by=world.gm_a))
    assert (error.field, error.message) == ("die", "Tomás: El dado debe estar entre 1 y 12.")


# --- undo ------------------------------------------------------------------------------------------------------------


def test_undo_after_a_killing_wound_brings_back_exactly_the_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=20), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=100), by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at) == (30, None)
    assert Wound.objects.filter(character=tomas).count() == 1


def test_undo_keeps_the_event_marked_undone_and_logs_itself(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=20), by=world.gm_a)
    outcome = actions.undo(world.campaign_a, by=world.gm_a)
    undone = Event.objects.get(pk=outcome.event.details["event"])
    assert undone.undone and undone.undone_by == world.gm_a and undone.action == "damage"
    assert outcome.event.action == "undo"
    assert Event.objects.filter(campaign=world.campaign_a).count() == 2  # nothing deleted; the undo is logged


def test_undo_an_advance_restores_the_clock_and_the_wounds(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    after_damage = snapshot()[:3]
    actions.advance_clock(world.campaign_a, 2 * DAY, by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 0
    assert snapshot()[:3] == after_damage


def test_undo_goes_back_one_event_at_a_time(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    actions.advance_clock(world.campaign_a, 2 * DAY, by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    assert reload(world.char_a1).pg == 80


def test_undo_with_nothing_left_is_refused(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    error = refused(lambda: actions.undo(world.campaign_a, by=world.gm_a))
    assert error.message == "No hay nada que deshacer."


# --- the sheet -------------------------------------------------------------------------------------------------------


def test_editing_con_recomputes_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    aldara = reload(world.char_a1)
    sheet = replace(actions.Sheet.of(aldara), constitution=10)
    outcome = actions.edit_character(world.campaign_a, aldara, sheet, by=world.gm_a)
    assert reload(aldara).pg == 95
    assert outcome.event.details["changes"] == {"constitution": [8, 10]}
    assert_stored_pg_matches_engine(aldara)


# --- NOTIFY ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_notify_carries_only_ids_and_arrives_on_commit(world: World):
    with notify_listener() as listener:
        outcome = actions.apply_damage(
            world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=1), by=world.gm_a
        )
        notices = list(listener.notifies(timeout=5, stop_after=1))
    assert len(notices) == 1
    assert json.loads(notices[0].payload) == {
        "campaign": world.campaign_a.pk,
        "characters": sorted([world.char_a1.pk, world.char_a2.pk]),
        "event": outcome.event.pk,  # no tab: no browser tab acted (rules.actions.FromTab)
    }
