"""Unit tests for rules/engine.py: every table row in docs/rules.md and each rule about recovery, illness and death."""

import pytest

from rules.engine import (
    DAY,
    DEFAULT_FALL_DIFFICULTY,
    EXERTION_DIFFICULTY,
    HOUR,
    CheckResult,
    Health,
    Illness,
    Penalties,
    Refused,
    Wound,
    advance,
    apply_wound,
    check,
    collision_damage,
    drowning_damage,
    exertion_check,
    expose,
    fall,
    fall_damage,
    gas_damage,
    max_pg,
    medicate,
    penalties,
    penalty_parts,
    roll_check,
    treat_illness,
    treat_wounds,
)

# The built-in diseases of docs/rules.md §5: name -> (category, penalty, PG per week).
from tests.rules.engine_states import disease, fall_ill, wounded


@pytest.mark.parametrize(("constitution", "expected"), [(1, 10), (8, 80), (30, 300)])
def test_max_pg_is_ten_times_constitution(constitution, expected):
    assert max_pg(constitution) == expected
    assert Health(constitution).max_pg == expected
    assert Health(constitution).pg == expected


@pytest.mark.parametrize("constitution", [0, 31, -1, 8.0, True, "8"])
def test_constitution_out_of_range_is_refused(constitution):
    with pytest.raises(ValueError):
        max_pg(constitution)
    with pytest.raises(ValueError):
        Health(constitution)


def test_pg_never_below_zero():
    health = wounded(1, Wound("attack", 25))
    assert health.damage == 25
    assert health.pg == 0


# --- section 2: damage --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("speed", "weight", "expected"),
    [(0, 0, 0), (9, 9, 0), (10, 10, 2), (59.9, 72.5, 5 + 7), (120, 80, 12 + 8), (19.99, 9.99, 1)],
)
def test_collision_damage_floors_each_term(speed, weight, expected):
    assert collision_damage(speed, weight) == expected


@pytest.mark.parametrize(
    ("height", "weight", "expected"),
    [(0, 0, 0), (0.99, 9.9, 0), (1, 10, 2), (3.99, 70, 3 + 7), (12, 85.5, 12 + 8)],
)
def test_fall_damage_floors_each_term(height, weight, expected):
    assert fall_damage(height, weight) == expected


@pytest.mark.parametrize(("turns", "drowning", "gas"), [(0, 0, 0), (1, 2, 1), (7, 14, 7)])
def test_drowning_two_per_turn_gas_one_per_turn(turns, drowning, gas):
    assert drowning_damage(turns) == drowning
    assert gas_damage(turns) == gas


@pytest.mark.parametrize(
    "call",
    [
        lambda: collision_damage(-1, 70),
        lambda: collision_damage(10, -0.5),
        lambda: collision_damage(float("nan"), 70),
        lambda: collision_damage("10", 70),
        lambda: fall_damage(-1, 70),
        lambda: fall_damage(3, float("inf")),
        lambda: drowning_damage(-1),
        lambda: drowning_damage(1.5),
        lambda: gas_damage(-3),
    ],
)
def test_bad_damage_inputs_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_wound_of_zero_pg_and_wound_at_zero_pg_are_recorded():
    health = apply_wound(Health(5), Wound("attack", 0))
    assert len(health.wounds) == 1 and health.pg == 50 and not health.dead

    dead = apply_wound(Health(1, now=500), Wound("attack", 10))
    assert dead.pg == 0 and dead.died_at == 500
    later = apply_wound(advance(dead, 100), Wound("gas", 3))
    assert len(later.wounds) == 2 and later.pg == 0 and later.died_at == 500
    assert later.wounds[-1].inflicted_at == 600


def test_wound_is_stamped_with_the_current_second():
    health = apply_wound(Health(5, now=1234), Wound("attack", 2, inflicted_at=99))
    assert health.wounds == (Wound("attack", 2, inflicted_at=1234),)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Wound("bite", 1),
        lambda: Wound("attack", -1),
        lambda: Wound("attack", 1.0),
        lambda: Illness("deadly", -1),
        lambda: Illness("common", 1),
        lambda: Illness("serious", -2, 0),
        lambda: Illness("common", -1, 2),
        lambda: Health(5, now=-1),
        lambda: Health(5, progress={"attack": -1}),
        lambda: Health(5, progress={"bite": 1}),
        lambda: Health(5, wounds=["attack"]),
    ],
)
def test_bad_state_is_refused(make):
    with pytest.raises(ValueError):
        make()


# --- section 3: checks --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "modifier", "difficulty", "success"),
    [(6, 6, 12, True), (5, 6, 12, False), (1, 0, 1, True), (20, -9, 12, False), (20, -8, 12, True)],
)
def test_check_succeeds_when_total_reaches_difficulty(die, modifier, difficulty, success):
    assert check(die, modifier, difficulty) is success


def test_roll_check_keeps_every_part():
    result = roll_check(7, 12, 5, [("pg", -2), ("illness:Gripe", -2)], 8)
    assert result == CheckResult(7, 12, 5, (("pg", -2), ("illness:Gripe", -2)), 8, 8, True)


