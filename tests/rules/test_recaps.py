"""A stretch of the log (rules.stretches): what stood over it, per character, read from the log's own entries — and,
over random sequences of actions with undos, exactly what the stored rows say changed between its two ends."""

from collections import Counter, defaultdict

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions, queries
from rules.damage import Attack, Fall
from rules.models import CheckKind, Disease, Illness, Wound
from rules.stretches import stretch
from tests.examples import examples
from tests.helpers import World, fall_ill, plague, reload
from tests.played import nth, play_health


def latest_id(campaign: Campaign) -> int | None:
    return Event.objects.filter(campaign=campaign).order_by("-id").values_list("pk", flat=True).first()


def test_a_stretch_tells_pg_wounds_by_kind_illnesses_checks_and_time(world: World, healer: Character):
    a, gm, aldara, borin = world.campaign_a, world.gm_a, world.char_a1, world.char_a2
    actions.apply_damage(a, [aldara], Attack(amount=2), by=gm)  # before the stretch
    start = latest_id(a)
    actions.apply_damage(a, [aldara, borin], Attack(amount=3), by=gm)
    actions.apply_damage(a, [aldara], Fall(height_m=6, dice={aldara.pk: 1}), by=gm)
    tomas = world.npc_a
    illness = fall_ill(world, tomas, Disease.objects.get(name="Gripe", builtin=True))
    actions.advance_clock(a, 3600, by=gm)
    actions.medicate(a, tomas, illness, by=gm)
    end = latest_id(a)
    actions.apply_damage(a, [borin], Attack(amount=1), by=gm)  # after it

    found = stretch(reload_campaign(a), start, end)

    assert found.seconds == 3600 and found.entries == 5
    assert [row.name for row in found.characters] == ["Aldara", "Borin", "Tomás"]
    first, second, third = found.characters
    assert (first.pg_start, first.pg_end) == (reload(aldara).max_pg - 2, reload(aldara).pg)
    assert set(first.wounds) == {"attack", "fall"}
    assert (first.wounds["attack"].count, first.wounds["attack"].pg) == (1, 3)
    assert first.wounds["fall"].count == 1 and first.wounds["fall"].pg > 0
    assert [(r.check, r.die, r.success) for r in first.rolls] == [(CheckKind.FALL, 1, False)]
    assert third.caught == ["Gripe"] and third.cured == ["Gripe"]
    assert [(r.check, r.die) for r in third.rolls] == [(CheckKind.RESISTANCE, 1)]
    assert (second.pg_start, second.pg_end) == (reload(borin).max_pg, reload(borin).pg + 1)  # not the later attack
    assert second.caught == [] and second.rolls == []
    assert first.died_at is None and not first.added


