"""The task queue's jobs (procrastinate, its jobs kept in PostgreSQL): the ticks of time between sessions.

Each minute one worker (procrastinate defers a periodic job once for each minute, however many workers run) lists the
campaigns whose tick has fallen (rules.queries.ticks_due) and queues one tick job for each, at most one waiting per
campaign (its queueing lock). Any worker runs a tick job: the action (rules.actions.tick) decides under the campaign's
lock whether a tick is still due at the job's moment, so that a job run twice, two workers racing or a worker killed in
the middle (its transaction rolled back; the next minute queues the tick again, and the hourly tidy closes the job the
dead worker held) make exactly one tick. The moment is the job's argument, never the worker's clock: a test or a
benchmark injects the wall clock by queueing the pass with the moment it wants (`queue_pass`).
"""

from __future__ import annotations

import logging
from contextlib import suppress
from datetime import UTC, datetime

from procrastinate import JobContext
from procrastinate.contrib.django import app
from procrastinate.exceptions import AlreadyEnqueued
from procrastinate.jobs import Status

from config import metrics
from rules import actions, queries
from rules.actions import ActionError

QUEUE = "ticks"
logger = logging.getLogger(__name__)


@app.periodic(cron="* * * * *", periodic_id="each-minute")
@app.task(queue=QUEUE, name="due_ticks")
def due_ticks(timestamp: int) -> int:
    """Queue a tick for every campaign whose tick has fallen by `timestamp` (seconds since the epoch): how many. (The
    Django integration hands each job's database connection back when it ends, as a request's.)"""
    due = queries.ticks_due(datetime.fromtimestamp(timestamp, UTC))
    for campaign_id in due:
        # One waiting already: it ticks up to its own moment, the next pass the rest.
        with suppress(AlreadyEnqueued):
            tick = tick_campaign.configure(queueing_lock=f"tick:{campaign_id}")
            tick.defer(campaign_id=campaign_id, timestamp=timestamp)
    return len(due)


def queue_pass(moment: datetime) -> None:
    """Queue the pass of `moment`, as the worker's minute-by-minute schedule queues it: how a test or a benchmark
    injects the wall clock."""
    due_ticks.defer(timestamp=int(moment.timestamp()))  # type: ignore[call-arg]  # the periodic task's own argument


@app.task(queue=QUEUE, name="tick_campaign")
def tick_campaign(campaign_id: int, timestamp: int) -> int | None:
    """The campaign's tick due at `timestamp`, if one still is: the id of the entry it logged."""
    try:
        outcome = actions.tick(campaign_id, now=datetime.fromtimestamp(timestamp, UTC))
    except ActionError:  # the campaign was deleted meanwhile: nothing to tick
        return None
    event = outcome.event
    if event is None:
        return None
    seconds = event.clock_after - event.clock_before
    metrics.TICKS.inc()
    logger.info("campaign %s: time between sessions, %s s (event %s)", campaign_id, seconds, event.pk)
    return event.pk


@app.periodic(cron="7 * * * *", periodic_id="hourly")
@app.task(queue=QUEUE, name="tidy_queue", pass_context=True)
async def tidy_queue(context: JobContext, timestamp: int) -> None:
    """Each hour: a job left "doing" by a worker that died (no heartbeat for a minute) is marked aborted — its tick was
    rolled back with the worker's connection, and the next minute's pass queues it again (it is still due) — and the
    jobs finished more than a day ago are deleted, so that the queue's table stays small."""
    manager = context.app.job_manager
    for job in await manager.get_stalled_jobs(seconds_since_heartbeat=60):
        await manager.finish_job(job, status=Status.ABORTED, delete_job=False)
    await manager.delete_old_jobs(
        nb_hours=24, queue=QUEUE, include_failed=True, include_cancelled=True, include_aborted=True
    )