@pytest.mark.parametrize(("die", "sides"), [(0, 12), (13, 12), (21, 20), (-1, 20), (2.0, 12), (True, 12)])
def test_roll_check_refuses_impossible_dice(die, sides):
    with pytest.raises(ValueError):
        roll_check(die, sides, 5, (), 12)


# --- section 4: penalties, exertion, death ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pg", "expected"),
    [
        (300, Penalties(0, 0, False)),
        (11, Penalties(0, 0, False)),
        (10, Penalties(-2, 0, False)),
        (9, Penalties(-2, 0, False)),
        (8, Penalties(-2, -2, False)),
        (7, Penalties(-2, -2, False)),
        (6, Penalties(-4, -2, False)),
        (5, Penalties(-4, -2, False)),
        (4, Penalties(-4, -4, True)),
        (3, Penalties(-4, -4, True)),
        (2, Penalties(-6, -6, True)),
        (1, Penalties(-6, -6, True)),
        (0, Penalties(dead=True)),
    ],
)
def test_penalty_table(pg, expected):
    assert penalties(pg) == expected
    assert penalties(pg).dead is (pg == 0)


def test_penalties_refuse_negative_pg():
    with pytest.raises(ValueError):
        penalties(-1)


def test_health_penalties_add_low_pg_and_every_uncured_illness():
    health = wounded(1, Wound("attack", 2))  # 8 PG: -2 / -2
    health = fall_ill(fall_ill(health, "Gripe"), "Resfrío común")
    assert health.penalties == Penalties(-5, -5, False)
    assert penalty_parts(health, "physical") == (("pg", -2), ("illness:Gripe", -2), ("illness:Resfrío común", -1))
    cured = medicate(health, "gripe")
    assert cured.penalties == Penalties(-3, -3, False)


def test_exertion_check_against_twelve_with_other_penalties():
    health = wounded(5, Wound("attack", 46))  # 4 PG: other -4, exertion required
    assert health.penalties.exertion
    same, result = exertion_check(health, 11)  # 11 + 5 - 4 = 12
    assert result.success and result.total == EXERTION_DIFFICULTY and same == health
    assert result.penalties == (("pg", -4),)
    after, result = exertion_check(health, 10)
    assert not result.success
    assert after.wounds[-1] == Wound("exertion", 1)
    assert after.pg == 3


def test_failed_exertion_at_one_pg_kills():
    health = wounded(1, Wound("attack", 9), now=70)
    after, result = exertion_check(health, 1)
    assert not result.success and after.dead and after.died_at == 70


def test_death_when_pg_reaches_zero_exactly():
    health = wounded(2, Wound("collision", 19), now=DAY)
    assert not health.dead
    health = advance(health, HOUR)
    assert health.progress_of("collision") == HOUR
    dead = apply_wound(health, Wound("attack", 1))
    assert dead.pg == 0 and dead.died_at == DAY + HOUR and dead.penalties.dead
    assert dead.progress == ()  # the dead recover nothing, so no progress is kept


@pytest.mark.parametrize(
    "act",
    [
        lambda dead: exertion_check(dead, 12),
        lambda dead: fall(dead, 3, 70, 10, 5),
        lambda dead: expose(dead, disease("Gripe"), 1),
        lambda dead: treat_wounds(dead),
        lambda dead: treat_illness(dead, "peste"),
        lambda dead: medicate(dead, "peste"),
    ],
    ids=["exertion", "fall", "expose", "treat_wounds", "treat_illness", "medicate"],
)
def test_dead_character_refuses_checks_and_care(act):
    dead = apply_wound(fall_ill(Health(1), "Peste"), Wound("attack", 10))
    assert dead.dead
    with pytest.raises(Refused) as refused:
        act(dead)
    assert refused.value.reason == "dead"


# --- falls --------------------------------------------------------------------------------------------------------


def test_fall_check_is_a_physical_roll_against_the_gm_difficulty():
    health = wounded(2, Wound("attack", 10))  # 10 PG: physical -2, other 0
    same, result = fall(health, 4.5, 72, die=11, jump_skill=3)  # 11 + 3 - 2 = 12
    assert result.success and same == health and result.difficulty == DEFAULT_FALL_DIFFICULTY
    after, result = fall(health, 4.5, 72, die=10, jump_skill=3)
    assert not result.success and result.total == 11
    assert after.wounds[-1] == Wound("fall", 4 + 7)
    _, result = fall(health, 4.5, 72, die=10, jump_skill=3, difficulty=11)
    assert result.success


def test_failed_fall_of_zero_pg_is_still_recorded():
    after, result = fall(Health(5), 0.5, 9, die=1, jump_skill=0)
    assert not result.success and after.wounds == (Wound("fall", 0),)


@pytest.mark.parametrize(("die", "skill"), [(0, 3), (21, 3), (10, -1), (10, 31)])
def test_fall_refuses_bad_die_or_skill(die, skill):
    with pytest.raises(ValueError):
        fall(Health(5), 3, 70, die, skill)
