"""The engine against docs/rules.md §§5 and 6: illness, recovery, death inside an advance, and state values."""

import dataclasses

import pytest

from rules.engine import (
    DAY,
    HOUR,
    KINDS,
    MINUTE,
    RESISTANCE_DIFFICULTY,
    REST_ONLY,
    WEEK,
    Health,
    Illness,
    Penalties,
    Refused,
    Wound,
    advance,
    apply_wound,
    expose,
    medicate,
    recovery_interval,
    treat_illness,
    treat_wounds,
)

# The built-in diseases of docs/rules.md §5: name -> (category, penalty, PG per week).
from tests.rules.engine_states import DISEASES, amounts, disease, fall_ill, wounded


@pytest.mark.parametrize("name", DISEASES)
def test_resistance_check_difficulty_by_category(name):
    category = DISEASES[name][0]
    difficulty = RESISTANCE_DIFFICULTY[category]
    health = Health(5)
    safe, result = expose(health, disease(name), difficulty - 5)
    assert result.success and result.difficulty == difficulty and result.sides == 12
    assert safe.illnesses == () and safe.is_protected(category)
    ill, result = expose(health, disease(name), difficulty - 6)
    assert not result.success
    assert ill.illnesses == (dataclasses.replace(disease(name), since=0),)
    assert ill.penalties.physical == ill.penalties.other == DISEASES[name][1]


def test_resistance_check_takes_other_penalties():
    health = wounded(5, Wound("attack", 43))  # 7 PG: other -2
    _, result = expose(health, disease("Gripe"), 5)  # 5 + 5 - 2 = 8
    assert result.success and result.penalties == (("pg", -2),)
    _, result = expose(health, disease("Gripe"), 4)
    assert not result.success


def test_a_days_protection_covers_the_category_until_midnight():
    health = Health(5, now=3 * DAY + 10 * HOUR)
    health, result = expose(health, disease("Gripe"), 12)
    assert result.success
    # Another common disease the same day: no roll at all.
    same, result = expose(advance(health, 13 * HOUR), disease("Fiebre"), None)
    assert result is None and same.illnesses == ()
    # A serious disease is another category: it needs its own roll.
    with pytest.raises(ValueError):
        expose(health, disease("Peste"), None)
    _, result = expose(health, disease("Peste"), 1)
    assert result is not None and not result.success
    # From 00:00 the next day the protection is over.
    next_day = advance(health, 14 * HOUR)
    assert next_day.now == 4 * DAY and not next_day.is_protected("common")
    _, result = expose(next_day, disease("Fiebre"), 1)
    assert result is not None and not result.success


def test_protection_is_kept_per_category_and_only_for_today():
    health = Health(5, protection=(("common", 0), ("serious", 1)), now=2 * DAY)
    assert not health.is_protected("common") and not health.is_protected("serious")
    health, _ = expose(health, disease("Gripe"), 12)
    health, _ = expose(health, disease("Peste"), 12)
    assert health.protection == (("common", 2), ("serious", 2))
    assert health.is_protected("common") and health.is_protected("serious")


def test_exposure_while_already_ill_with_that_disease_changes_nothing():
    ill = fall_ill(Health(5), "Peste")
    again, result = expose(advance(ill, DAY), disease("Peste"), 1)
    assert not result.success and again == advance(ill, DAY)
    other = fall_ill(ill, "Tuberculosis")
    assert [i.name for i in other.illnesses] == ["Peste", "Tuberculosis"]


def test_exposure_after_a_cure_starts_a_new_episode():
    ill = fall_ill(Health(5), "Gripe")
    cured = medicate(advance(ill, DAY), "gripe")
    again = fall_ill(advance(cured, DAY), "Gripe")
    assert [(i.since, i.cured) for i in again.illnesses] == [(0, True), (2 * DAY, False)]
    assert again.penalties.other == -2


