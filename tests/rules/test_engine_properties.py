"""Properties of rules/engine.py over random states built only through its own actions."""

import copy
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.engine import (
    DAY,
    HOUR,
    KINDS,
    MINUTE,
    WEEK,
    Health,
    Illness,
    Refused,
    Wound,
    advance,
    apply_wound,
    exertion_check,
    expose,
    fall,
    medicate,
    recovery_interval,
    treat_illness,
    treat_wounds,
)
from tests.examples import examples

DISEASES = (
    Illness("common", -1, name="Resfrío común", key="cold"),
    Illness("common", -2, name="Gripe", key="flu"),
    Illness("serious", -2, 1, name="Peste", key="plague"),
    Illness("serious", -2, 2, name="Tuberculosis", key="tb"),
    Illness("serious", -3, 3, name="Homebrew"),  # no key: identity falls back to the name
)

# Durations that land on the rules' own boundaries as well as anywhere between them.
ROUND = (30, MINUTE, 30 * MINUTE, HOUR, 12 * HOUR, DAY, 2 * DAY, WEEK)
seconds = st.one_of(
    st.sampled_from(ROUND),
    st.builds(lambda n, unit: n * unit, st.integers(0, 9), st.sampled_from(ROUND)),
    st.integers(0, 3 * MINUTE),
    st.integers(0, 3 * DAY),
    st.integers(0, 5 * WEEK),
)

operations = st.one_of(
    # Small wounds more often, so that pools empty and hand over to the next wound mid-advance.
    st.tuples(st.just("wound"), st.sampled_from(KINDS), st.one_of(st.integers(0, 3), st.integers(0, 30))),
    st.tuples(st.just("expose"), st.sampled_from(DISEASES), st.integers(1, 12)),
    st.tuples(st.just("treat_wounds")),
    st.tuples(st.just("treat_illness"), st.integers(0, 3)),
    st.tuples(st.just("medicate"), st.integers(0, 3)),
    st.tuples(st.just("advance"), seconds, st.booleans()),
    st.tuples(st.just("exertion"), st.integers(1, 12)),
    st.tuples(st.just("fall"), st.floats(0, 20), st.integers(40, 120), st.integers(1, 20), st.integers(0, 10)),
)


CARE = ("treat_illness", "medicate")
NEEDS_LIFE = ("expose", "treat_wounds", "treat_illness", "medicate", "exertion", "fall")


def perform(health: Health, name: str, args: list) -> Health:
    match name:
        case "wound":
            return apply_wound(health, Wound(args[0], args[1]))
        case "expose":
            return expose(health, args[0], args[1])[0]
        case "treat_wounds":
            return treat_wounds(health)
        case "treat_illness":
            return treat_illness(health, args[0])
        case "medicate":
            return medicate(health, args[0])
        case "advance":
            return advance(health, args[0], resting=args[1])
        case "exertion":
            return exertion_check(health, args[0])[0]
        case "fall":
            return fall(health, args[0], args[1], args[2], args[3])[0]
    raise AssertionError(name)


def expected_refusal(health: Health, name: str, args: list) -> str | None:
    """The reason the rules must refuse this operation in this state (engine.REFUSALS), or None if they must not."""
    if health.dead and name in NEEDS_LIFE:
        return "dead"
    if name == "exertion" and not 1 <= health.pg <= 4:
        return "exertion"
    if name in CARE:
        illness = health.illnesses[args[0]]
        if illness.cured:
            return "cured"
        if name == "treat_illness" and illness.treated:
            return "treated"
        if name == "medicate" and illness.medicated:
            return "medicated"
    return None


def run(health: Health, operation: tuple) -> Health:
    """Apply one operation. What the rules refuse (a dead character, care already given) must be refused with that
    reason and leave the state as it was; any other error is a bug and fails the test."""
    name, *args = operation
    if name in CARE:
        if not health.illnesses:
            return health  # nothing to care for: not a call the game would make
        args = [args[0] % len(health.illnesses)]  # one of the character's illnesses, never an index out of range
    reason = expected_refusal(health, name, args)
    if reason is None:
        return perform(health, name, args)
    with pytest.raises(Refused) as refused:
        perform(health, name, args)
    assert refused.value.reason == reason, (operation, str(refused.value))
    return health


@st.composite
def healths(draw) -> Health:
    start = draw(st.one_of(st.just(0), st.integers(0, 10).map(lambda n: n * DAY), st.integers(0, 4 * WEEK)))
    health = Health(draw(st.integers(1, 8)), now=start)
    for operation in draw(st.lists(operations, max_size=20)):
        health = run(health, operation)
    return health


