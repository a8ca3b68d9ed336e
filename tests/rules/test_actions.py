"""The one write path, through real PostgreSQL: every action, its event, its refusals, undo."""

import pytest

from campaigns.models import Event
from characters.models import Character
from rules import actions, engine
from rules.actions import ActionError
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import Disease, Illness, Wound
from tests.helpers import World, engine_pg, fall_ill, plague, reload, snapshot

DAY = engine.DAY


def assert_stored_pg_matches_engine(*characters: Character) -> None:
    for character in characters:
        fresh = reload(character)
        assert fresh.pg == engine_pg(fresh), fresh.name


def test_new_characters_are_unhurt(world: World):
    assert (world.char_a1.pg, world.char_a2.pg, world.npc_a.pg) == (80, 120, 50)


# --- damage ----------------------------------------------------------------------------------------------------------


def test_attack_by_number_stores_the_wound(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
    aldara = reload(world.char_a1)
    assert aldara.pg == 68
    wound = Wound.objects.get(character=aldara)
    assert (wound.kind, wound.amount, wound.remaining, wound.inflicted_at) == ("attack", 12, 12, 0)
    assert_stored_pg_matches_engine(aldara)


def test_an_action_logs_one_event_with_the_state_before_and_after(world: World):
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
    pk = world.char_a1.pk
    event = outcome.event
    assert (event.action, event.characters, event.actor) == ("damage", [pk], world.gm_a)
    assert event.details["damage"] == {str(pk): 12}
    assert event.before[str(pk)]["wounds"] == [] and len(event.after[str(pk)]["wounds"]) == 1
    assert list(Event.objects.filter(campaign=world.campaign_a)) == [event]


def test_an_action_bumps_the_campaign_version(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.version == 1


def test_attack_by_dice_is_rolled_once_and_kept_in_the_log(world: World):
    outcome = actions.apply_damage(
        world.campaign_a, [world.char_a1, world.char_a2], Attack(expression="2d6+1"), by=world.gm_a
    )
    rolled = outcome.event.details["dice"]
    assert 3 <= rolled["total"] <= 13 and rolled["expression"] == "2d6+1"
    assert rolled["detail"].startswith("2d6 (") and rolled["detail"].endswith(f"= {rolled['total']}")
    assert reload(world.char_a1).pg == 80 - rolled["total"]
    assert reload(world.char_a2).pg == 120 - rolled["total"]


def test_collision_uses_the_weight_on_the_sheet(world: World):
    Character.objects.filter(pk=world.char_a1.pk).update(weight_kg=62)
    actions.apply_damage(world.campaign_a, [world.char_a1], Collision(speed_kmh=45), by=world.gm_a)
    assert reload(world.char_a1).pg == 80 - (4 + 6)


def test_collision_uses_the_weight_the_gm_gives_over_the_sheet(world: World):
    Character.objects.filter(pk=world.char_a1.pk).update(weight_kg=62)
    actions.apply_damage(world.campaign_a, [world.char_a1], Collision(speed_kmh=45, weight_kg=95), by=world.gm_a)
    assert reload(world.char_a1).pg == 80 - (4 + 9)


@pytest.mark.parametrize("die, hurt", [(6, True), (7, False)])
def test_fall_check_with_a_typed_die(world: World, die: int, hurt: bool):
    Character.objects.filter(pk=world.char_a1.pk).update(jump=5)
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
    "damage, field, message",
    [
        (Attack(), "amount", "Indica el daño: un número o una tirada como 2d6+1."),
        (Attack(amount=-1), "amount", "El daño debe estar entre 0 y 1000."),
        (Attack(amount=1001), "amount", "El daño debe estar entre 0 y 1000."),
        (Attack(amount=7, expression="2d6"), "amount", "Indica el daño: un número o una tirada como 2d6+1."),
        (Attack(expression="1000000d1000000"), "expression", "Un dado puede tener como mucho 1000 caras."),
        (Attack(expression="5000"), "expression", "El daño puede llegar como mucho a 1000."),  # a number as text
        (Attack(expression="2d6; drop table"), "expression", "La tirada solo puede tener dados (2d6)"),
        (Collision(speed_kmh=2001), "speed_kmh", "La velocidad debe estar entre 0 y 2000."),
        (Collision(speed_kmh=50, weight_kg=0), "weight_kg", "El peso debe estar entre 1 y 500."),
        (Fall(height_m=3, dice={"aldara": 21}), "die", "Aldara: El dado debe estar entre 1 y 20."),
        (Fall(height_m=3, difficulty=0), "difficulty", "La dificultad debe estar entre 1 y 60."),
        (Fall(height_m=10_001), "height_m", "La altura debe estar entre 0 y 10000."),
        (Gas(turns=10_000), "turns", "El número de turnos debe estar entre 0 y 1000."),
        (Drowning(turns=-1), "turns", "El número de turnos debe estar entre 0 y 1000."),
    ],
)
def test_bad_damage_input_changes_nothing(world: World, damage: Damage, field: str, message: str):
    if isinstance(damage, Fall) and damage.dice:
        damage = Fall(height_m=damage.height_m, dice={world.char_a1.pk: 21})
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [world.char_a1], damage, by=world.gm_a)
    assert error.value.field == field
    assert message in error.value.message
    assert snapshot() == before