@pytest.mark.parametrize("name", ["Resfrío común", "Fiebre", "Gripe"])
@pytest.mark.parametrize("care", [treat_illness, medicate])
def test_common_illness_is_cured_by_either_treatment_or_medicine(name, care):
    ill = advance(fall_ill(Health(5), name), HOUR)
    cured = care(ill, name.lower())
    assert cured.illnesses[0].cured and cured.illnesses[0].cured_at == HOUR
    assert cured.penalties == Penalties()


@pytest.mark.parametrize("name", ["Peste", "Tuberculosis"])
@pytest.mark.parametrize(("first", "second"), [(treat_illness, medicate), (medicate, treat_illness)])
def test_serious_illness_needs_both_in_either_order(name, first, second):
    ill = fall_ill(Health(10), name)
    half = first(advance(ill, DAY), 0)
    assert not half.illnesses[0].cured and half.penalties.other == -2
    later = advance(half, 3 * DAY)
    done = second(later, name.lower())
    assert done.illnesses[0].cured and done.illnesses[0].cured_at == 4 * DAY
    assert done.penalties == Penalties()
    # The weekly loss stopped at the cure.
    assert advance(done, 10 * WEEK, resting=False).damage == 0


def test_care_for_an_unknown_illness_is_an_error_not_a_refusal():
    ill = fall_ill(Health(10), "Peste")
    for call in (lambda: treat_illness(ill, "gripe"), lambda: medicate(ill, 3), lambda: medicate(ill, True)):
        with pytest.raises(ValueError) as error:
            call()
        assert not isinstance(error.value, Refused)


def test_care_refuses_what_was_already_given():
    ill = fall_ill(Health(10), "Peste")
    treated = treat_illness(ill, "peste")
    with pytest.raises(Refused) as refused:
        treat_illness(treated, "peste")
    assert refused.value.reason == "treated"
    medicated = medicate(ill, "peste")
    with pytest.raises(Refused) as refused:
        medicate(medicated, "peste")
    assert refused.value.reason == "medicated"


@pytest.mark.parametrize("care", [treat_illness, medicate])
def test_care_refuses_a_cured_illness(care):
    cured = medicate(treat_illness(fall_ill(Health(10), "Peste"), "peste"), "peste")
    with pytest.raises(Refused) as refused:
        care(cured, "peste")
    assert refused.value.reason == "cured"


@pytest.mark.parametrize(("name", "per_week"), [("Peste", 1), ("Tuberculosis", 2)])
def test_serious_illness_loses_at_every_full_week_rest_or_not(name, per_week):
    ill = fall_ill(Health(10, now=5 * HOUR), name)
    almost = advance(ill, WEEK - 1, resting=False)
    assert almost.damage == 0
    one = advance(almost, 1, resting=False)
    assert one.wounds == (Wound("illness", per_week, inflicted_at=WEEK + 5 * HOUR, illness_key=name.lower()),)
    assert one.illnesses[0].weeks_charged == 1
    three = advance(ill, 3 * WEEK + 2 * DAY, resting=True)
    assert three.damage == 3 * per_week
    assert [w.inflicted_at for w in three.wounds] == [k * WEEK + 5 * HOUR for k in (1, 2, 3)]


def test_common_illness_costs_no_pg():
    ill = fall_ill(Health(5), "Gripe")
    assert advance(ill, 20 * WEEK).damage == 0


def test_illness_pg_recover_only_after_the_cure():
    ill = advance(fall_ill(Health(10), "Peste"), 2 * WEEK)
    assert amounts(ill, "illness") == [1, 1]
    waiting = advance(ill, 3 * DAY)
    assert amounts(waiting, "illness") == [1, 1]  # still ill: no recovery, even resting
    cured = medicate(treat_illness(waiting, "peste"), "peste")
    assert advance(cured, DAY - 1).damage == 2
    assert amounts(advance(cured, DAY), "illness") == [0, 1]
    assert advance(cured, 2 * DAY).damage == 0
    assert advance(cured, 2 * DAY, resting=False).damage == 2  # illness recovery needs rest
    # Treated illness wounds recover in half the time.
    treated = treat_wounds(cured)
    assert amounts(advance(treated, 12 * HOUR), "illness") == [0, 1]


