"""The one write path, through real PostgreSQL: every action, its event, its refusals, undo."""

import json

import psycopg
import pytest
from django.db import connection

from campaigns.models import Event
from characters.models import Character
from rules import actions, engine, mapping, notify
from rules.actions import ActionError
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import Disease, Illness, Wound
from tests.conftest import World

DAY = engine.DAY


def reload(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def engine_pg(character: Character) -> int:
    """What the engine computes from the stored rows — must equal the stored pg."""
    wounds = list(Wound.objects.filter(character=character).order_by("id"))
    illnesses = list(Illness.objects.filter(character=character).select_related("disease").order_by("id"))
    return mapping.health_of(character, wounds, illnesses, character.campaign.clock).pg


def assert_stored_pg_matches_engine(*characters: Character) -> None:
    for character in characters:
        fresh = reload(character)
        assert fresh.pg == engine_pg(fresh), fresh.name


def snapshot(world: World):
    return (
        list(Character.objects.order_by("id").values_list("pg", "died_at", "recovery_progress", "protection")),
        list(Wound.objects.order_by("id").values()),
        list(Illness.objects.order_by("id").values()),
        Event.objects.count(),
        list(world.campaign_a.__class__.objects.order_by("id").values_list("clock", "version")),
    )


def plague() -> Disease:
    return Disease.objects.get(name="Peste", builtin=True)


def test_new_characters_are_unhurt(world: World):
    assert (world.char_a1.pg, world.char_a2.pg, world.npc_a.pg) == (80, 120, 50)


def test_attack_by_number(world: World):
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
    aldara = reload(world.char_a1)
    assert aldara.pg == 68
    wound = Wound.objects.get(character=aldara)
    assert (wound.kind, wound.amount, wound.remaining, wound.inflicted_at) == ("attack", 12, 12, 0)
    event = outcome.event
    assert event.action == "damage" and event.characters == [aldara.pk] and event.actor == world.gm_a
    assert event.details["damage"] == {str(aldara.pk): 12}
    assert event.before[str(aldara.pk)]["wounds"] == [] and len(event.after[str(aldara.pk)]["wounds"]) == 1
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.version == 1
    assert_stored_pg_matches_engine(aldara)


def test_attack_by_dice_is_rolled_once_and_kept_in_the_log(world: World):
    outcome = actions.apply_damage(
        world.campaign_a, [world.char_a1, world.char_a2], Attack(expression="2d6+1"), by=world.gm_a
    )
    rolled = outcome.event.details["dice"]
    assert 3 <= rolled["total"] <= 13 and rolled["expression"] == "2d6+1" and rolled["detail"]
    assert reload(world.char_a1).pg == 80 - rolled["total"]
    assert reload(world.char_a2).pg == 120 - rolled["total"]


def test_collision_uses_each_sheets_weight_or_the_override(world: World):
    world.char_a1.weight_kg = 62
    world.char_a1.save()
    actions.apply_damage(world.campaign_a, [world.char_a1], Collision(speed_kmh=45), by=world.gm_a)
    assert reload(world.char_a1).pg == 80 - (4 + 6)
    actions.apply_damage(world.campaign_a, [world.char_a1], Collision(speed_kmh=45, weight_kg=95), by=world.gm_a)
    assert reload(world.char_a1).pg == 80 - 10 - (4 + 9)


@pytest.mark.parametrize("die, hurt", [(6, True), (7, False)])
def test_fall_check_with_a_typed_die(world: World, die: int, hurt: bool):
    world.char_a1.jump = 5
    world.char_a1.save()
    # 1d20 + Saltar 5 against 12: a 7 makes 12 (success), a 6 makes 11 (failure: 3 m + 70 kg → 3 + 7 PG).
    fall = Fall(height_m=3, difficulty=12, dice={world.char_a1.pk: die})
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    [roll] = outcome.event.details["rolls"]
    assert (roll["die"], roll["modifier"], roll["total"], roll["difficulty"], roll["success"]) == (
        die,
        5,
        die + 5,
        12,
        not hurt,
    )
    assert reload(world.char_a1).pg == (70 if hurt else 80)


def test_drowning_and_gas_hit_the_whole_party(world: World):
    party = [world.char_a1, world.char_a2, world.npc_a]
    actions.apply_damage(world.campaign_a, party, Gas(turns=5), by=world.gm_a)
    actions.apply_damage(world.campaign_a, party, Drowning(turns=3), by=world.gm_a)
    assert [reload(c).pg for c in party] == [80 - 11, 120 - 11, 50 - 11]
    assert Event.objects.filter(campaign=world.campaign_a).count() == 2


@pytest.mark.parametrize(
    "damage, field",
    [
        (Attack(), "amount"),
        (Attack(amount=-1), "amount"),
        (Attack(amount=1001), "amount"),
        (Attack(amount=7, expression="2d6"), "amount"),
        (Attack(expression="1000000d1000000"), "expression"),
        (Attack(expression="2d6; drop table"), "expression"),
        (Collision(speed_kmh=2001), "speed_kmh"),
        (Collision(speed_kmh=50, weight_kg=0), "weight_kg"),
        (Fall(height_m=3, dice={"aldara": 21}), "die"),
        (Fall(height_m=3, difficulty=0), "difficulty"),
        (Fall(height_m=10_001), "height_m"),
        (Gas(turns=10_000), "turns"),
        (Drowning(turns=-1), "turns"),
    ],
)
def test_bad_damage_input_changes_nothing(world: World, damage: Damage, field: str):
    if isinstance(damage, Fall) and damage.dice:
        damage = Fall(height_m=damage.height_m, dice={world.char_a1.pk: 21})
    before = snapshot(world)
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [world.char_a1], damage, by=world.gm_a)
    assert error.value.field == field and error.value.message
    assert snapshot(world) == before


