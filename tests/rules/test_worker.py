"""Ticks of time between sessions run by real task queue workers (rules.tasks, procrastinate) on real PostgreSQL: one
tick per real day passed, one tick however many workers race, none half made by a worker killed in the middle of one
(it happens at the next pass), none while a game session is open. The wall clock is injected: each pass is queued with
the moment it stands for, as the worker's minute-by-minute schedule queues it; nothing waits for a real day.

The moments are in the year 2100, so that the passes each worker queues by the real clock find nothing to tick here."""

import os
import signal
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import connection
from procrastinate.contrib.django.models import ProcrastinateJob

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions, engine
from rules.damage import Attack
from rules.events import EventKind
from rules.tasks import due_ticks, tick_campaign, tidy_queue
from tests.helpers import make_user
from tests.servers import database_url, task_worker

pytestmark = pytest.mark.django_db(transaction=True)

START = datetime(2100, 1, 4, 5, 0, tzinfo=UTC)  # 06:00 in Madrid
DAY, HOUR = timedelta(days=1), timedelta(hours=1)


@pytest.fixture(autouse=True)
def empty_queue():
    """Each test starts with an empty queue: the suite's flush leaves procrastinate's tables (its models are not
    managed by Django), and a job a killed worker left "doing" would keep `settled` waiting."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM procrastinate_periodic_defers; DELETE FROM procrastinate_jobs")
    yield


def stamp(moment: datetime) -> int:
    return int(moment.timestamp())


def running_campaign(name: str = "Marcha") -> Campaign:
    gm = make_user(f"gm-{name}")
    campaign = Campaign.objects.create(name=name, gm=gm)
    aldara = Character.objects.create(campaign=campaign, name="Aldara", constitution=8)
    actions.apply_damage(campaign, [aldara], Attack(amount=40), by=gm)
    actions.set_running_time(campaign, by=gm, runs=True, rate=engine.DAY, hour=6, zone="Europe/Madrid", now=START)
    return campaign


def settled(timeout: float = 60) -> None:
    """Wait (real time: the workers', never the campaign's) until no tick job is waiting or running."""
    deadline = time.monotonic() + timeout
    while ProcrastinateJob.objects.filter(queue_name="ticks", status__in=["todo", "doing"]).exists():
        assert time.monotonic() < deadline, "the workers did not finish their jobs"
        time.sleep(0.05)


def ticks(campaign: Campaign) -> list[Event]:
    return list(Event.objects.filter(campaign=campaign, action=EventKind.ADVANCE).order_by("id"))


def test_one_tick_for_each_real_day_passed():
    campaign = running_campaign()
    with task_worker():
        for day in range(1, 4):
            # The passes of that day: the minute of the tick, the next one, the evening.
            for moment in (
                START + day * DAY,
                START + day * DAY + 60 * timedelta(seconds=1),
                START + day * DAY + 13 * HOUR,
            ):
                due_ticks.defer(timestamp=stamp(moment))
                settled()
            assert len(ticks(campaign)) == day
    campaign.refresh_from_db()
    assert campaign.clock == 3 * engine.DAY
    assert [t.clock_after - t.clock_before for t in ticks(campaign)] == [engine.DAY] * 3
    assert not ProcrastinateJob.objects.filter(status="failed").exists()


def test_no_tick_while_a_game_session_is_open():
    campaign = running_campaign()
    actions.start_session(campaign, by=campaign.gm)
    with task_worker():
        due_ticks.defer(timestamp=stamp(START + 2 * DAY))
        tick_campaign.defer(campaign_id=campaign.pk, timestamp=stamp(START + 2 * DAY))  # even one queued by hand
        settled()
    assert ticks(campaign) == []


def test_two_workers_racing_make_one_tick():
    campaign = running_campaign()
    moment = stamp(START + DAY + HOUR)
    with task_worker(), task_worker():
        for _ in range(6):  # six jobs for the same tick, taken by both workers at once
            tick_campaign.defer(campaign_id=campaign.pk, timestamp=moment)
        due_ticks.defer(timestamp=moment)
        settled()
    assert len(ticks(campaign)) == 1
    campaign.refresh_from_db()
    assert campaign.clock == engine.DAY


def test_a_worker_killed_in_the_middle_of_a_tick_leaves_nothing_and_the_next_pass_ticks():
    campaign = running_campaign()
    before = Character.objects.get(campaign=campaign).pg
    moment = stamp(START + DAY + HOUR)
    killed_in_a_tick(campaign, lambda: due_ticks.defer(timestamp=moment))
    # Its connection gone, PostgreSQL rolled its transaction back: no half tick.
    assert ticks(campaign) == []
    campaign.refresh_from_db()
    assert campaign.clock == 0 and Character.objects.get(campaign=campaign).pg == before
    stalled = ProcrastinateJob.objects.filter(task_name="tick_campaign", status="doing", args__campaign_id=campaign.pk)
    assert stalled.count() == 1
    with task_worker():
        due_ticks.defer(timestamp=moment + 60)  # the next pass
        deadline = time.monotonic() + 60
        while not ticks(campaign):
            assert time.monotonic() < deadline, "the next pass did not tick"
            time.sleep(0.05)
    assert len(ticks(campaign)) == 1
    campaign.refresh_from_db()
    assert campaign.clock == engine.DAY


def killed_in_a_tick(campaign: Campaign, queue: Callable[[], object]) -> None:
    """A worker `kill -9`'d inside a tick of this campaign: the test holds the campaign's row, so the tick `queue`
    queues waits for it inside its transaction, having started; then the worker is killed and the row let go."""
    with psycopg.connect(database_url()) as holder:
        holder.execute("SELECT 1 FROM campaigns_campaign WHERE id = %s FOR UPDATE", [campaign.pk])
        with task_worker() as worker:
            queue()
            deadline = time.monotonic() + 30
            while not waiting_on(holder.info.backend_pid):
                assert time.monotonic() < deadline, "the tick never started"
                time.sleep(0.05)
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait()
        holder.rollback()


def waiting_on(holder: int) -> bool:
    """Whether another session waits for a lock that the session `holder` (a backend's pid) holds; asked from a
    connection of its own (within a transaction, PostgreSQL shows the activity as it was when it began)."""
    with psycopg.connect(database_url(), autocommit=True) as asking:
        found = asking.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))", [holder]
        ).fetchone()
    return bool(found and found[0])


def test_the_worker_stops_on_sigint_and_sigterm():
    for stop in (signal.SIGINT, signal.SIGTERM):
        with task_worker() as worker:
            worker.send_signal(stop)
            assert worker.wait(timeout=15) == 0
    assert connection.is_usable()


def test_a_job_left_by_a_dead_worker_is_closed_and_the_next_pass_ticks():
    campaign = running_campaign()
    moment = stamp(START + DAY + HOUR)
    killed_in_a_tick(campaign, lambda: tick_campaign.defer(campaign_id=campaign.pk, timestamp=moment))
    with connection.cursor() as cursor:  # the dead worker's last heartbeat, as a minute ago
        cursor.execute("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '2 minutes'")
    with task_worker():
        tidy_queue.defer(timestamp=moment)
        settled()
        mine = ProcrastinateJob.objects.filter(task_name="tick_campaign", args__campaign_id=campaign.pk)
        assert [job.status for job in mine] == ["aborted"]
        assert ticks(campaign) == []
        due_ticks.defer(timestamp=moment + 60)  # the next minute's pass
        settled()
    assert len(ticks(campaign)) == 1
    assert not ProcrastinateJob.objects.filter(status="doing").exists()