def test_a_new_episode_does_not_hold_back_the_old_episodes_wounds():
    ill = advance(fall_ill(Health(10), "Peste"), WEEK)
    cured = medicate(treat_illness(ill, "peste"), "peste")
    again = fall_ill(cured, "Peste")
    assert amounts(advance(again, DAY), "illness") == [0]


def test_illness_wound_of_an_unknown_illness_recovers():
    health = Health(5, wounds=(Wound("illness", 2, illness_key="gone"),))
    assert advance(health, 2 * DAY).damage == 0


# --- section 6: recovery ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "untreated", "treated"),
    [
        ("attack", DAY, 12 * HOUR),
        ("collision", 2 * DAY, DAY),
        ("fall", 2 * DAY, DAY),
        ("drowning", MINUTE, 30),
        ("gas", HOUR, 30 * MINUTE),
        ("illness", DAY, 12 * HOUR),
        ("exertion", DAY, 12 * HOUR),
    ],
)
def test_recovery_interval_table(kind, untreated, treated):
    assert recovery_interval(kind) == untreated
    assert recovery_interval(kind, treated=True) == treated
    # And advance follows it exactly, treated or not.
    for wound, interval in ((Wound(kind, 2), untreated), (Wound(kind, 2, treated=True), treated)):
        health = Health(5, wounds=(wound,))
        assert advance(health, interval - 1).damage == 2
        assert advance(health, interval).damage == 1
        assert advance(health, 2 * interval).damage == 0


def test_unknown_kind_has_no_interval():
    with pytest.raises(ValueError):
        recovery_interval("bite")


def test_rest_only_kinds():
    assert set(KINDS) - REST_ONLY == {"drowning", "gas"}


@pytest.mark.parametrize("kind", KINDS)
def test_only_drowning_and_gas_recover_without_rest(kind):
    health = Health(5, wounds=(Wound(kind, 1),))
    recovered = advance(health, recovery_interval(kind), resting=False).damage == 0
    assert recovered is (kind not in REST_ONLY)


def test_kinds_recover_at_the_same_time():
    health = wounded(5, Wound("attack", 2), Wound("collision", 2), Wound("drowning", 30), Wound("gas", 3))
    after = advance(health, 2 * DAY)
    assert (amounts(after, "attack"), amounts(after, "collision"), amounts(after, "drowning")) == ([0], [1], [0])
    assert amounts(after, "gas") == [0]


def test_one_pool_per_kind_oldest_first_at_most_one_pg_per_interval():
    health = wounded(5, Wound("attack", 3))
    health = apply_wound(advance(health, HOUR), Wound("attack", 2))
    after = advance(health, 3 * DAY - HOUR)
    assert amounts(after, "attack") == [0, 2]
    assert amounts(advance(after, DAY), "attack") == [0, 1]


def test_pool_order_is_by_time_not_list_order():
    health = Health(5, wounds=(Wound("fall", 1, inflicted_at=50), Wound("fall", 1, inflicted_at=10)), now=60)
    assert amounts(advance(health, 2 * DAY), "fall") == [1, 0]


def test_progress_carries_over_between_advances():
    health = wounded(5, Wound("attack", 2))
    split = advance(advance(health, 10 * HOUR), 14 * HOUR)
    assert split == advance(health, DAY)
    assert amounts(split, "attack") == [1] and split.progress == ()
    assert advance(health, 10 * HOUR).progress_of("attack") == 10 * HOUR


def test_progress_is_frozen_while_not_resting():
    health = advance(wounded(5, Wound("attack", 2)), 10 * HOUR)
    awake = advance(health, 3 * DAY, resting=False)
    assert awake.progress_of("attack") == 10 * HOUR and awake.damage == 2
    assert advance(awake, 14 * HOUR).damage == 1


