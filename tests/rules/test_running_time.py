"""Time that runs between sessions (rules.actions.running_time, campaigns.running_time): the GM's schedule, each day's
tick as an advance of the clock equal to the GM's own, exactly once, never during a game session, a missed span in one,
undone like any other. The wall clock is always an argument: nothing here sleeps."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import running_time
from campaigns.clock import format_clock
from campaigns.models import Campaign, Event
from characters.models import Character
from play.log.story import entry_for
from rules import actions, engine, events, mapping, queries
from rules.damage import Attack
from rules.events import EventKind
from tests.helpers import World, fall_ill, make_user, plague, refused, run_at_once

# 06:00 in Madrid in winter is 05:00 UTC.
MONDAY = datetime(2026, 12, 7, 5, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def turned_on(campaign: Campaign, gm, at: datetime, rate: int = engine.DAY, hour: int = 6) -> Campaign:
    actions.set_running_time(campaign, by=gm, runs=True, rate=rate, hour=hour, zone="Europe/Madrid", now=at)
    campaign.refresh_from_db()
    return campaign


def ticks(campaign: Campaign) -> list[Event]:
    return [e for e in Event.objects.filter(campaign=campaign, action=EventKind.ADVANCE).order_by("id")]


def health(character: Character, campaign: Campaign) -> engine.Health:
    character = Character.everyone.get(pk=character.pk)
    campaign.refresh_from_db()
    return mapping.health_of(character, character.wounds.all(), character.illnesses.all(), campaign.clock)


def test_turned_on_it_counts_from_now_and_ticks_at_the_hour(world: World):
    a, gm = world.campaign_a, world.gm_a
    a = turned_on(a, gm, MONDAY - 8 * HOUR)  # Sunday 22:00 in Madrid
    assert a.runs and a.run_from == MONDAY - 8 * HOUR and a.run_next == MONDAY
    [entry] = Event.objects.filter(campaign=a, action=EventKind.RUNNING_TIME)
    assert entry.actor == gm
    assert queries.ticks_due(MONDAY - timedelta(seconds=1)) == []
    assert queries.ticks_due(MONDAY) == [a.pk]
    tick = actions.tick(a, now=MONDAY + 5 * HOUR).event
    assert tick is not None and tick.actor is None
    assert tick.clock_after - tick.clock_before == 8 * 3600  # 8 real hours at a day per day
    payload = events.payload_of(tick)
    assert isinstance(payload, events.Advance) and payload.between == events.Between(real=8 * 3600, rate=engine.DAY)
    a.refresh_from_db()
    assert (a.run_from, a.run_next) == (MONDAY, MONDAY + DAY)
    assert actions.tick(a, now=MONDAY + 23 * HOUR).event is None  # no moment passed since: nothing
    assert queries.ticks_due(MONDAY + 23 * HOUR) == []


def test_one_tick_a_day_each_a_whole_day(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(a, [aldara], Attack(amount=30), by=gm)
    a = turned_on(a, gm, MONDAY)
    for day in range(1, 6):
        before = health(aldara, a)
        outcome = actions.tick(a, now=MONDAY + day * DAY + 10 * HOUR)
        assert outcome.event is not None and outcome.event.clock_after - outcome.event.clock_before == engine.DAY
        assert health(aldara, a) == engine.advance(before, engine.DAY, resting=True)
        assert actions.tick(a, now=MONDAY + day * DAY + 11 * HOUR).event is None
    assert len(ticks(a)) == 5
    [entry] = [e for e in Event.objects.filter(campaign=a) if e.pk == ticks(a)[0].pk]

    assert entry_for(entry, {}).title == "El tiempo pasa: 1 día (entre sesiones)"


def test_a_missed_week_is_one_advance_of_the_whole_span(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(a, [aldara], Attack(amount=30), by=gm)
    a = turned_on(a, gm, MONDAY)
    before = health(aldara, a)
    [tick] = [actions.tick(a, now=MONDAY + 7 * DAY + 2 * HOUR).event]
    assert tick is not None
    payload = events.payload_of(tick)
    assert isinstance(payload, events.Advance) and payload.between is not None and payload.between.moments == 7
    assert payload.seconds == 7 * engine.DAY
    assert health(aldara, a) == engine.advance(before, 7 * engine.DAY, resting=True)
    a.refresh_from_db()
    assert a.run_from == MONDAY + 7 * DAY and a.run_next == MONDAY + 8 * DAY


def test_no_tick_while_a_session_is_open_and_the_next_counts_from_its_end(world: World):
    a, gm = world.campaign_a, world.gm_a
    a = turned_on(a, gm, MONDAY)
    actions.start_session(a, by=gm)
    assert queries.ticks_due(MONDAY + 3 * DAY) == []
    assert actions.tick(a, now=MONDAY + 3 * DAY).event is None
    assert ticks(a) == []
    ended = actions.end_session(a, by=gm).event
    assert ended is not None
    a.refresh_from_db()
    end = ended.created.replace(microsecond=0)
    assert a.run_from == max(MONDAY, end)
    assert a.run_next == running_time.next_tick(6, "Europe/Madrid", a.run_from)
    later = a.run_next + HOUR
    tick = actions.tick(a, now=later).event
    assert tick is not None
    assert tick.clock_after - tick.clock_before == running_time.campaign_seconds(engine.DAY, a.run_from, a.run_next)


def test_the_time_of_a_session_ended_after_the_tick_moment_does_not_count(world: World):
    a, gm = world.campaign_a, world.gm_a
    a = turned_on(a, gm, MONDAY)
    Campaign.objects.filter(pk=a.pk).update(run_from=MONDAY + 10 * DAY)  # as if a session ended then
    assert actions.tick(a, now=MONDAY + 10 * DAY + HOUR).event is None


def test_those_who_do_not_rest_do_not_heal(world: World):
    a, gm, aldara, borin = world.campaign_a, world.gm_a, world.char_a1, world.char_a2
    actions.apply_damage(a, [aldara, borin], Attack(amount=20), by=gm)
    Character.objects.filter(pk=borin.pk).update(rests_between_sessions=False)
    a = turned_on(a, gm, MONDAY)
    resting_before, awake_before = health(aldara, a), health(borin, a)
    tick = actions.tick(a, now=MONDAY + 2 * DAY).event
    assert tick is not None
    payload = events.payload_of(tick)
    assert isinstance(payload, events.Advance) and borin.pk not in payload.resting and aldara.pk in payload.resting
    assert health(aldara, a) == engine.advance(resting_before, 2 * engine.DAY, resting=True)
    assert health(borin, a) == engine.advance(awake_before, 2 * engine.DAY, resting=False)


def test_undoing_a_tick_puts_everything_back_and_it_is_not_made_again(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(a, [aldara], Attack(amount=30), by=gm)
    a = turned_on(a, gm, MONDAY)
    before, clock = health(aldara, a), a.clock
    tick = actions.tick(a, now=MONDAY + DAY).event
    assert tick is not None
    actions.undo(a, by=gm, event=tick.pk)
    a.refresh_from_db()
    assert a.clock == clock and health(aldara, a) == before
    assert actions.tick(a, now=MONDAY + DAY + HOUR).event is None
    assert a.run_from == MONDAY + DAY


def test_schedule_changes_are_logged_undone_and_refused_in_words(world: World):
    a, gm = world.campaign_a, world.gm_a
    a = turned_on(a, gm, MONDAY)

    def set_to(**changes):
        values = {"runs": True, "rate": engine.DAY, "hour": 6, "zone": "Europe/Madrid", **changes}
        return lambda: actions.set_running_time(a, by=gm, now=MONDAY + HOUR, **values)

    for bad, field in [
        ({"rate": 0}, "rate"),
        ({"rate": -86400}, "rate"),
        ({"rate": running_time.MAX_RATE + 1}, "rate"),
        ({"hour": 24}, "hour"),
        ({"hour": -1}, "hour"),
        ({"zone": "Marte/Olimpo"}, "zone"),
        ({"zone": "Europe/Madrid\x00"}, "zone"),
    ]:
        assert refused(world, set_to(**bad)).field == field
    stranger = refused(
        world, lambda: actions.set_running_time(a, by=world.player_a, runs=False, rate=1, hour=6, zone="UTC")
    )
    assert "no se ha hecho nada" in stranger.message
    changed = set_to(rate=engine.WEEK, hour=20)().event
    a.refresh_from_db()
    assert changed is not None and (a.run_rate, a.run_hour, a.run_from) == (engine.WEEK, 20, MONDAY)

    assert "1 semana por día, a las 20:00 (Europe/Madrid)" in entry_for(changed, {}).title
    assert set_to(rate=engine.WEEK, hour=20)().event is None  # nothing changes: nothing logged
    off = set_to(runs=False)().event
    a.refresh_from_db()
    assert off is not None and not a.runs and a.run_next is None
    assert queries.ticks_due(MONDAY + 30 * DAY) == []
    actions.undo(a, by=gm, event=off.pk)
    a.refresh_from_db()
    assert a.runs and (a.run_rate, a.run_hour, a.run_from) == (engine.WEEK, 20, MONDAY)


def test_a_tick_beyond_one_advance_stops_the_time_and_says_so(world: World):
    a, gm = world.campaign_a, world.gm_a
    a = turned_on(a, gm, MONDAY, rate=running_time.MAX_RATE)
    assert actions.tick(a, now=MONDAY + DAY).event is not None  # 100 years: fine
    stopped = actions.tick(a, now=MONDAY + 20 * DAY).event  # 19 days at 100 years a day: beyond 1,000 years
    assert stopped is not None and stopped.action == EventKind.RUNNING_TIME
    a.refresh_from_db()
    assert not a.runs and a.clock == 100 * engine.YEAR

    assert "elige un ritmo menor" in " ".join(entry_for(stopped, {}).lines)


@pytest.mark.django_db(transaction=True)
def test_two_ticks_racing_make_one():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Carrera", gm=gm)
    Character.objects.create(campaign=campaign, name="Aldara", constitution=8)
    turned_on(campaign, gm, MONDAY)
    assert run_at_once([lambda: actions.tick(campaign.pk, now=MONDAY + DAY + HOUR)] * 4) == []
    assert len(ticks(campaign)) == 1
    campaign.refresh_from_db()
    assert campaign.clock == engine.DAY


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rate=st.integers(1, 4 * engine.WEEK),
    hour=st.integers(0, 23),
    gaps=st.lists(st.integers(1, 9 * 24 * 3600), min_size=1, max_size=5),
    damage=st.integers(0, 79),
)
def test_each_tick_is_the_engines_advance_of_its_span(db, rate, hour, gaps, damage):
    with transaction.atomic():  # each example on its own rows, rolled back after it
        ticked_as_the_engine_says(rate, hour, gaps, damage)
        transaction.set_rollback(True)


def ticked_as_the_engine_says(rate, hour, gaps, damage):
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Propiedad", gm=gm)
    aldara = Character.objects.create(campaign=campaign, name="Aldara", constitution=8)
    if damage:
        actions.apply_damage(campaign, [aldara], Attack(amount=damage), by=gm)
    start = MONDAY - 3 * HOUR
    turned_on(campaign, gm, start, rate=rate, hour=hour)
    now, total = start, 0
    for gap in gaps:
        now += timedelta(seconds=gap)
        campaign.refresh_from_db()
        counted_from, before = campaign.run_from, health(aldara, campaign)
        due = running_time.due(hour, "Europe/Madrid", counted_from, now)
        tick = actions.tick(campaign, now=now).event
        expected = 0 if due is None else running_time.campaign_seconds(rate, counted_from, due.at)
        assert (0 if tick is None else tick.clock_after - tick.clock_before) == expected
        assert health(aldara, campaign) == engine.advance(before, expected, resting=True) if expected else True
        total += expected
    campaign.refresh_from_db()
    assert campaign.clock == total


def test_a_death_in_a_tick_is_logged_with_its_second(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    fall_ill(world, aldara, plague())  # a serious illness: PG lost every week
    actions.apply_damage(a, [aldara], Attack(amount=health(aldara, a).pg - 1), by=gm)
    Character.objects.filter(pk=aldara.pk).update(rests_between_sessions=False)  # held prisoner: no rest
    a = turned_on(a, gm, MONDAY, rate=engine.WEEK)
    before = health(aldara, a)
    tick = actions.tick(a, now=MONDAY + 2 * DAY).event
    assert tick is not None
    died = health(aldara, a)
    assert died == engine.advance(before, 2 * engine.WEEK, resting=False) and died.died_at is not None
    lines = entry_for(tick, {aldara.pk: "Aldara"}).lines
    assert f"Aldara muere ({format_clock(died.died_at)})" in lines


@pytest.mark.django_db(transaction=True)
def test_a_tick_racing_the_gms_blow_and_the_gm_turning_it_off_gives_one_of_the_orders():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Carrera", gm=gm)
    aldara = Character.objects.create(campaign=campaign, name="Aldara", constitution=8)
    actions.apply_damage(campaign, [aldara], Attack(amount=20), by=gm)
    turned_on(campaign, gm, MONDAY)
    blow = lambda: actions.apply_damage(campaign.pk, [aldara.pk], Attack(amount=5), by=gm)  # noqa: E731
    tick = lambda: actions.tick(campaign.pk, now=MONDAY + DAY)  # noqa: E731
    assert run_at_once([blow, tick]) == []
    aldara.refresh_from_db()
    start = engine.Health(8, [engine.Wound("attack", 20)])
    hit = engine.Wound("attack", 5)
    orders = {
        engine.apply_wound(engine.advance(start, engine.DAY, resting=True), hit).pg,
        engine.advance(engine.apply_wound(start, hit), engine.DAY, resting=True).pg,
    }
    assert aldara.pg in orders and len(ticks(campaign)) == 1
    off = lambda: actions.set_running_time(  # noqa: E731
        campaign.pk, by=gm, runs=False, rate=engine.DAY, hour=6, zone="Europe/Madrid", now=MONDAY + 2 * DAY
    )
    later = lambda: actions.tick(campaign.pk, now=MONDAY + 2 * DAY + HOUR)  # noqa: E731
    assert run_at_once([off, later]) == []
    campaign.refresh_from_db()
    assert not campaign.runs and len(ticks(campaign)) in (1, 2)  # the tick first, or the time stopped first


def test_a_day_across_a_change_of_summer_time_carries_its_real_hours():
    # 06:00 in Madrid is 05:00 UTC on 28 March 2026 and 04:00 UTC on the 29th (the clocks go forward at 02:00).
    before = datetime(2026, 3, 28, 5, tzinfo=UTC)
    after = running_time.next_tick(6, "Europe/Madrid", before)
    assert after == datetime(2026, 3, 29, 4, tzinfo=UTC)
    assert running_time.campaign_seconds(engine.DAY, before, after) == 23 * 3600
    autumn = running_time.next_tick(6, "Europe/Madrid", datetime(2026, 10, 24, 4, tzinfo=UTC))
    assert autumn == datetime(2026, 10, 25, 5, tzinfo=UTC)  # 25 real hours after the 24th's
    found = running_time.due(6, "Europe/Madrid", before, datetime(2026, 4, 4, 12, tzinfo=UTC))
    assert found == running_time.Due(datetime(2026, 4, 4, 4, tzinfo=UTC), 7)
    # An hour that does not exist that night (02:00 → 03:00): the tick falls at 03:00, summer time.
    assert running_time.next_tick(2, "Europe/Madrid", before) == datetime(2026, 3, 29, 1, tzinfo=UTC)
