"""Live updates: PostgreSQL LISTEN/NOTIFY fanned out to Server-Sent Events streams.

One listener per server process holds its own autocommit connection and LISTENs on the channel rules.actions
notifies. A notification carries only (campaign, version, changed character ids). For each campaign that has
watchers, the process renders the changed fragments once per audience — the GM, or one player — and hands the same
bytes to every client of that audience through a bounded queue. A client whose queue is full is dropped, never
waited for; its browser reconnects and gets the current state first. Every process listens, so a change made through
one process reaches browsers connected to any other.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import psycopg
from asgiref.sync import sync_to_async
from django.db import connections
from django.template.loader import render_to_string

from campaigns.log import sheet_log
from campaigns.models import Campaign
from campaigns.table import log_entries
from characters.cards import cards_for
from characters.models import Character
from rules.actions import NOTIFY_CHANNEL

logger = logging.getLogger(__name__)

QUEUE_SIZE = 64  # fragments a client may fall behind before it is dropped
HEARTBEAT_SECONDS = 15.0
RESYNC = "resync"  # put in queues after the listener reconnects: notifications may have been missed


@dataclass(frozen=True)
class Audience:
    """Who sees what: the campaign's GM (user None) or one player."""

    campaign_id: int
    player_id: int | None = None


@dataclass(eq=False)
class Watcher:
    audience: Audience
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False


# --- rendering (sync: the ORM and templates) -----------------------------------------------------------------------


def sse(event: str, html: str) -> str:
    data = "\n".join(f"data: {line}" for line in html.splitlines() or [""])
    return f"event: {event}\n{data}\n\n"


def render_fragments(audience: Audience, character_ids: list[int] | None, everything: bool = False) -> str:
    """The SSE message for one audience: the clock, and the changed characters it may see (all if `everything`)."""
    try:
        campaign = Campaign.objects.get(pk=audience.campaign_id)
        characters = campaign.characters.select_related("player")
        if audience.player_id is not None:
            # The same scoping the views use: a player sees only their own characters.
            characters = characters.filter(pk__in=Character.objects.filter(player_id=audience.player_id))
        if not everything and character_ids is not None:
            characters = characters.filter(pk__in=character_ids)
        read_only = audience.player_id is not None
        parts = [sse("clock", render_to_string("campaign.html#clock_text", {"campaign": campaign}))]
        for card in cards_for(campaign, characters):
            context = {"campaign": campaign, "card": card, "read_only": read_only}
            parts.append(sse(f"card-{card.character.pk}", render_to_string("campaign.html#card_state", context)))
            if read_only:
                parts.append(sse(f"sheet-{card.character.pk}", render_to_string("character_sheet.html#state",
                                                                                 sheet_context(campaign, card))))
        if not read_only:
            parts.append(sse("log", render_to_string("campaign.html#log", {"log": log_entries(campaign),
                                                                            "campaign": campaign})))
        return "".join(parts)
    except Campaign.DoesNotExist:
        return ""
    finally:
        connections["default"].close()  # give the pooled connection back: this runs on a worker thread


def sheet_context(campaign: Campaign, card) -> dict:
    return {"campaign": campaign, "card": card, "health": card.health, "character": card.character,
            "log": sheet_log(campaign, card.character), "read_only": True}


# --- the hub: one per process --------------------------------------------------------------------------------------


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[int, set[Watcher]] = defaultdict(set)
        self.listener: asyncio.Task | None = None

    def watch(self, audience: Audience) -> Watcher:
        watcher = Watcher(audience)
        self.watchers[audience.campaign_id].add(watcher)
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self.listen())
        return watcher

    def forget(self, watcher: Watcher) -> None:
        watching = self.watchers.get(watcher.audience.campaign_id)
        if watching is not None:
            watching.discard(watcher)
            if not watching:
                del self.watchers[watcher.audience.campaign_id]

    async def listen(self) -> None:
        """Hold the LISTEN connection; after a lost connection, reconnect with back-off and resync everyone."""
        delay = 0.25
        first = True
        while self.watchers:
            try:
                params = {k: v for k, v in connections["default"].get_connection_params().items()
                          if k in ("dbname", "user", "password", "host", "port")}
                async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    delay = 0.25
                    if not first:
                        self.broadcast_resync()
                    first = False
                    async for notice in conn.notifies():
                        await self.dispatch(notice.payload)
                        if not self.watchers:
                            return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the connection was killed…
                logger.warning("live: listener lost its connection (%s); retrying in %.2fs", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                first = False

    def broadcast_resync(self) -> None:
        for watching in self.watchers.values():
            for watcher in list(watching):
                self.deliver(watcher, RESYNC)

    async def dispatch(self, payload: str) -> None:
        try:
            message = json.loads(payload)
            campaign_id, characters = int(message["campaign"]), message.get("characters")
        except (ValueError, KeyError, TypeError):
            return
        watching = self.watchers.get(campaign_id)
        if not watching:
            return
        audiences = {watcher.audience for watcher in watching}
        # One render per audience, not per client: the cost does not grow with the number of browsers.
        rendered = await asyncio.gather(*(
            sync_to_async(render_fragments, thread_sensitive=False)(audience, characters) for audience in audiences
        ))
        by_audience = dict(zip(audiences, rendered, strict=True))
        for watcher in list(watching):
            text = by_audience.get(watcher.audience)
            if text:
                self.deliver(watcher, text)

    def deliver(self, watcher: Watcher, text: str) -> None:
        try:
            watcher.queue.put_nowait(text)
        except asyncio.QueueFull:
            watcher.dropped = True  # too slow: drop it rather than wait; its browser reconnects and resyncs
            self.forget(watcher)


hub = Hub()


async def stream(audience: Audience) -> AsyncIterator[str]:
    """One browser's stream: the current state first, then every change, with heartbeats."""
    watcher = hub.watch(audience)
    try:
        yield "retry: 2000\n\n"
        yield await sync_to_async(render_fragments, thread_sensitive=False)(audience, None, True)
        while not watcher.dropped:
            try:
                text = await asyncio.wait_for(watcher.queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield ": heartbeat\n\n"
                continue
            if text == RESYNC:
                text = await sync_to_async(render_fragments, thread_sensitive=False)(audience, None, True)
            yield text
    finally:
        hub.forget(watcher)  # also on a client disconnect (CancelledError): no watcher or queue is left behind