def test_the_next_wound_in_a_pool_starts_from_zero():
    health = advance(wounded(5, Wound("attack", 1), Wound("attack", 1)), 10 * HOUR)
    after = advance(health, 14 * HOUR + DAY - 1)
    assert amounts(after, "attack") == [0, 1] and after.progress_of("attack") == DAY - 1
    assert amounts(advance(after, 1), "attack") == [0, 0]


def test_treatment_halves_the_remaining_time_and_keeps_the_fraction_done():
    health = advance(wounded(5, Wound("attack", 2)), 6 * HOUR)  # a quarter of a day done
    treated = treat_wounds(health)
    assert treated.progress_of("attack") == 3 * HOUR  # a quarter of 12 hours
    assert all(wound.treated for wound in treated.wounds)
    assert advance(treated, 9 * HOUR - 1).damage == 2
    assert advance(treated, 9 * HOUR).damage == 1
    assert advance(treated, 21 * HOUR).damage == 0


def test_treatment_applies_only_to_wounds_present_at_that_moment():
    health = treat_wounds(wounded(5, Wound("attack", 1)))
    health = apply_wound(health, Wound("attack", 1))
    assert [w.treated for w in health.wounds] == [True, False]
    assert advance(health, 12 * HOUR).damage == 1
    assert advance(health, 12 * HOUR + DAY - 1).damage == 1
    assert advance(health, 12 * HOUR + DAY).damage == 0


def test_odd_progress_rounds_down_when_halved():
    health = advance(wounded(5, Wound("drowning", 3)), 59)
    assert treat_wounds(health).progress_of("drowning") == 29


def test_progress_resets_when_the_pool_empties():
    health = advance(wounded(5, Wound("attack", 1)), DAY + 20 * HOUR)
    assert health.damage == 0 and health.progress == ()
    again = apply_wound(health, Wound("attack", 1))
    assert advance(again, DAY - 1).damage == 1
    assert advance(again, DAY).damage == 0


def test_a_cure_can_put_an_older_treated_wound_at_the_head():
    # Illness wound from Peste (treated) is older than an illness wound of an unknown illness that is healing now.
    ill = advance(fall_ill(Health(10), "Peste"), WEEK)
    ill = treat_wounds(ill)
    health = apply_wound(ill, Wound("illness", 1, illness_key="other"))
    health = advance(health, 20 * HOUR)
    assert health.progress_of("illness") == 20 * HOUR
    cured = medicate(treat_illness(health, "peste"), "peste")
    # The Peste wound is older and treated: 20 of 24 hours becomes 10 of 12.
    assert cured.progress_of("illness") == 10 * HOUR
    after = advance(cured, 2 * HOUR)
    assert [w.amount for w in after.wounds] == [0, 1]


def test_advance_zero_changes_nothing_and_negative_is_refused():
    health = advance(wounded(5, Wound("attack", 3), Wound("gas", 2)), 5 * HOUR + 7)
    assert advance(health, 0) == health
    with pytest.raises(ValueError):
        advance(health, -1)


def test_advance_leaves_its_argument_unchanged():
    health = wounded(5, Wound("attack", 3))
    copy = dataclasses.replace(health)
    advance(health, 5 * DAY)
    assert health == copy


def test_a_quiet_year_and_a_long_illness():
    health = wounded(30, Wound("attack", 200), Wound("collision", 50), Wound("drowning", 40))
    assert advance(health, 365 * DAY).damage == 0
    sick = Health(30, illnesses=(disease("Peste"),))  # CON 30 cannot fail the roll, so the state is built
    dead = advance(sick, 100 * 365 * DAY, resting=False)
    assert dead.died_at == 300 * WEEK and dead.now == 100 * 365 * DAY
    assert len(dead.wounds) == 300


# --- death during an advance --------------------------------------------------------------------------------------


