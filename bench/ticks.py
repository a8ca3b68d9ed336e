"""One day's ticks of time between sessions for many campaigns (issue 52's goal: 1,000 campaigns of 6 characters in
under 60 s with one worker), against the same ticks called in this process (the floor: the actions alone, no queue).

Each campaign has 6 characters, each wounded (a tick then writes every one of them), its time running at a day per
day from 06:00 in Madrid. Day 1: the floor, `rules.actions.tick` called here for each campaign, one after another.
Day 2: the same work through the task queue — one `due_ticks` job queued with the moment, as each minute's periodic job
is, and one worker process (`manage.py worker`, as `make run` starts it) running the 1,000 tick jobs it
queues — timed from the queueing to the last tick's entry. Prints both, the ratio, and the goal.

`ticking` is also what bench/live.py's row "while ticks run" uses: a worker ticking these campaigns, day after day,
for as long as the row runs.

Run: make bench (a throw-away embedded database; or set DATABASE_URL). Sizes: bench/ticks.py [campaigns] [per].
"""

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from bench.database import own_database  # noqa: E402
from campaigns.models import Campaign, Event  # noqa: E402
from characters.models import Character  # noqa: E402
from rules import actions, engine  # noqa: E402
from rules.damage import Attack  # noqa: E402
from rules.tasks import queue_pass  # noqa: E402
from tests.servers import database_url  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
START = datetime(2100, 1, 4, 5, 0, tzinfo=UTC)  # 06:00 in Madrid: far from the real clock's own passes
DAY = timedelta(days=1)
GOAL_S = 60.0


def running_campaigns(count: int, per: int) -> list[int]:
    """`count` campaigns of `per` wounded characters each, their time running from START."""
    gm = get_user_model().objects.create_user(username=f"ticks-gm-{time.monotonic_ns()}")
    made = Campaign.objects.bulk_create([Campaign(name=f"Marcha {i}", gm=gm) for i in range(count)])
    Character.objects.bulk_create(
        [Character(campaign=c, name=f"P{j}", constitution=8, pg=80) for c in made for j in range(per)]
    )
    for campaign in made:
        actions.apply_damage(campaign, Character.objects.filter(campaign=campaign), Attack(amount=30), by=gm)
        actions.set_running_time(campaign, by=gm, runs=True, rate=engine.DAY, hour=6, zone="Europe/Madrid", now=START)
    return [campaign.pk for campaign in made]


def ticks_made(campaigns: list[int], since: int) -> int:
    return Event.objects.filter(campaign__in=campaigns, action="advance", pk__gt=since).count()


def last_event() -> int:
    return Event.objects.order_by("-id").values_list("id", flat=True).first() or 0


@contextmanager
def worker() -> Iterator[subprocess.Popen[bytes]]:
    """One task queue worker on this benchmark's database, as `make run` starts it; stopped after."""
    # Its log at WARNING: a line for each of the 1,000 ticks (rules.tasks) would be most of this run's output.
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": "WARNING",
    }
    process = subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=ROOT, env=env)
    try:
        time.sleep(2)  # it connects and listens
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def one_day(campaigns: list[int], day: int) -> float:
    """Queue the pass of `day` and wait for every campaign's tick: the seconds it took."""
    since, started = last_event(), time.perf_counter()
    queue_pass(START + day * DAY + timedelta(minutes=1))
    while ticks_made(campaigns, since) < len(campaigns):
        time.sleep(0.05)
    return time.perf_counter() - started


@contextmanager
def ticking(campaigns: list[int]) -> Iterator[list[float]]:
    """A worker ticking these campaigns, one day after another, for as long as the block runs; yields the seconds each
    whole day took (filled in as they finish)."""
    days: list[float] = []
    stop = threading.Event()

    def feed() -> None:
        day = 1
        while not stop.is_set():
            days.append(one_day(campaigns, day))
            day += 1

    with worker():
        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        try:
            yield days
        finally:
            stop.set()
            feeder.join(timeout=120)


def main(count: int, per: int) -> None:
    print(f"Machine: {os.cpu_count()} cores. {count} campaigns × {per} characters, each wounded, a day per day.\n")
    started = time.perf_counter()
    campaigns = running_campaigns(count, per)
    print(f"  made in {time.perf_counter() - started:.1f} s")
    since, started = last_event(), time.perf_counter()
    for campaign in campaigns:
        actions.tick(campaign, now=START + DAY + timedelta(minutes=1))
    floor = time.perf_counter() - started
    assert ticks_made(campaigns, since) == count
    with worker():
        queued = one_day(campaigns, 2)
    print(f"\nDay 1, the actions called here (floor):       {floor:6.1f} s  ({floor / count * 1000:.1f} ms a tick)")
    print(f"Day 2, the task queue with one worker:        {queued:6.1f} s  ({queued / count * 1000:.1f} ms a tick)")
    held = "met" if queued < GOAL_S else "MISSED"
    print(f"Queue / floor: {queued / floor:.2f}×.  Goal: under {GOAL_S:.0f} s — {held}")


if __name__ == "__main__":
    sizes = [int(arg) for arg in sys.argv[1:3]]
    with own_database("ticks"):
        main(*(sizes + [1000, 6][len(sizes) :]))
