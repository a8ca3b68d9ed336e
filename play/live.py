"""Live updates: PostgreSQL LISTEN/NOTIFY fanned out to Server-Sent Events streams.

One listener per server process holds its own autocommit connection and LISTENs on the channel of rules.notify,
whose Change carries only the campaign and the changed character ids. For each campaign that has
watchers, the process renders the changed fragments once per audience — the GM, or one player — and hands the same
bytes to every client of that audience through a bounded queue. A client whose queue is full is dropped, never
waited for; its browser reconnects and gets the current state first. Every process listens, so a change made through
one process reaches browsers connected to any other.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import psycopg
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from campaigns import access
from campaigns.access import Audience
from campaigns.models import Campaign
from play.cards import cards_for
from play.log import table_log
from play.screens import sheet_context
from rules import notify

logger = logging.getLogger(__name__)

QUEUE_SIZE = 64  # fragments a client may fall behind before it is dropped
HEARTBEAT_SECONDS = 15.0
RESYNC = "resync"  # put in queues after the listener reconnects: notifications may have been missed


@dataclass(eq=False)
class Watcher:
    audience: Audience
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False


# --- rendering (sync: the ORM and templates) -----------------------------------------------------------------------


def sse(event: str, html: str) -> str:
    data = "\n".join(f"data: {line}" for line in html.splitlines() or [""])
    return f"event: {event}\n{data}\n\n"


def render_fragments(audience: Audience, character_ids: tuple[int, ...] | None) -> str:
    """The SSE message for one audience: the clock, and the changed characters it may see (None: all of them)."""
    try:
        campaign = Campaign.objects.get(pk=audience.campaign_id)
        # The same scoping the views use (campaigns.access): a player sees only their own characters.
        characters = access.characters_seen_by(audience).select_related("player")
        if character_ids is not None:
            characters = characters.filter(pk__in=character_ids)
        read_only = not audience.is_gm
        parts = [sse("clock", render_to_string("components/clock.html", {"campaign": campaign}))]
        cards = cards_for(campaign, characters)
        for card in cards:
            context = {"campaign": campaign, "card": card, "read_only": read_only}
            parts.append(sse(f"card-{card.character.pk}", render_to_string("components/card.html#card_state", context)))
            if read_only:
                sheet = render_to_string("character_sheet.html#state", sheet_context(campaign, card))
                parts.append(sse(f"sheet-{card.character.pk}", sheet))
        if audience.is_gm:
            names = dict(campaign.characters.values_list("pk", "name"))
            log = render_to_string("components/log.html", {"log": table_log(campaign, names), "campaign": campaign})
            parts.append(sse("log", log))
        return "".join(parts)
    except Campaign.DoesNotExist:
        return ""
    finally:
        connections["default"].close()  # give the pooled connection back: this runs on a worker thread


# --- the hub: one per process --------------------------------------------------------------------------------------


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[int, set[Watcher]] = defaultdict(set)
        self.listener: asyncio.Task[None] | None = None

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
                params = {
                    k: v
                    for k, v in connections["default"].get_connection_params().items()
                    if k in ("dbname", "user", "password", "host", "port")
                }
                async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {notify.CHANNEL}")
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
        change = notify.Change.parse(payload)
        if change is None:
            return
        watching = self.watchers.get(change.campaign_id)
        if not watching:
            return
        audiences = {watcher.audience for watcher in watching}
        # One render per audience, not per client: the cost does not grow with the number of browsers.
        rendered = await asyncio.gather(
            *(
                sync_to_async(render_fragments, thread_sensitive=False)(audience, change.characters)
                for audience in audiences
            )
        )
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
        yield await sync_to_async(render_fragments, thread_sensitive=False)(audience, None)
        while not watcher.dropped:
            try:
                text = await asyncio.wait_for(watcher.queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield ": heartbeat\n\n"
                continue
            if text == RESYNC:
                text = await sync_to_async(render_fragments, thread_sensitive=False)(audience, None)
            yield text
    finally:
        hub.forget(watcher)  # also on a client disconnect (CancelledError): no watcher or queue is left behind


def release_connection() -> None:
    connections["default"].close()  # with the pool on, this gives the connection back


@require_GET
async def campaign_stream(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """The campaign's live Server-Sent Events stream for this user's audience (the GM, or one player)."""
    user = await request.auser()
    campaign = await access.campaigns_of(user).filter(pk=campaign_id).afirst()
    if campaign is None:
        raise Http404
    if not isinstance(request, ASGIRequest):
        # Under WSGI (runserver, the test live server) a stream would hold a whole thread forever: no live updates
        # there, and 204 tells the browser's EventSource not to retry. `make run` and Docker serve ASGI.
        return HttpResponse(status=204)
    audience = access.audience_of(user, campaign)
    # A stream lasts as long as the browser stays; its request must not keep a pooled connection all that time.
    await sync_to_async(release_connection)()
    response = StreamingHttpResponse(stream(audience), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
