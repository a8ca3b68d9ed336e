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
from rules.engine import DAY, WEEK, Health, Illness, Wound, advance, preview
from tests.helpers import snapshot, stored_health
from tests.rules.test_actions_properties import perform, refusal_expected, step
from tests.rules.test_engine_properties import healths, seconds


@settings(max_examples=150, deadline=None)
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


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
