"""The payloads of game sessions (campaigns.models.GameSession, rules.actions.game_sessions): the GM starts one, ends
it, and shares its recap with the players or takes it back. A session is named by its number in the campaign. And of
the time that runs between them (rules.actions.running_time): its schedule set, or stopped by a tick too long."""

from __future__ import annotations

from typing import Annotated

import msgspec

from rules.events.base import EventKind, Payload, Record, Text, Whole

type Number = Annotated[int, msgspec.Meta(ge=1, le=2**31 - 1)]


class SessionStarted(Payload):
    kind_of_event = EventKind.SESSION_STARTED
    sessions = True
    number: Number


class SessionEnded(Payload):
    kind_of_event = EventKind.SESSION_ENDED
    sessions = True
    number: Number


class SessionShared(Payload):  # the recap shown to the players (`shared`), or no longer
    kind_of_event = EventKind.SESSION_SHARED
    sessions = True
    number: Number
    shared: bool


class Schedule(Record):
    """A campaign's time between sessions as the campaign row keeps it (campaigns.models.Campaign.runs…): moments in
    ISO 8601, UTC; empty while it does not run."""

    runs: bool
    rate: Whole
    hour: Whole
    zone: Text
    counted_from: Text = ""
    next: Text = ""


class RunningTimeSet(Payload):
    """The GM turned time between sessions on or off, or changed its rate or hour; or a tick stopped it (`stopped`:
    the campaign seconds it would have advanced, beyond the most one advance may)."""

    kind_of_event = EventKind.RUNNING_TIME
    sessions = True
    before: Schedule
    after: Schedule
    stopped: Whole | None = None
