"""Preview, then commit, a time skip: the preview is the same engine call the commit makes, it says when each wound
heals, each weekly loss falls and death comes, and a commit made after anything changed is refused."""

from dataclasses import replace

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions, engine, queries
from rules.damage import Attack
from rules.engine import DAY, HOUR, KINDS, MINUTE, WEEK, YEAR, Health, Illness, Wound, advance, preview
from tests.examples import examples
from tests.helpers import snapshot, stored_health
from tests.rules.test_actions_properties import perform, refusal_expected, step
from tests.rules.test_engine_properties import DISEASES, healths, seconds

PLAGUE = Illness("serious", -2, 1, name="Peste", key="plague")


def bisected_healed(health: Health, duration: int, resting: bool) -> tuple[tuple[int, int], ...]:
    """The reference: each wound's heal moment found by bisection on `advance` (the preview's first way, ~40 advances
    per wound healed). A wound's outstanding amount never grows inside an advance, so by the composition law the
    second it reaches 0 is the least `t` at which `advance(health, t)` shows it at 0."""
    after = advance(health, duration, resting)
    healed = []
    for index, wound in enumerate(health.wounds):
        if wound.amount and not after.wounds[index].amount:
            low, high = 0, duration  # not healed after `low` seconds, healed after `high`
            while high - low > 1:
                middle = (low + high) // 2
                if advance(health, middle, resting).wounds[index].amount:
                    low = middle
                else:
                    high = middle
            healed.append((index, health.now + high))
    return tuple(sorted(healed, key=lambda pair: (pair[1], pair[0])))


# Skips from a minute to 900 years, on the rules' boundaries and off them, so that pools empty and serious illnesses
# run their weeks out (and kill) inside the advance.
durations = st.builds(
    lambda n, unit, off: n * unit + off,
    st.integers(1, 30),
    st.sampled_from((MINUTE, HOUR, DAY, WEEK, YEAR, 30 * YEAR)),
    st.one_of(st.just(0), st.integers(0, DAY)),
)
# Time between the wounds of `wounded`: short, so that most of them are still healing when the preview starts.
pauses = st.one_of(st.just(0), st.integers(0, 2 * HOUR), st.integers(0, 2 * DAY))


@st.composite
def wounded(draw) -> Health:
    """A state from `healths` with a few more small wounds (some treated, some part-way through their recovery) and
    perhaps an illness caught on top, so that many advances heal something."""
    health = draw(healths())
    for kind, amount, treated, pause in draw(
        st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 4), st.booleans(), pauses), min_size=1, max_size=6)
    ):
        if health.dead:
            break
        health = engine.apply_wound(health, Wound(kind, amount))
        if treated and not health.dead:
            health = engine.treat_wounds(health)
        health = advance(health, pause, draw(st.booleans()))
    if draw(st.booleans()) and not health.dead:
        health = engine.expose(health, draw(st.sampled_from(DISEASES)), 1)[0]  # a 1 on the die: ill, unless protected
    return health


@settings(max_examples=examples(150), deadline=None)
@given(healths(), seconds, st.booleans())
def test_foresight_is_the_advance_and_says_when_each_wound_heals(health, duration, resting):
    seen = preview(health, duration, resting)
    assert seen.after == advance(health, duration, resting)
    for index, at in seen.healed:
        elapsed = at - health.now
        assert 0 < elapsed <= duration
        assert advance(health, elapsed, resting).wounds[index].amount == 0
        assert advance(health, elapsed - 1, resting).wounds[index].amount > 0
    assert [at for _index, at in seen.healed] == sorted(at for _index, at in seen.healed)
    assert seen.losses == seen.after.wounds[len(health.wounds) :]
    assert seen.died_at == (seen.after.died_at if health.died_at is None else None)


def test_foresight_in_numbers():
    plague = Illness("serious", -2, 1, name="Peste", key="plague")
    health = engine.apply_wound(Health(1, now=0), Wound("attack", 3))  # 10 PG max, 7 left
    health = replace(health, illnesses=(plague,))
    seen = preview(health, 3 * WEEK, resting=True)
    assert seen.healed == ((0, 3 * DAY),)  # 1 PG a day of rest
    assert [(w.inflicted_at, w.amount) for w in seen.losses] == [(WEEK, 1), (2 * WEEK, 1), (3 * WEEK, 1)]
    assert seen.died_at is None and seen.after.pg == 7
    dying = engine.apply_wound(replace(health, wounds=()), Wound("attack", 8))  # 2 PG left
    assert preview(dying, 3 * WEEK, resting=False).died_at == 2 * WEEK


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(healths(), wounded()), durations, st.booleans())
def test_the_heal_moments_are_the_ones_bisection_finds(health, duration, resting):
    seen = preview(health, duration, resting)
    assert seen.after == advance(health, duration, resting)
    assert seen.healed == bisected_healed(health, duration, resting)