def test_death_mid_advance_stops_everything():
    health = fall_ill(wounded(1, Wound("attack", 8), Wound("gas", 1)), "Tuberculosis")  # 1 PG
    dead = advance(health, 3 * WEEK, resting=False)
    assert dead.dead and dead.died_at == WEEK and dead.now == 3 * WEEK
    assert dead.illnesses[0].weeks_charged == 1 and amounts(dead, "illness") == [2]
    assert amounts(dead, "attack") == [8] and amounts(dead, "gas") == [0]
    assert dead.progress == ()
    assert advance(advance(health, WEEK, resting=False), 2 * WEEK, resting=False) == dead
    # A dead character only moves in time.
    assert advance(dead, 5 * WEEK) == dataclasses.replace(dead, now=8 * WEEK)


def test_rest_can_outpace_an_illness():
    health = fall_ill(wounded(1, Wound("attack", 8)), "Tuberculosis")
    alive = advance(health, 3 * WEEK)
    # The attack healed while the illness wounds wait for the cure.
    assert not alive.dead and amounts(alive, "attack") == [0] and alive.pg == 10 - 3 * 2
    assert amounts(alive, "illness") == [2, 2, 2]


def test_at_the_same_instant_losses_come_before_recoveries():
    health = advance(fall_ill(Health(1), "Tuberculosis"), WEEK - MINUTE)
    health = apply_wound(health, Wound("drowning", 8))  # 2 PG; 1 PG back due exactly at the weekly loss
    dead = advance(health, MINUTE)
    assert dead.died_at == WEEK and amounts(dead, "drowning") == [8]
    assert advance(health, 10 * MINUTE) == dataclasses.replace(dead, now=WEEK + 9 * MINUTE)


def test_losses_come_first_even_after_several_recoveries_in_the_same_advance():
    health = advance(fall_ill(Health(1), "Tuberculosis"), WEEK - 2 * MINUTE)
    health = apply_wound(health, Wound("drowning", 9))  # 1 PG; back to 2 at WEEK - 1 min, 3 at WEEK: too late
    dead = advance(health, 5 * MINUTE)
    assert dead.died_at == WEEK and amounts(dead, "drowning") == [8]


def test_a_recovery_one_second_earlier_saves_the_character():
    health = advance(fall_ill(Health(1), "Tuberculosis"), WEEK - MINUTE - 1)
    health = apply_wound(health, Wound("drowning", 8))
    alive = advance(health, MINUTE + 1)
    assert not alive.dead and alive.pg == 1


def test_state_with_zero_pg_but_no_death_dies_on_the_next_advance():
    health = Health(1, wounds=(Wound("attack", 10),), now=40)
    assert advance(health, 5) == dataclasses.replace(health, now=45, died_at=40)


# --- state values -------------------------------------------------------------------------------------------------


def test_health_accepts_lists_and_normalises_progress():
    health = Health(5, wounds=[Wound("attack", 1)], progress={"gas": 0, "attack": 5}, protection=[("common", 2)])
    assert health == Health(5, wounds=(Wound("attack", 1),), progress=(("attack", 5),), protection=(("common", 2),))
    assert hash(health) == hash(
        Health(5, wounds=(Wound("attack", 1),), progress=(("attack", 5),), protection=(("common", 2),))
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        health.now = 3


def test_healing_time_per_pool():
    from rules.engine import healing_time

    health = Health(8, [Wound("attack", 3), Wound("gas", 2, treated=True)])
    assert healing_time(health, "attack") == 3 * DAY
    assert healing_time(health, "gas") == 2 * 1800
    assert healing_time(health, "fall") == 0
    later = advance(health, DAY + 5)
    assert healing_time(later, "attack") == 2 * DAY - 5
    ill = Health(
        8,
        [Wound("illness", 2, inflicted_at=WEEK, illness_key="peste")],
        [Illness("serious", -2, 1, name="Peste", key="peste", since=0)],
        now=WEEK,
    )
    assert healing_time(ill, "illness") is None
