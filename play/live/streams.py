"""Live updates: PostgreSQL LISTEN/NOTIFY fanned out to Server-Sent Events streams.

One listener per server process holds its own autocommit connection and LISTENs on the channel of rules.notify, whose
Change names the campaign, the event logged, the changed characters and the browser tab that acted. For each campaign
that has watchers, the process draws what the change touched once per view — an audience (the GM, or one player) looking
at one screen (play.screens), in one language — and hands the same bytes to every client of that view through a bounded
queue, except the tab that acted, which had them in the answer to its request: each change reaches each screen once.
A client whose queue is full is dropped, never waited for; its browser reconnects and gets the whole screen first.
Every process listens, so a change made through one process reaches browsers connected to any other. A stream ends,
saying why, when its campaign is gone, when its audience may no longer watch it and when its session ends (a logout
elsewhere, or its expiry).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import uuid
from collections import defaultdict
from typing import Any, ClassVar

import psycopg
from asgiref.sync import sync_to_async
from django.db import connections

from config import metrics
from play.live import logins, stopping
from play.live.memory import Memory
from play.live.messages import Watched, message
from play.live.watchers import (
    BEAT,
    ENDS,
    GONE,
    HEARTBEAT_SECONDS,
    MOVE,
    NEVER_STARTED_SECONDS,
    RESYNC,
    SESSION,
    SESSION_RECHECK_SECONDS,
    SESSION_SWEEP_SECONDS,
    Screens,
    Watcher,
)
from rules import notify

logger = logging.getLogger(__name__)
UNSENT_KEPT = 1000  # changes whose messages are counted until sent (the metrics' fan-out time)


def register(screens: Screens[Any]) -> None:
    """The screens this process streams (play.apps.PlayConfig.ready)."""
    Hub.screens = screens


class Hub:
    screens: ClassVar[Screens[Any] | None] = None  # `register`

    def __init__(self) -> None:
        self.watchers: dict[int, set[Watcher]] = defaultdict(set)
        self.of_user: dict[int, set[Watcher]] = defaultdict(set)  # the same watchers, by their user (streams_of)
        self.listener: asyncio.Task[None] | None = None
        # A stream's first message (the whole screen), by view and the campaign's version it was drawn at: every
        # browser that connects at that version gets the same bytes, made once (a reconnect storm costs one per view,
        # not one per browser), from the screen kept whole when a page or another stream drew it already
        # (play.screens.whole_screen, kept under everything it is drawn from).
        self.states: dict[Watched, tuple[int, asyncio.Future[bytes | None]]] = {}
        # Set while the LISTEN connection listens: a stream draws its first screen only then, so that no change can
        # commit between that drawing and the first notification this process hears.
        self.listening = False
        self.checks: set[asyncio.Task[None]] = set()  # Hub.check_sessions running (kept: a task must be referenced)
        self.sweeper: asyncio.Task[None] | None = None  # Hub.sweep, while there are watchers
        self.beater: asyncio.Task[None] | None = None  # Hub.beat, while there are watchers
        # What this process has heard of each campaign: the count of changes heard (of all campaigns) when it heard
        # its latest, and how many times the LISTEN connection was made. See `mark`.
        self.heard: dict[int, int] = {}
        self.changes_heard = 0
        # Of each recent change (by its event): when it was heard, and how many of its messages are still to be sent.
        self.unsent: dict[int, list[float]] = {}
        # Kept listening with no stream open (play.live.health asks it to: a process ready to serve is one whose
        # LISTEN connection hears), and when it last heard this process's own probe (its id: `process`).
        self.kept = False
        self.heeded = False  # SIGTERM ends the streams first (play.live.stopping)
        self.leaving = False  # the process is stopping: every stream was told to reconnect elsewhere (`leave`)
        self.process = uuid.uuid4().hex
        self.probe_heard: float | None = None
        self.listened = 0
        # A campaign's version as a read found it, with the mark taken before that read: still its version while the
        # mark is the same (known_version). A storm of reconnects draws their first screens without reading it.
        self.known: dict[int, tuple[tuple[int, int], int]] = {}
        # The streams their browsers closed, let in again from memory (play.live.memory)
        self.memory = Memory()

    def mark(self, campaign_id: int) -> tuple[int, int] | None:
        """Where this process is in what it has heard of a campaign (None while it does not listen). The same mark
        before a read of the campaign and after a stream was registered says that no change of it was heard in
        between: any change the read missed is still to be heard, and will reach that stream."""
        return (self.listened, self.heard.get(campaign_id, 0)) if self.listening else None

    def learned(self, campaign_id: int, mark: tuple[int, int] | None, version: int) -> None:
        """A read of the campaign found this version, and `mark` was its mark before that read."""
        if mark is not None:
            self.known[campaign_id] = (mark, version)

    def known_version(self, campaign_id: int) -> int | None:
        """The campaign's version if no change of it was heard since a read found it (see `mark`): any change that
        read missed is still to be heard, so a stream registered now and first drawn at it misses nothing."""
        known = self.known.get(campaign_id)
        mark = self.mark(campaign_id)
        return known[1] if known is not None and mark is not None and known[0] == mark else None

    def drawn(self) -> Screens[Any]:
        if self.screens is None:
            raise RuntimeError("no screens registered with the live streams (play.apps.PlayConfig.ready does)")
        return self.screens

    async def state(self, seen: Watched, version: int | None = None) -> bytes | None:
        """The whole current screen for one view, as its streams send it; None when the audience may no longer watch.
        `version`: the campaign's as a connect read it, no change heard since (Watcher.version); else read here."""
        # Read before drawing: what is drawn is then at least as new as the version it is filed under.
        campaign_id = seen.campaign_id
        if version is None:
            mark = self.mark(campaign_id)
            version = await sync_to_async(self.drawn().version, thread_sensitive=False)(campaign_id)
            if version is not None:
                self.learned(campaign_id, mark, version)
        if version is None:
            return None
        known = self.states.get(seen)
        if known is not None and known[0] == version and not (known[1].done() and known[1].exception()):
            return await asyncio.shield(known[1])
        drawn: asyncio.Future[bytes | None] = asyncio.get_running_loop().create_future()
        self.states[seen] = (version, drawn)
        try:
            text = await sync_to_async(self.drawn().whole, thread_sensitive=False)(seen)
        except BaseException as error:
            drawn.set_exception(error)
            drawn.exception()  # retrieved: no "never retrieved" warning when nobody else was waiting
            raise
        data = None if text is None else text.encode()  # once for all the browsers that connect at this version
        drawn.set_result(data)
        if data is None:
            self.states.pop(seen, None)
        return data

    def watch(self, watcher: Watcher) -> Watcher:
        metrics.STREAMS.labels(watcher.seen.kind).inc()
        self.watchers[watcher.campaign_id].add(watcher)
        stopping.heed(self)
        if self.leaving:
            self.deliver(watcher, MOVE)
        self.of_user[watcher.user_id].add(watcher)
        # The process's tasks, in a context of their own, not that of the connect that starts them: its thread
        # (asgiref's ThreadSensitiveContext, config.stream_gate) and its language end with it.
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self.listen(), context=contextvars.Context())
        if self.sweeper is None or self.sweeper.done():
            self.sweeper = asyncio.create_task(self.sweep(), context=contextvars.Context())
        if self.beater is None or self.beater.done():
            self.beater = asyncio.create_task(self.beat(), context=contextvars.Context())
        return watcher

    def leave(self) -> None:
        """The process is stopping (SIGTERM): every stream ends at once, its browser told to reconnect in a moment —
        through the balancer, to a host that is not stopping — and the server, with no stream left open, exits as
        soon as the requests in flight are answered. `/readyz` says "stopping" from now on."""
        self.leaving = True
        self.broadcast(MOVE)

    def keep_listening(self) -> None:
        """Listen from now on, whether or not any stream is open (play.live.health)."""
        stopping.heed(self)
        self.kept = True
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self.listen(), context=contextvars.Context())

    def streams_of(self, user_id: int) -> int:
        """How many streams this process holds open for one user, over all their campaigns. A stream registered but
        never started (its browser left before the first byte) is forgotten after a while: nothing else would."""
        count = 0
        for watcher in list(self.of_user.get(user_id, ())):
            if not watcher.started and time.monotonic() - watcher.opened > NEVER_STARTED_SECONDS:
                self.forget(watcher)
                continue
            count += 1
        return count

    def user_of_session(self, key: str) -> int | None:
        """The user whose stream this process holds under this session key, if any."""
        for watching in self.watchers.values():
            for watcher in watching:
                if key and watcher.key == key:
                    return watcher.user_id
        return None

    def forget(self, watcher: Watcher) -> None:
        if watcher in self.watchers.get(watcher.campaign_id, ()):
            metrics.STREAMS.labels(watcher.seen.kind).dec()
        mine = self.of_user.get(watcher.user_id)
        if mine is not None:
            mine.discard(watcher)
            if not mine:
                del self.of_user[watcher.user_id]
        watching = self.watchers.get(watcher.campaign_id)
        if watching is not None:
            watching.discard(watcher)
            if not watching:
                del self.watchers[watcher.campaign_id]
                for seen in [seen for seen in self.states if seen.campaign_id == watcher.campaign_id]:
                    del self.states[seen]

    async def listen(self) -> None:
        """Hold the LISTEN connection; after a lost connection, reconnect with back-off and resync everyone."""
        try:
            await self._listen()
        finally:
            self.listening = False  # gone with its task: the next stream waits for a new one to listen

    async def _listen(self) -> None:
        delay = 0.25
        first = True
        while self.watchers or self.kept:
            try:
                params = {
                    k: v
                    for k, v in connections["default"].get_connection_params().items()
                    if k in ("dbname", "user", "password", "host", "port")
                }
                async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {notify.CHANNEL}")
                    self.listened += 1  # what was heard before may have missed changes: no mark from then holds
                    self.listening = True
                    delay = 0.25
                    if not first:
                        self.broadcast(RESYNC)
                    first = False
                    async for notice in conn.notifies():
                        await self.dispatch(notice.payload)
                        if not self.watchers and not self.kept:
                            return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the connection was killed…
                self.listening = False
                logger.warning("live: listener lost its connection (%s); retrying in %.2fs", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                first = False

    def broadcast(self, text: str) -> None:
        for watching in list(self.watchers.values()):
            for watcher in list(watching):
                self.deliver(watcher, text)

    async def dispatch(self, payload: str) -> None:
        change = notify.Change.parse(payload)
        if change is None:
            self.notice(payload)
        else:
            await self.changed(change)

    def notice(self, payload: str) -> None:
        """An account's notice: its sessions' streams end, if they no longer sign it in. Or a probe: this process's
        own is heard (play.live.health)."""
        if notify.probe_of(payload) == self.process:
            self.probe_heard = time.monotonic()
            return
        user_id = notify.changed_user(payload)
        if user_id is not None:
            mine = [
                watcher for watching in self.watchers.values() for watcher in watching if watcher.user_id == user_id
            ]
            self.memory.unremember(lambda watcher: watcher.user_id == user_id)
            task = asyncio.create_task(self.check_sessions(mine))  # not awaited: the listener goes on
            self.checks.add(task)
            task.add_done_callback(self.checks.discard)
            return
        ended = notify.ended_session(payload)
        if ended is not None:
            self.memory.unremember(lambda watcher: watcher.session == ended)
            for everyone in list(self.watchers.values()):
                for watcher in [watcher for watcher in everyone if watcher.session == ended]:
                    self.deliver(watcher, SESSION)

    async def changed(self, change: notify.Change) -> None:
        """A change of a campaign: each of its streams here gets it as its view draws it, once."""
        heard = time.monotonic()
        self.changes_heard += 1
        self.heard[change.campaign_id] = self.changes_heard  # before any wait: a connect's mark sees it at once
        self.memory.unremember_campaign(change.campaign_id)  # and at the end: for one its browser closes meanwhile
        watching = self.watchers.get(change.campaign_id)
        if not watching:
            return
        # One drawing per view, not per client: the cost does not grow with the number of browsers. The tab that acted
        # has the change in the answer to its request: its view is drawn only if another browser shows it too. The
        # request that made it may have drawn it for this process's views already (Screens.promised); a view it did
        # not know of (a stream opened since) is drawn here.
        views = self.views_of(change.campaign_id, change.tab)
        drawn = await self.drawn().promised(change) if views else {}
        if missing := views - drawn.keys():
            drawn |= await sync_to_async(self.drawn().changed, thread_sensitive=True)(change, missing)
        by_view = {seen: message(html) for seen, html in drawn.items()}
        metrics.CHANGES.inc()
        if change.event is not None:
            self.unsent[change.event] = [heard, 0]  # its messages still to send: `sent` observes the last
        showed = []  # the views whose live screens show the change: no news at their accounts' next visit
        for watcher in list(watching):
            text, acted = by_view.get(watcher.seen, ""), bool(change.tab and watcher.tab == change.tab)
            if change.event is not None and (text == "" or acted):  # current up to the change: nothing to send, or
                watcher.last_event = max(watcher.last_event, change.event)  # the tab that acted had it in its answer
            shows = text is not None and text not in ENDS
            if shows and watcher.started:
                showed.append(watcher.seen)
            if watcher.seen not in by_view or acted:
                continue  # the tab that acted: it has this change already, in the answer to its request
            if text is None:
                self.deliver(watcher, GONE)
            elif text in ENDS:
                self.deliver(watcher, text)
            elif text:
                self.deliver(watcher, text, change.event or 0)  # current up to it once sent (stream)
                if change.event is not None and not watcher.dropped:
                    self.unsent[change.event][1] += 1
        self.drawn().showed(change.campaign_id, showed, change.event)
        self.memory.unremember_campaign(change.campaign_id)
        if change.event is not None and not self.unsent[change.event][1]:
            del self.unsent[change.event]
        while len(self.unsent) > UNSENT_KEPT:  # messages of a stream that was dropped are never sent: let them go
            del self.unsent[next(iter(self.unsent))]

    def sent(self, event: int) -> None:
        """A stream sent its message of this change: after the last one, the change's trip is measured."""
        unsent = self.unsent.get(event)
        if unsent is None:
            return
        unsent[1] -= 1
        if unsent[1] <= 0:
            del self.unsent[event]
            metrics.FANOUT.observe(time.monotonic() - unsent[0])

    def views_of(self, campaign_id: int, tab: str) -> set[Watched]:
        """The views of a campaign this process's streams show, but the acting tab's (it has the change in its
        answer)."""
        watching = tuple(self.watchers.get(campaign_id, ()))
        return {watcher.seen for watcher in watching if not (tab and watcher.tab == tab)}

    async def check_sessions(self, mine: list[Watcher]) -> None:
        """End the streams among these whose sessions no longer sign their user in (logins.invalid_sessions: a
        logout, a password changed elsewhere, the account made inactive or deleted). Asked twice, a moment apart,
        before a stream ends: the session that changed its own password is given its new hash right after the
        change is saved."""
        for wait in (0.0, SESSION_RECHECK_SECONDS):
            await asyncio.sleep(wait)
            signed = {(watcher.user_id, watcher.key) for watcher in mine}
            invalid = await sync_to_async(logins.invalid_sessions, thread_sensitive=False)(signed)
            mine = [watcher for watcher in mine if (watcher.user_id, watcher.key) in invalid]
            if not mine:
                return
        for watcher in mine:
            self.deliver(watcher, SESSION)

    async def sweep(self) -> None:
        """Every SESSION_SWEEP_SECONDS, ask of every stream's session: what no notice tells (a session row deleted,
        an account changed by a bulk update) ends its streams too, within that time and the recheck."""
        while self.watchers:
            await asyncio.sleep(SESSION_SWEEP_SECONDS)
            everyone = [watcher for watching in self.watchers.values() for watcher in watching if watcher.started]
            try:
                await self.check_sessions(everyone)
            except Exception as error:  # the database is down: the next sweep asks again
                logger.warning("live: the sessions' sweep failed (%s)", error)

    async def beat(self) -> None:
        """Every HEARTBEAT_SECONDS, a heartbeat for every stream (one timer for all, not one per stream and message)."""
        while self.watchers:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            for watcher in [watcher for watching in self.watchers.values() for watcher in watching if watcher.started]:
                self.deliver(watcher, BEAT)

    def deliver(self, watcher: Watcher, text: bytes | str, event: int = 0) -> None:
        watcher.told = watcher.told or text in ENDS
        try:
            watcher.queue.put_nowait((text, event))
        except asyncio.QueueFull:
            watcher.dropped = True  # too slow: drop it rather than wait; its browser reconnects and resyncs
            self.forget(watcher)


hub = Hub()