def test_what_was_undone_and_the_undos_are_left_out(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(a, [aldara], Attack(amount=4), by=gm)
    actions.apply_damage(a, [aldara], Attack(amount=5), by=gm)
    actions.undo(a, by=gm)
    actions.advance_clock(a, 60, by=gm)
    actions.undo(a, by=gm)

    found = stretch(reload_campaign(a), None, None)

    [row] = found.characters
    assert found.entries == 1 and found.seconds == 0
    assert (row.wounds["attack"].count, row.wounds["attack"].pg) == (1, 4)
    assert row.pg_end == reload(aldara).pg


def test_a_death_and_a_character_added_in_the_stretch(world: World):
    a, gm = world.campaign_a, world.gm_a
    start = latest_id(a)
    outcome = actions.add_character(a, actions.Sheet("Eira", 3), by=gm)
    eira = outcome.characters[0]
    actions.apply_damage(a, [eira], Attack(amount=100), by=gm)

    found = stretch(reload_campaign(a), start, None)

    [row] = found.characters
    assert row.added and row.pg_start == eira.max_pg and row.pg_end == 0
    assert row.died_at == reload_campaign(a).clock


def test_called_checks_answered_and_still_pending(world: World):
    a, gm, aldara, borin = world.campaign_a, world.gm_a, world.char_a1, world.char_a2
    start = latest_id(a)
    actions.call_check(a, [aldara, borin], actions.Call(CheckKind.FALL, height_m=3), by=gm)
    [check] = queries.pending_checks(a, [aldara.pk])
    actions.answer_check(a, check, by=world.player_a, die=20)
    end = latest_id(a)
    [borins] = queries.pending_checks(a, [borin.pk])
    actions.answer_check(a, borins, by=gm, die=20)  # after the stretch: pending at its end

    found = stretch(reload_campaign(a), start, end)

    first, second = found.characters
    assert first.called == [CheckKind.FALL] and first.pending == []
    assert [(r.die, r.success, r.answered, r.by) for r in first.rolls] == [(20, True, True, "player_a")]
    assert second.called == [CheckKind.FALL] and second.pending == [CheckKind.FALL] and second.rolls == []
    assert stretch(reload_campaign(a), start, None).of(borin.pk).pending == []


def test_a_stretch_costs_one_query_for_the_log(world: World, django_assert_max_num_queries):
    a, gm = world.campaign_a, world.gm_a
    for amount in range(1, 30):
        actions.apply_damage(a, [world.char_a1, world.char_a2, world.npc_a], Attack(amount=amount % 3), by=gm)
        actions.advance_clock(a, 3600, by=gm)
    names = dict(Character.everyone.filter(campaign=a).values_list("pk", "name"))
    campaign = reload_campaign(a)
    with django_assert_max_num_queries(1):
        found = stretch(campaign, None, None, names)
    assert found.entries == 58
    with django_assert_max_num_queries(2):  # and one for the names, when not at hand
        stretch(campaign, None, None)


def test_an_empty_stretch(world: World):
    a = world.campaign_a
    actions.advance_clock(a, 60, by=world.gm_a)
    end = latest_id(a)
    found = stretch(reload_campaign(a), end, end)
    assert (found.entries, found.characters, found.seconds) == (0, [], 0)


def reload_campaign(campaign: Campaign) -> Campaign:
    return Campaign.objects.get(pk=campaign.pk)


# --- the property: over random play, the stretch says what the stored rows say changed ------------------------------

who = st.integers(0, 2)
die12 = st.integers(1, 12)
health_step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 14), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("gas"), st.integers(0, 4), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("fall"), st.integers(0, 12), st.integers(1, 20), who),
    st.tuples(st.just("advance"), st.integers(1, 20 * 86400), st.booleans()),
    st.tuples(st.just("expose"), st.integers(0, 7), die12, who),
    st.tuples(st.just("treat_wounds"), who),
    st.tuples(st.just("treat_illness"), who),
    st.tuples(st.just("medicate"), who),
    st.tuples(st.just("exertion"), die12, who),
    st.tuples(st.just("undo")),
)


def rows_now(world: World) -> dict[int, dict]:
    """Each character's stored figures: PG, death, wounds by kind (count, PG), illnesses (id, name, cured)."""
    wounds: dict[int, Counter] = defaultdict(Counter)
    for row in Wound.objects.filter(character__campaign=world.campaign_a):
        wounds[row.character_id][(row.kind, "count")] += row.times
        wounds[row.character_id][(row.kind, "pg")] += row.amount * row.times
    illnesses: dict[int, dict[int, tuple[str, bool]]] = defaultdict(dict)
    for row in Illness.objects.filter(character__campaign=world.campaign_a).select_related("disease"):
        illnesses[row.character_id][row.pk] = (row.disease.name, row.cured_at is not None)
    return {
        c.pk: {"pg": c.pg, "dead": c.died_at is not None, "wounds": wounds[c.pk], "illnesses": illnesses[c.pk]}
        for c in Character.objects.filter(campaign=world.campaign_a)
    }


def moment(world: World) -> tuple[int | None, int, dict[int, dict]]:
    """Where the log is, the clock, and every character's stored figures."""
    return latest_id(world.campaign_a), reload_campaign(world.campaign_a).clock, rows_now(world)