def test_another_campaigns_character_is_refused(world: World):
    before = snapshot(world)
    with pytest.raises(ActionError):
        actions.apply_damage(world.campaign_a, [world.char_b], Attack(amount=5), by=world.gm_a)
    with pytest.raises(ActionError):
        actions.advance_clock(world.campaign_a, DAY, resting=[world.char_b], by=world.gm_a)
    assert snapshot(world) == before


def test_a_wound_on_the_dead_is_recorded_but_pg_stays_at_zero(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at) == (0, 0)
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=0), by=world.gm_a)
    assert Wound.objects.filter(character=tomas).count() == 2 and reload(tomas).pg == 0


def test_advance_recovers_while_resting_and_not_otherwise(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=5), by=world.gm_a)
    outcome = actions.advance_clock(world.campaign_a, 3 * DAY, resting=[world.char_a1], by=world.gm_a)
    assert (reload(world.char_a1).pg, reload(world.char_a2).pg) == (78, 115)
    assert outcome.event.characters == [world.char_a1.pk]  # only those whose state changed
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 3 * DAY
    assert_stored_pg_matches_engine(world.char_a1, world.char_a2)


def test_advance_in_pieces_equals_advance_at_once(world: World, django_user_model):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=9), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=4), by=world.gm_a)
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    for seconds in (3600, 5 * 3600 + 17, DAY, 6 * DAY):
        actions.advance_clock(world.campaign_a, seconds, by=world.gm_a)
    in_pieces = reload(world.char_a1)
    expected = engine.Health(8, [engine.Wound("attack", 9)])
    expected = engine.apply_wound(expected, engine.Wound("gas", 4))
    expected, _ = engine.expose(expected, plague().as_illness(), 1)
    expected = engine.advance(expected, 3600 + 5 * 3600 + 17 + DAY + 6 * DAY)
    assert in_pieces.pg == expected.pg


def test_expose_protection_and_falling_ill(world: World):
    flu = Disease.objects.get(name="Gripe")
    # 1d12 + CON 8 against 8: a 1 makes 9 → resists and is protected from common diseases today.
    outcome = actions.expose(
        world.campaign_a, [world.char_a1], flu, dice_by_character={world.char_a1.pk: 1}, by=world.gm_a
    )
    assert outcome.event.details["rolls"][0]["success"] is True
    again = actions.expose(world.campaign_a, [world.char_a1], Disease.objects.get(name="Fiebre"), by=world.gm_a)
    assert again.event.details["rolls"][0]["protected"] is True
    # Serious against 12: CON 8 + 3 = 11 fails.
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 3}, by=world.gm_a)
    illness = Illness.objects.get(character=world.char_a1)
    assert (illness.disease.name, illness.since, illness.penalty, illness.pg_per_week) == ("Peste", 0, -2, 1)
    actions.advance_clock(world.campaign_a, 7 * DAY, by=world.gm_a)
    assert reload(world.char_a1).pg == 79