@pytest.mark.parametrize(("weekly", "healed", "died_at"), [(8, ((0, WEEK),), None), (9, (), WEEK)])
def test_a_last_pg_due_when_a_weekly_loss_falls_comes_after_it(weekly, healed, died_at):
    # 10 PG, 3 left; a day of rest per PG, so the attack's 7th PG is due at the very second the first week's loss is.
    # Losses first (docs/rules.md §6): a loss of 8 leaves 1 PG and the wound heals that second; 9 kills first.
    illness = Illness("serious", -2, weekly, name="Homebrew", key="homebrew")
    health = Health(1, (Wound("attack", 7),), (illness,))
    seen = preview(health, WEEK + DAY)
    assert (seen.healed, seen.died_at) == (healed, died_at)
    assert seen.healed == bisected_healed(health, WEEK + DAY, True)


def test_wounds_that_heal_at_one_second_are_listed_by_index_and_each_pool_in_its_order():
    health = Health(
        30,
        (
            Wound("exertion", 1, inflicted_at=0),
            Wound("attack", 1, inflicted_at=0),
            Wound("attack", 2, treated=True, inflicted_at=1),  # next in its pool: 12 hours a PG once it is its turn
            Wound("gas", 2, inflicted_at=1),  # heals by breathing, long before the rest
        ),
        now=1,
    )
    assert preview(health, YEAR).healed == ((3, 1 + 2 * HOUR), (0, 1 + DAY), (1, 1 + DAY), (2, 1 + 2 * DAY))
    assert preview(health, YEAR, resting=False).healed == ((3, 1 + 2 * HOUR),)


def test_a_long_pool_heals_wound_by_wound():
    # The second goal case of issue 22: one character, 250 wounds healed in one year, a day of rest each.
    health = Health(30, tuple(Wound("attack", 1, inflicted_at=n) for n in range(250)), now=250)
    seen = preview(health, YEAR)
    assert seen.healed == tuple((n, 250 + (n + 1) * DAY) for n in range(250))
    assert seen.after == advance(health, YEAR) and seen.after.pg == 300


def test_a_preview_does_the_work_of_one_advance(monkeypatch):
    # Its cost is the advance's: the recovery schedule is stepped through once, as the advance steps through it.
    calls = []
    drain = engine._drain
    monkeypatch.setattr(engine, "_drain", lambda *args: calls.append(1) or drain(*args))
    party = [
        Health(30, tuple(Wound("attack", 1, inflicted_at=n) for n in range(250)), now=250),
        Health(12, (Wound("attack", 3), Wound("collision", 3), Wound("gas", 3)), (PLAGUE,)),
    ]
    for health in party:
        for duration in (DAY, YEAR, 1000 * YEAR):
            advance(health, duration)
            by_advance = len(calls)
            preview(health, duration)
            assert len(calls) - by_advance == by_advance > 0
            calls.clear()


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(step, max_size=8),
    duration=st.integers(1, 6 * WEEK),
    who_rests=st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_commit_gives_exactly_the_previewed_states(world, steps, duration, who_rests):
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    savepoint = transaction.savepoint_create()
    try:
        for action in steps:
            if not refusal_expected(world, action):
                perform(world, action)
        everyone = list(Character.objects.filter(campaign=world.campaign_a).order_by("id"))
        resting = [c.pk for c, rests in zip(everyone, who_rests, strict=True) if rests]
        preview = queries.preview_advance(world.campaign_a, duration, resting=resting)
        assert snapshot()[3] == Event.objects.count()  # a preview writes nothing
        actions.advance_clock(world.campaign_a, duration, resting=resting, version=preview.version, by=world.gm_a)
        for forecast in preview.characters:
            assert stored_health(forecast.character) == forecast.preview.after
            assert forecast.resting == (forecast.character.pk in resting)
    finally:
        transaction.savepoint_rollback(savepoint)


def test_a_commit_after_a_change_is_refused_and_writes_nothing(world):
    preview = queries.preview_advance(world.campaign_a, DAY)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)  # another tab
    before = snapshot()
    with pytest.raises(actions.ActionError) as refused:
        actions.advance_clock(world.campaign_a, DAY, version=preview.version, by=world.gm_a)
    assert refused.value.field == "version"
    assert snapshot() == before
    fresh = queries.preview_advance(world.campaign_a, DAY)
    assert fresh.version == Campaign.objects.get(pk=world.campaign_a.pk).version != preview.version
    actions.advance_clock(world.campaign_a, DAY, version=fresh.version, by=world.gm_a)


def test_a_preview_checks_its_input_like_the_advance(world):
    with pytest.raises(actions.ActionError):
        queries.preview_advance(world.campaign_a, 0)
    with pytest.raises(actions.ActionError):
        queries.preview_advance(world.campaign_a, DAY, resting=[world.char_b])  # another campaign's character
