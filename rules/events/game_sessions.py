"""The payloads of game sessions (campaigns.models.GameSession, rules.actions.game_sessions): the GM starts one, ends
it, and shares its recap with the players or takes it back. A session is named by its number in the campaign."""

from __future__ import annotations

from typing import Annotated

import msgspec

from rules.events.base import EventKind, Payload

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