def test_expose_refuses_retired_and_other_campaigns_diseases(world: World):
    retired = Disease.objects.create(name="Vieja", category="common", penalty=-1, retired=True)
    foreign = Disease.objects.create(name="Ajena", category="common", penalty=-1, campaign=world.campaign_b)
    before = snapshot(world)
    for disease in (retired, foreign):
        with pytest.raises(ActionError) as error:
            actions.expose(world.campaign_a, [world.char_a1], disease, by=world.gm_a)
        assert error.value.field == "disease"
    with pytest.raises(ActionError) as error:
        actions.expose(
            world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 13}, by=world.gm_a
        )
    assert error.value.field == "die"
    assert snapshot(world) == before


def test_serious_illness_needs_treatment_and_medicine(world: World):
    world.npc_a.heal_wounds = 5
    world.npc_a.save()
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    illness = Illness.objects.get(character=world.char_a1)
    with pytest.raises(ActionError):  # not by the patient
        world.char_a1.heal_wounds = 3
        world.char_a1.save()
        actions.treat_illness(world.campaign_a, world.char_a1, illness, world.char_a1, by=world.gm_a)
    with pytest.raises(ActionError):  # a healer needs the skill
        actions.treat_illness(world.campaign_a, world.char_a1, illness, world.char_a2, by=world.gm_a)
    outcome = actions.treat_illness(world.campaign_a, world.char_a1, illness, world.npc_a, by=world.gm_a)
    assert outcome.event.details["cured"] is False
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    outcome = actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a)
    assert outcome.event.details["cured"] is True
    illness.refresh_from_db()
    assert illness.cured_at == DAY
    with pytest.raises(ActionError):
        actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a)


def test_treat_wounds_halves_recovery(world: World):
    world.npc_a.heal_wounds = 5
    world.npc_a.save()
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    actions.treat_wounds(world.campaign_a, world.char_a1, world.npc_a, by=world.gm_a)
    assert Wound.objects.get(character=world.char_a1).treated
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    assert reload(world.char_a1).pg == 78
    with pytest.raises(ActionError):  # nothing left untreated
        actions.treat_wounds(world.campaign_a, world.char_a1, world.npc_a, by=world.gm_a)


def test_exertion_check(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=47), by=world.gm_a)  # PG 3
    # 1d12 + CON 5 − 4 (PG 3-4 penalty on other rolls) against 12: a 10 makes 11, a failure.
    outcome = actions.exertion(world.campaign_a, world.npc_a, die=10, by=world.gm_a)
    [roll] = outcome.event.details["rolls"]
    assert (roll["total"], roll["success"], roll["penalties"]) == (11, False, [["pg", -4]])
    assert reload(world.npc_a).pg == 2 and outcome.event.details["required"] is True
    with pytest.raises(ActionError):
        actions.exertion(world.campaign_a, world.npc_a, die=0, by=world.gm_a)


def test_undo_after_a_killing_wound_brings_back_exactly_the_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=20), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=100), by=world.gm_a)
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at) == (0, 0)
    outcome = actions.undo(world.campaign_a, by=world.gm_a)
    tomas = reload(tomas)
    assert (tomas.pg, tomas.died_at) == (30, None)
    assert Wound.objects.filter(character=tomas).count() == 1
    undone = Event.objects.get(pk=outcome.event.details["event"])
    assert undone.undone and undone.undone_by == world.gm_a and undone.action == "damage"
    assert Event.objects.filter(campaign=world.campaign_a).count() == 3  # nothing deleted; the undo is logged


def test_undo_an_advance_restores_the_clock_and_the_wounds(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    after_damage = snapshot(world)[:3]
    actions.advance_clock(world.campaign_a, 2 * DAY, by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 0
    assert snapshot(world)[:3] == after_damage
    actions.undo(world.campaign_a, by=world.gm_a)
    assert reload(world.char_a1).pg == 80
    with pytest.raises(ActionError):
        actions.undo(world.campaign_a, by=world.gm_a)


def test_editing_con_recomputes_pg(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    aldara = reload(world.char_a1)
    aldara.constitution = 10
    actions.save_character(aldara, by=world.gm_a)
    assert reload(aldara).pg == 95


@pytest.mark.django_db(transaction=True)
def test_notify_carries_only_ids_and_arrives_on_commit(world: World):
    dsn = connection.get_connection_params()
    with psycopg.connect(
        **{k: v for k, v in dsn.items() if k in ("host", "port", "user", "password", "dbname")}, autocommit=True
    ) as listener:
        listener.execute(f"LISTEN {notify.CHANNEL}")
        actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=1), by=world.gm_a)
        notices = list(listener.notifies(timeout=5, stop_after=1))
    assert len(notices) == 1
    assert json.loads(notices[0].payload) == {
        "campaign": world.campaign_a.pk,
        "characters": sorted([world.char_a1.pk, world.char_a2.pk]),
    }