def test_damage_to_no_one_is_refused(world: World):
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [], Attack(amount=5), by=world.gm_a)
    assert (error.value.field, error.value.message) == ("characters", "Elige al menos un personaje.")
    assert snapshot() == before


def test_damage_to_another_campaigns_character_is_refused(world: World):
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [world.char_b], Attack(amount=5), by=world.gm_a)
    assert (error.value.field, error.value.message) == ("characters", "Ese personaje no pertenece a esta campaña.")
    assert snapshot() == before


def test_rest_for_another_campaigns_character_is_refused(world: World):
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.advance_clock(world.campaign_a, DAY, resting=[world.char_b], by=world.gm_a)
    assert (error.value.field, error.value.message) == ("resting", "Ese personaje no pertenece a esta campaña.")
    assert snapshot() == before


def test_a_killing_wound_sets_pg_to_zero_and_the_time_of_death(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at, tomas.dead) == (0, 0, True)


def test_a_wound_on_the_dead_is_recorded_but_pg_stays_at_zero(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=0), by=world.gm_a)
    tomas = reload(world.npc_a)
    assert Wound.objects.filter(character=tomas).count() == 2
    assert (tomas.pg, tomas.died_at) == (0, 0)


def test_a_fall_of_the_dead_alone_is_refused(world: World):
    """docs/rules.md §7.8: the dead make no check, so a fall skips them; with no one else, nothing happens."""
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [world.npc_a], Fall(height_m=3), by=world.gm_a)
    assert (error.value.field, error.value.message) == ("characters", "Tomás ha muerto y no puede hacerlo.")
    assert snapshot() == before


def test_a_group_fall_skips_the_dead(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    fall = Fall(height_m=3, difficulty=12, dice={world.char_a1.pk: 1})  # 1 + Saltar 0 fails: 3 + 7 PG
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], fall, by=world.gm_a)
    details = outcome.event.details
    assert details["skipped"] == [world.npc_a.pk]
    assert [roll["character"] for roll in details["rolls"]] == [world.char_a1.pk]
    assert details["damage"] == {str(world.char_a1.pk): 10}
    assert details["pg"] == {str(world.char_a1.pk): [80, 70]}
    assert not Wound.objects.filter(character=world.npc_a, kind="fall").exists()
    assert (reload(world.char_a1).pg, reload(world.npc_a).pg) == (70, 0)
    assert outcome.event.characters == [world.char_a1.pk]


def test_a_fall_of_several_dead_is_refused_naming_them(world: World):
    for character in (world.npc_a, world.char_a1):
        actions.apply_damage(world.campaign_a, [character], Attack(amount=character.max_pg), by=world.gm_a)
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], Fall(height_m=3), by=world.gm_a)
    assert (error.value.field, error.value.message) == (
        "characters",
        "Todos los elegidos han muerto: Aldara, Tomás.",
    )
    assert snapshot() == before


@pytest.mark.parametrize("damage", [Attack(amount=4), Collision(speed_kmh=30), Drowning(turns=2), Gas(turns=3)])
def test_other_damage_is_recorded_on_the_dead_at_zero_pg(world: World, damage: Damage):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=60), by=world.gm_a)
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], damage, by=world.gm_a)
    assert outcome.event.details["skipped"] == []
    assert outcome.event.details["pg"][str(world.npc_a.pk)] == [0, 0]
    assert Wound.objects.filter(character=world.npc_a).count() == 2  # the killing blow and this one
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at) == (0, 0)
    assert_stored_pg_matches_engine(world.char_a1, world.npc_a)


def test_damage_details_keep_pg_before_and_after(world: World):
    outcome = actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], Attack(amount=55), by=world.gm_a)
    assert outcome.event.details["pg"] == {str(world.char_a1.pk): [80, 25], str(world.npc_a.pk): [50, 0]}


# --- time ------------------------------------------------------------------------------------------------------------


def test_advance_recovers_while_resting_and_not_otherwise(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=5), by=world.gm_a)
    actions.advance_clock(world.campaign_a, 3 * DAY, resting=[world.char_a1], by=world.gm_a)
    assert (reload(world.char_a1).pg, reload(world.char_a2).pg) == (78, 115)
    assert_stored_pg_matches_engine(world.char_a1, world.char_a2)


def test_advance_logs_only_the_characters_whose_state_changed(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=5), by=world.gm_a)
    outcome = actions.advance_clock(world.campaign_a, 3 * DAY, resting=[world.char_a1], by=world.gm_a)
    assert outcome.event.characters == [world.char_a1.pk]


