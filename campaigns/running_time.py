"""Time that runs between sessions, as a schedule (docs/rules.md §7.15): when each day's tick falls and what it carries.

A campaign whose time runs gets one tick a real day, at an hour of the campaign's time zone. A tick advances the clock
by the rate (campaign seconds per real day) times the real time it counts: from the moment counting began (the last
tick, the time being turned on, or the end of the last game session) to the latest tick moment passed. Ticks the
server missed (it was down) are one tick for the whole span. Pure functions of moments, so that the tick (rules.actions
.running_time), the pages and the tests agree; the wall clock is always an argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.utils.translation import gettext as _

from campaigns.clock import format_duration
from rules.engine import DAY, YEAR

DEFAULT_ZONE = "Europe/Madrid"
DEFAULT_HOUR = 6
MAX_RATE = 100 * YEAR  # campaign seconds per real day: beyond it, a typo ("1000 años por día")
REAL_DAY = timedelta(days=1)


@cache
def zones() -> frozenset[str]:
    """The time zones a campaign may choose (IANA names)."""
    return frozenset(available_timezones())


def zone_of(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name) if name in zones() else ZoneInfo(DEFAULT_ZONE)
    except ZoneInfoNotFoundError:  # a system without that zone's file: the default, never a 500
        return ZoneInfo(DEFAULT_ZONE)


def moment_on(day: datetime, hour: int, zone: ZoneInfo) -> datetime:
    """The tick moment of a local calendar day: that day at `hour`:00 in the zone (a gap of a change to summer time
    moves it on, as the zone's rules say), in UTC."""
    return datetime.combine(day.date(), time(hour), tzinfo=zone).astimezone(UTC)


def next_tick(hour: int, zone_name: str, after: datetime) -> datetime:
    """The first tick moment strictly after `after`."""
    zone = zone_of(zone_name)
    day = after.astimezone(zone)
    for offset in range(3):
        moment = moment_on(day + offset * REAL_DAY, hour, zone)
        if moment > after:
            return moment
    raise AssertionError("a tick falls within any three days")  # pragma: no cover


@dataclass(frozen=True)
class Due:
    """The tick due at a moment: the latest tick moment passed, and how many tick moments it stands for."""

    at: datetime
    moments: int


def due(hour: int, zone_name: str, counted_from: datetime, now: datetime) -> Due | None:
    """The tick due at `now` for a schedule counted from `counted_from`: None when no tick moment has passed since."""
    first = next_tick(hour, zone_name, counted_from)
    if first > now:
        return None
    at, moments = first, 1
    # Day by day (a day is 23 to 25 hours long around a change of summer time): a server down for a year, 365 steps.
    while (following := next_tick(hour, zone_name, at)) <= now:
        at, moments = following, moments + 1
    return Due(at, moments)


def campaign_seconds(rate: int, start: datetime, end: datetime) -> int:
    """The campaign time a span of real time carries at `rate` campaign seconds per real day, to the second (rounded
    down); nothing for an empty or backward span."""
    real = whole_seconds(end) - whole_seconds(start)
    return rate * real // DAY if real > 0 else 0


def whole_seconds(moment: datetime) -> int:
    """A moment as whole seconds since the epoch (what the counting uses: a tick never depends on microseconds)."""
    return int(moment.timestamp())


def truncated(moment: datetime) -> datetime:
    return moment.replace(microsecond=0)


def said(rate: int, hour: int, zone: str) -> str:
    """A schedule in words: "1 día por día, a las 06:00 (Europe/Madrid)"."""
    values = {"rate": format_duration(rate), "hour": f"{hour:02d}:00", "zone": zone}
    return _("%(rate)s por día, a las %(hour)s (%(zone)s)") % values