common = settings(max_examples=examples(150), deadline=None)


@common
@given(healths(), seconds, seconds, st.booleans())
def test_advancing_in_two_steps_equals_one_step(health, a, b, resting):
    assert advance(advance(health, a, resting), b, resting) == advance(health, a + b, resting)


@settings(max_examples=examples(60), deadline=None)
@given(healths(), st.lists(seconds, min_size=2, max_size=6), st.booleans())
def test_advancing_in_many_steps_equals_one_step(health, pieces, resting):
    stepwise = health
    for piece in pieces:
        stepwise = advance(stepwise, piece, resting)
    assert stepwise == advance(health, sum(pieces), resting)


@common
@given(healths(), seconds, st.booleans())
def test_pg_stays_between_zero_and_max(health, duration, resting):
    for state in (health, advance(health, duration, resting)):
        assert 0 <= state.pg <= state.max_pg
        assert state.dead is (state.pg == 0)


@common
@given(healths(), seconds, st.booleans())
def test_only_an_uncured_serious_illness_lowers_pg_over_time(health, duration, resting):
    after = advance(health, duration, resting)
    if not any(illness.category == "serious" for illness in health.sick):
        assert after.pg >= health.pg
        assert after.illnesses == health.illnesses


@common
@given(healths(), seconds)
def test_rest_never_leaves_a_character_worse_off(health, duration):
    assert advance(health, duration, resting=True).pg >= advance(health, duration, resting=False).pg


@common
@given(healths(), seconds, st.booleans())
def test_advance_leaves_its_argument_unchanged(health, duration, resting):
    before = copy.deepcopy(health)
    advance(health, duration, resting)
    assert health == before
    assert advance(health, 0, resting) == health


@common
@given(healths(), seconds, st.booleans(), st.sampled_from(KINDS), st.integers(0, 30))
def test_a_dead_character_only_moves_in_time(health, duration, resting, kind, amount):
    if not health.dead:
        health = apply_wound(health, Wound("attack", health.pg))
    assert health.dead and health.pg == 0
    assert advance(health, duration, resting) == dataclasses.replace(health, now=health.now + duration)
    wounded = apply_wound(health, Wound(kind, amount))
    assert dataclasses.replace(wounded, wounds=health.wounds) == health


@common
@given(healths(), seconds, st.booleans())
def test_progress_is_always_short_of_a_whole_pg(health, duration, resting):
    for state in (health, advance(health, duration, resting)):
        for kind, progress in state.progress:
            assert 0 < progress < recovery_interval(kind)
            assert any(wound.kind == kind and wound.amount > 0 for wound in state.wounds)


@common
@given(healths(), seconds, st.booleans())
def test_losses_and_recoveries_keep_the_record(health, duration, resting):
    after = advance(health, duration, resting)
    # Wounds are never dropped or reordered, only paid off; new ones come from illness.
    assert len(after.wounds) >= len(health.wounds)
    for old, new in zip(health.wounds, after.wounds, strict=False):
        assert dataclasses.replace(new, amount=old.amount) == old and new.amount <= old.amount
    assert all(wound.kind == "illness" for wound in after.wounds[len(health.wounds) :])


@st.composite
def pools(draw) -> Health:
    """One kind, a few small wounds, some treated, part-way through: where hand-overs inside a pool happen."""
    kind = draw(st.sampled_from(KINDS))
    interval = recovery_interval(kind)
    health = Health(8, now=draw(st.integers(0, DAY)))
    for _ in range(draw(st.integers(1, 4))):
        health = apply_wound(health, Wound(kind, draw(st.integers(0, 3))))
        if draw(st.booleans()):
            health = treat_wounds(health)
        health = advance(health, draw(st.integers(0, 2 * interval)))
    return health


@common
@given(pools(), st.data())
def test_a_pool_recovers_the_same_however_the_time_is_split(health, data):
    interval = recovery_interval(health.wounds[0].kind)
    a = data.draw(st.integers(0, 4 * interval))
    b = data.draw(st.integers(0, 4 * interval))
    assert advance(advance(health, a), b) == advance(health, a + b)


@common
@given(healths(), operations)
def test_the_engine_refuses_exactly_what_the_rules_forbid(health, operation):
    # A refusal without a reason in the rules, a missing refusal, or any other error fails here.
    after = run(health, operation)
    assert 0 <= after.pg <= after.max_pg