def test_advance_moves_the_campaign_clock(world: World):
    actions.advance_clock(world.campaign_a, 3 * DAY, by=world.gm_a)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 3 * DAY


@pytest.mark.parametrize("seconds", [0, -1, 1000 * engine.YEAR + 1])
def test_advance_out_of_range_is_refused(world: World, seconds: int):
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.advance_clock(world.campaign_a, seconds, by=world.gm_a)
    assert error.value.field == "seconds"
    assert error.value.message == "La duración debe estar entre 1 segundo y 1000 años."
    assert snapshot() == before


def test_advance_in_pieces_equals_advance_at_once(world: World):
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


# --- illness ---------------------------------------------------------------------------------------------------------


def test_resisting_a_disease_protects_from_its_category_for_the_day(world: World):
    flu = Disease.objects.get(name="Gripe")
    # 1d12 + CON 8 against 8: a 1 makes 9 → resists and is protected from common diseases today.
    outcome = actions.expose(
        world.campaign_a, [world.char_a1], flu, dice_by_character={world.char_a1.pk: 1}, by=world.gm_a
    )
    assert outcome.event.details["rolls"][0]["success"] is True
    again = actions.expose(world.campaign_a, [world.char_a1], Disease.objects.get(name="Fiebre"), by=world.gm_a)
    assert again.event.details["rolls"][0]["protected"] is True
    assert not Illness.objects.filter(character=world.char_a1).exists()


def test_failing_the_resistance_check_starts_an_illness(world: World):
    # Serious against 12: CON 8 + 3 = 11 fails.
    outcome = actions.expose(
        world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 3}, by=world.gm_a
    )
    assert outcome.event.details["fell_ill"] == [world.char_a1.pk]
    illness = Illness.objects.get(character=world.char_a1)
    assert (illness.disease.name, illness.since, illness.penalty, illness.pg_per_week) == ("Peste", 0, -2, 1)


def test_a_serious_illness_costs_pg_every_week(world: World):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 3}, by=world.gm_a)
    actions.advance_clock(world.campaign_a, 7 * DAY, by=world.gm_a)
    assert reload(world.char_a1).pg == 79


def test_expose_refuses_a_retired_disease(world: World):
    retired = Disease.objects.create(name="Vieja", category="common", penalty=-1, retired=True)
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.expose(world.campaign_a, [world.char_a1], retired, by=world.gm_a)
    assert (error.value.field, error.value.message) == ("disease", "Esa enfermedad no está disponible en esta campaña.")
    assert snapshot() == before


def test_expose_refuses_another_campaigns_disease(world: World):
    foreign = Disease.objects.create(name="Ajena", category="common", penalty=-1, campaign=world.campaign_b)
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.expose(world.campaign_a, [world.char_a1], foreign, by=world.gm_a)
    assert (error.value.field, error.value.message) == ("disease", "Esa enfermedad no está disponible en esta campaña.")
    assert snapshot() == before


def test_expose_refuses_a_typed_die_out_of_range(world: World):
    before = snapshot()
    with pytest.raises(ActionError) as error:
        actions.expose(
            world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 13}, by=world.gm_a
        )
    assert (error.value.field, error.value.message) == ("die", "Aldara: El dado debe estar entre 1 y 12.")
    assert snapshot() == before


def test_a_serious_illness_needs_treatment_and_medicine(world: World, healer: Character):
    illness = fall_ill(world, world.char_a1, plague())
    outcome = actions.treat_illness(world.campaign_a, world.char_a1, illness, healer, by=world.gm_a)
    assert outcome.event.details["cured"] is False
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    outcome = actions.medicate(world.campaign_a, world.char_a1, illness, by=world.gm_a)
    assert outcome.event.details["cured"] is True
    illness.refresh_from_db()
    assert illness.cured_at == DAY


def test_a_common_illness_is_cured_by_medicine_alone(world: World):
    illness = fall_ill(world, world.npc_a, Disease.objects.get(name="Gripe"))
    outcome = actions.medicate(world.campaign_a, world.npc_a, illness, by=world.gm_a)
    assert outcome.event.details["cured"] is True
    illness.refresh_from_db()
    assert (illness.medicated, illness.cured_at) == (True, 0)


def test_treat_wounds_halves_recovery(world: World, healer: Character):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    actions.treat_wounds(world.campaign_a, world.char_a1, healer, by=world.gm_a)
    assert Wound.objects.get(character=world.char_a1).treated
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    assert reload(world.char_a1).pg == 78


def test_a_healer_may_treat_their_own_wounds(world: World, healer: Character):
    actions.apply_damage(world.campaign_a, [healer], Attack(amount=4), by=world.gm_a)
    outcome = actions.treat_wounds(world.campaign_a, healer, healer, by=world.gm_a)
    assert outcome.event.details["healer"] == healer.pk
    assert Wound.objects.get(character=healer).treated
