"""A live stream as the hub holds it (`Watcher`), with what it is told (the words of its queue: `RESYNC`, `BEAT`, and
the Endings), and the times that bound it; what the hub asks of the screens it streams (`Screens`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from play.live.messages import Ending, Watched
from rules import notify

QUEUE_SIZE = 64  # messages a client may fall behind before it is dropped
HEARTBEAT_SECONDS = 15.0
RETRY = b"retry: 2000\n\n"  # a stream's first bytes: how long its browser waits before it reconnects
# What a queue carries besides changes' messages (bytes, encoded once for all their clients): these words.
RESYNC = "resync"  # put in queues after the listener reconnects: notifications may have been missed
MOVE = "move"  # the process is stopping (SIGTERM: Hub.leave): the stream ends, its browser to reconnect at once
MOVE_RETRY = b"retry: 250\n\n"  # what a stream sends last when it moves: reconnect in a quarter of a second
BEAT = "beat"  # put in every queue every HEARTBEAT_SECONDS: a heartbeat is sent, or the end if the session expired
GONE = Ending.GONE  # the campaign is gone, or this audience may no longer watch it: its streams end
SESSION = Ending.SESSION  # the session behind the stream ended: its stream ends
ROLE = Ending.ROLE  # its person holds the other role now (a player made co-GM, a co-GM removed): its streams end
ENDS = frozenset(Ending)  # the words that end a stream
SESSION_RECHECK_SECONDS = 2.0  # an account changed: a session found invalid is asked again this much later
SESSION_SWEEP_SECONDS = 10.0  # and every this often, all the sessions of this process's streams are asked
NEVER_STARTED_SECONDS = 30.0  # a stream registered whose response never began is forgotten after this
# A stream its browser closed is remembered this long: the same request again is let in without asking Django
# (play.live.connects.remembered); no longer than a live stream goes between two asks of its session (Hub.sweep).
REMEMBER_SECONDS = SESSION_SWEEP_SECONDS


# All a stream's connect asked: its address, URL and headers (play.live.connects.request_of).
Request = tuple[object, ...]
Headers = tuple[tuple[bytes, bytes], ...]


@dataclass(frozen=True)
class Comeback:
    """What a stream's connect asked and the headers Django answered it with: the same request again, made soon after
    the browser closed the stream, is answered with them from memory (play.live.connects)."""

    request: Request
    headers: Headers


@dataclass(frozen=True)
class Screens[V: Watched]:
    """What the live machinery asks of the screens it streams, which the features register once (`register`:
    play.screens.streamed.SCREENS, by play.apps.PlayConfig.ready). Each runs on a worker thread (sync: the ORM and
    templates), but `promised`, awaited on the event loop, and `showed`, which runs on it and must be quick."""

    # A change drawn once for each view (None: its audience may no longer watch; an Ending: its stream ends, saying
    # why; "": nothing of it touched).
    changed: Callable[[notify.Change, set[V]], dict[V, str | None]]
    # What the request that made this change drew of it for this process's views, if it did (else an empty dict):
    # `changed` draws what it left out.
    promised: Callable[[notify.Change], Awaitable[dict[V, str | None]]]
    whole: Callable[[V], str | None]  # a view's whole screen, an SSE message: a stream's first (None: may not watch)
    version: Callable[[int], int | None]  # a campaign's version (None: it is gone)
    showed: Callable[[int, list[V], int | None], None]  # these views' streams showed this change (its event id)
    ended: Callable[[V, int], None]  # a stream of this view ended having shown every change up to this event


@dataclass(eq=False)
class Watcher:
    seen: Watched
    tab: str  # the browser tab (rules.notify.Change.tab): a change it made reached it in its answer
    session: str  # a digest of its session key (rules.notify.session_digest): a logout elsewhere ends the stream
    expires: datetime | None = None  # when its session expires: the stream ends then
    key: str = ""  # its session key, kept in this process only: is it still valid (logins.invalid_sessions)
    queue: asyncio.Queue[tuple[bytes | str, int]] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))  # event
    dropped: bool = False
    opened: float = field(default_factory=time.monotonic)  # registered then (campaign_stream)
    started: bool = False  # its response began (stream): until then it only holds a place
    last_event: int = 0  # the latest change its screen showed (or had in an answer): its account's mark at the end
    version: int | None = None  # its campaign's version as its connect read it, if no change was heard since (opened)
    comeback: Comeback | None = None  # set when its response began (connects.py): may be let in again from memory
    told: bool = False  # told its stream ends (ENDS): never let in again from memory

    @property
    def campaign_id(self) -> int:
        return self.seen.campaign_id

    @property
    def user_id(self) -> int:
        return self.seen.user_id


# --- the hub: one per process --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Remembered:
    watcher: Watcher  # the stream its browser closed
    until: float  # time.monotonic()
    listened: int  # Hub.listened then: after the listener reconnects, changes may have been missed
