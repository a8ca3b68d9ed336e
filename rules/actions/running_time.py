"""Time that runs between sessions: the GM sets it (on or off, its rate, its hour and time zone), and each day's tick
advances the clock by the time a real day carries (campaigns.running_time), through the same advance as the GM's.

A tick is an action like any other: under the campaign's lock it reads the schedule again and advances only if a tick
moment has passed since the time counted from, so that two workers racing, a job run twice or a worker killed in the
middle of one (its transaction rolled back) make exactly one tick. While a game session is open time is the GM's: no
tick; its end restarts the counting (rules.actions.game_sessions). An undone tick is not made again."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import running_time
from campaigns.clock import format_duration
from campaigns.models import Campaign, Event
from rules import engine, events
from rules.actions.core import ActionError, Actor, Outcome, finish, lock_campaign, locked, log, undoes
from rules.actions.game_sessions import open_session
from rules.actions.health import advanced

SCHEDULE_FIELDS = ["runs", "run_rate", "run_hour", "run_zone", "run_from", "run_next"]


def schedule_of(campaign: Campaign) -> events.Schedule:
    """The campaign row's schedule, for the log (and its undo)."""
    return events.Schedule(
        runs=campaign.runs,
        rate=campaign.run_rate,
        hour=campaign.run_hour,
        zone=campaign.run_zone,
        counted_from=campaign.run_from.isoformat() if campaign.run_from else "",
        next=campaign.run_next.isoformat() if campaign.run_next else "",
    )


def put(campaign: Campaign, schedule: events.Schedule) -> None:
    campaign.runs, campaign.run_rate = schedule.runs, schedule.rate
    campaign.run_hour, campaign.run_zone = schedule.hour, schedule.zone
    campaign.run_from = datetime.fromisoformat(schedule.counted_from) if schedule.counted_from else None
    campaign.run_next = datetime.fromisoformat(schedule.next) if schedule.next else None


def checked_rate(rate: int) -> int:
    """A rate the GM typed: at least a second of campaign time per real day, at most MAX_RATE."""
    if not 1 <= rate <= running_time.MAX_RATE:
        message = _("El ritmo debe estar entre 1 segundo y %(most)s por cada día real.")
        raise ActionError(message % {"most": format_duration(running_time.MAX_RATE)}, "rate")
    return rate


@transaction.atomic
def set_running_time(
    campaign: Campaign | int,
    *,
    by: Actor,
    runs: bool,
    rate: int,
    hour: int,
    zone: str,
    now: datetime | None = None,
) -> Outcome:
    """Turn time between sessions on (it counts from `now`) or off, or change its rate, hour or time zone (it keeps
    counting from the last tick: the next one carries the new rate for its whole span)."""
    checked_rate(rate)
    if not 0 <= hour <= 23:
        raise ActionError(_("La hora debe estar entre 0 y 23."), "hour")
    if zone not in running_time.zones():
        raise ActionError(_("Esa zona horaria no existe: escribe una como Europe/Madrid."), "zone")
    campaign = lock_campaign(campaign, by)
    before = schedule_of(campaign)
    now = running_time.truncated(now or timezone.now())
    counted_from = (campaign.run_from or now) if runs else None
    campaign.runs, campaign.run_rate, campaign.run_hour, campaign.run_zone = runs, rate, hour, zone
    campaign.run_from = counted_from
    campaign.run_next = running_time.next_tick(hour, zone, counted_from) if counted_from else None
    after = schedule_of(campaign)
    if after == before:
        return Outcome(None, [])
    campaign.save(update_fields=SCHEDULE_FIELDS)
    return Outcome(log(campaign, by, events.RunningTimeSet(before=before, after=after), []), [])


@transaction.atomic
def tick(campaign: Campaign | int, *, now: datetime) -> Outcome:
    """The tick due at `now`, if one is: the clock advances by the rate times the real time from the moment counted
    from to the latest tick moment passed (one advance for every moment missed), everyone resting but those marked
    "no descansa". Nothing while the time does not run, while a game session is open, or when no moment has passed
    since the last tick (another worker made it). A tick longer than one advance may be stops the time, logged."""
    campaign, everyone = locked(campaign, None, None)
    if not campaign.runs or campaign.run_from is None or open_session(campaign) is not None:
        return Outcome(None, [])
    due = running_time.due(campaign.run_hour, campaign.run_zone, campaign.run_from, now)
    if due is None:
        return Outcome(None, [])
    before = schedule_of(campaign)
    seconds = running_time.campaign_seconds(campaign.run_rate, campaign.run_from, due.at)
    real = running_time.whole_seconds(due.at) - running_time.whole_seconds(campaign.run_from)
    if seconds > engine.LIMITS["advance"][1]:
        campaign.runs, campaign.run_from, campaign.run_next = False, None, None
        campaign.save(update_fields=SCHEDULE_FIELDS)
        stopped = events.RunningTimeSet(before=before, after=schedule_of(campaign), stopped=seconds)
        return Outcome(log(campaign, None, stopped, []), [])
    campaign.run_from, campaign.run_next = due.at, running_time.next_tick(campaign.run_hour, campaign.run_zone, due.at)
    campaign.save(update_fields=["run_from", "run_next"])
    if seconds == 0:  # a rate so slow that this span carries less than a second
        return Outcome(None, [])
    resting = {loaded.character.pk for loaded in everyone if loaded.character.rests_between_sessions}
    results, payload = advanced(everyone, seconds, resting)
    payload.between = events.Between(real=real, rate=campaign.run_rate, moments=due.moments)
    return finish(campaign, None, results, payload, clock_after=campaign.clock + seconds)


@undoes(events.RunningTimeSet)
def undo_running_time_set(campaign: Campaign, event: Event, payload: events.RunningTimeSet) -> None:
    """The schedule as it was before (a stopped time runs again from where it counted)."""
    put(campaign, payload.before)
    campaign.save(update_fields=SCHEDULE_FIELDS)