def play(world: World, step: tuple, rolls: dict[int, list[tuple[int, int]]], floor: int | None) -> None:
    """One step; the dice each event rolled, by its id (what the test typed, its own record of the log)."""
    name, *args = step
    if name == "undo":
        latest = queries.latest_undoable(world.campaign_a)
        if latest is None or (floor is not None and latest.pk <= floor):
            return  # a session's recap is never undone from within (its start is an entry too)
        actions.undo(world.campaign_a, by=world.gm_a, event=latest)
        return
    characters = list(Character.everyone.filter(campaign=world.campaign_a).order_by("id"))
    before = latest_id(world.campaign_a)
    try:
        play_health(world, name, args)
    except actions.ActionError:
        return
    new = latest_id(world.campaign_a)
    assert new is not None and new != before
    if name in ("fall", "expose"):
        rolls[new] = [(nth(characters, args[2]).pk, args[1])]
    elif name == "exertion":
        rolls[new] = [(nth(characters, args[1]).pk, args[0])]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.lists(health_step, max_size=5), during=st.lists(health_step, min_size=1, max_size=12))
def test_the_stretch_equals_what_the_rows_say_changed(world: World, before, during):
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    savepoint = transaction.savepoint_create()
    try:
        rolls: dict[int, list[tuple[int, int]]] = {}
        for step in before:
            play(world, step, rolls, None)
        start, clock_start, at_start = moment(world)
        for step in during:
            play(world, step, rolls, start)
        end, clock_end, at_end = moment(world)

        found = stretch(reload_campaign(world.campaign_a), start, end)

        assert found.seconds == clock_end - clock_start
        for pk, now in at_end.items():
            was, row = at_start[pk], found.of(pk)
            changed = was != now
            event(f"changed: {changed}")
            if row is None or row.last is None:
                assert not changed, (pk, was, now)
                continue
            assert (row.pg_start, row.pg_end) == (was["pg"], now["pg"])
            taken = now["wounds"] - was["wounds"]
            assert {(kind, "count"): tally.count for kind, tally in row.wounds.items()} == {
                key: n for key, n in taken.items() if key[1] == "count"
            }
            assert {(kind, "pg"): tally.pg for kind, tally in row.wounds.items() if tally.pg} == {
                key: n for key, n in taken.items() if key[1] == "pg"
            }
            new_ids = sorted(set(now["illnesses"]) - set(was["illnesses"]))
            assert row.caught == [now["illnesses"][i][0] for i in new_ids]
            cured = [
                i
                for i, (_n, done) in sorted(now["illnesses"].items())
                if done and not was["illnesses"].get(i, ("", False))[1]
            ]
            assert sorted(row.cured) == sorted(now["illnesses"][i][0] for i in cured)
            assert (row.died_at is not None) == (now["dead"] and not was["dead"])
        in_it = Event.objects.filter(pk__in=list(rolls), undone=False, pk__gt=start or 0, pk__lte=end or 0)
        standing = set(in_it.values_list("pk", flat=True))
        expected = Counter(pk for event_id in standing for pk, _die in rolls[event_id])
        assert Counter(pk for row in found.characters for roll in row.rolls for pk in [row.pk]) == expected
        typed = {(event_id, pk): die for event_id in standing for pk, die in rolls[event_id]}
        for row in found.characters:
            for roll in row.rolls:
                assert roll.protected or roll.die == typed[(roll.event, row.pk)]
    finally:
        transaction.savepoint_rollback(savepoint)


@pytest.mark.parametrize("disease", ["Peste"])
def test_a_weekly_loss_inside_an_advance_is_an_illness_wound(world: World, disease: str):
    a, gm, tomas = world.campaign_a, world.gm_a, world.npc_a
    fall_ill(world, tomas, plague())
    start = latest_id(a)
    actions.advance_clock(a, 14 * 86400, by=gm)
    [row] = stretch(reload_campaign(a), start, None).characters
    weekly = Disease.objects.get(name=disease, builtin=True).pg_per_week
    assert (row.wounds["illness"].count, row.wounds["illness"].pg) == (2, 2 * weekly)
