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
from typing import NamedTuple

import psycopg
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from campaigns import access
from campaigns.access import Audience, characters_seen_by
from campaigns.models import Campaign
from play.cards import Showing, card_html, cards_for
from play.checks import open_calls
from play.forms import PartyViewForm
from play.screens import clock_form, log_context, my_checks, party_context, sheet_context
from rules import notify

logger = logging.getLogger(__name__)

QUEUE_SIZE = 64  # fragments a client may fall behind before it is dropped
HEARTBEAT_SECONDS = 15.0
RESYNC = "resync"  # put in queues after the listener reconnects: notifications may have been missed
END = "end"  # put in the queues of an audience that may no longer watch: its streams close


@dataclass(eq=False)
class Watcher:
    audience: Audience
    site: str  # scheme and host the browser came to: links in the fragments (an invitation's) point there
    language: str  # the language its page was drawn in: the fragments are too
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False


# --- rendering (sync: the ORM and templates) -----------------------------------------------------------------------


def sse(event: str, html: str) -> str:
    data = "\n".join(f"data: {line}" for line in html.splitlines() or [""])
    return f"event: {event}\n{data}\n\n"


class Shown(NamedTuple):
    """What an audience's screens are drawn for: the characters whose cards they show, and those the audience may not
    see named (access.kept_from: a secret healer reads "Alguien" on a player's sheet). When either changes, every
    card and sheet is drawn again."""

    cards: frozenset[int]
    kept: frozenset[int] = frozenset()


def render_fragments(
    audience: Audience,
    site: str,
    language: str,
    changed: tuple[int, ...] | None = None,
    shown: Shown | None = None,
) -> tuple[str, Shown] | None:
    """The SSE message for one audience, rendered by the same components and contexts as a fresh load (live equals
    reload), and the characters its screens then show. The whole state when `changed` is None; else what changed:
    the card and sheet of each changed character — or every card, when the audience's characters are no longer the
    ones its screens show (`shown`: a character added, removed, handed to a player, a healer hidden) — with the clock;
    for a player their companions; for the GM who rests, the party view control, the undo button and the log. None
    when the audience may no longer watch the campaign: its streams end."""
    try:
        with translation.override(language):
            return _render(audience, site, changed, shown)
    except Campaign.DoesNotExist:
        return None
    finally:
        connections["default"].close()  # give the pooled connection back: this runs on a worker thread


def _render(
    audience: Audience, site: str, changed: tuple[int, ...] | None, shown: Shown | None
) -> tuple[str, Shown] | None:
    if not access.still_sees(audience):
        return None
    campaign = Campaign.objects.get(pk=audience.campaign_id)
    seen = characters_seen_by(audience)
    now_shown = Shown(frozenset(seen.values_list("pk", flat=True)), access.kept_from(audience))
    every_card = changed is None or now_shown != shown
    picked = seen if every_card else seen.filter(pk__in=changed or ())
    cards = cards_for(campaign, picked.select_related("player"), invitations=audience.is_gm)
    context: dict[str, object] = {"campaign": campaign, "cards": cards, "site": site, "read_only": not audience.is_gm}
    parts = [sse("clock", render_to_string("components/clock.html", {"campaign": campaign}))]
    if every_card:
        parts.append(sse("cards", render_to_string("components/cards.html", context)))
    else:
        for card in cards:
            html = card_html(card, Showing(read_only=not audience.is_gm, site=site))
            parts.append(sse(f"card-{card.character.pk}", html))
    if not audience.is_gm:
        # A player's companions may change with any change (a companion's health, name or player, one added or
        # removed, the campaign's or a character's party view): drawn again every time, as a fresh load draws them.
        parts.append(sse("party", render_to_string("components/party.html", party_context(campaign, audience))))
    if audience.is_gm:
        calls = render_to_string("components/called_checks.html", {"campaign": campaign, "calls": open_calls(campaign)})
        parts.append(sse("checks", calls))
    else:
        owed = render_to_string("components/my_checks.html", {"campaign": campaign, **my_checks(campaign, audience)})
        parts.append(sse("checks", owed))
    if audience.is_gm:
        if not changed:
            # Only an event about no character (a campaign's edit, its undo) changes the party view: the control is
            # drawn again then, and a choice the GM is making is otherwise left alone.
            control = {"campaign": campaign, "form": PartyViewForm(campaign=campaign)}
            parts.append(sse("party-view", render_to_string("components/party_view_form.html#control", control)))
        context.update(log_context(campaign))
        form = clock_form(campaign, list(seen))
        parts.append(sse("resting", form.resting_html))
        parts.append(sse("undo", render_to_string("components/undo_button.html", context)))
        parts.append(sse("log", render_to_string("components/log.html", context)))
    every_sheet = changed is None or (shown is not None and now_shown.kept != shown.kept)
    for card in cards:
        if every_sheet or card.character.pk in (changed or ()):
            sheet_page = {**sheet_context(campaign, card, now_shown.kept), "is_gm": audience.is_gm}
            sheet = render_to_string("character_sheet.html#state", sheet_page)
            parts.append(sse(f"sheet-{card.character.pk}", sheet))
    return "".join(parts), now_shown


def campaign_version(campaign_id: int) -> int | None:
    try:
        return Campaign.objects.values_list("version", flat=True).get(pk=campaign_id)
    except Campaign.DoesNotExist:
        return None
    finally:
        connections["default"].close()


# --- the hub: one per process --------------------------------------------------------------------------------------

View = tuple[Audience, str, str]  # an audience, the site and the language its fragments are drawn for


class Hub:
    def __init__(self) -> None:
        self.watchers: dict[int, set[Watcher]] = defaultdict(set)
        self.listener: asyncio.Task[None] | None = None
        # A stream's first message (the whole state), by view and the campaign's version it was drawn at: every
        # browser that connects at that version gets the same bytes, rendered once (a reconnect storm costs one render
        # per audience, not one per browser).
        self.states: dict[View, tuple[int, asyncio.Future[str | None]]] = {}
        # The characters each view's screens show after the last change sent to them (changes are sent in commit
        # order): a change that keeps them sends only the changed cards, one that does not sends every card.
        self.shown: dict[View, Shown] = {}

    async def state(self, audience: Audience, site: str, language: str) -> str | None:
        """The whole current state for one view; None when the audience may no longer watch."""
        view = (audience, site, language)
        # Read before rendering: what is drawn is then at least as new as the version it is filed under.
        version = await sync_to_async(campaign_version, thread_sensitive=False)(audience.campaign_id)
        if version is None:
            return None
        known = self.states.get(view)
        if known is not None and known[0] == version and not (known[1].done() and known[1].exception()):
            return await asyncio.shield(known[1])
        drawn: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.states[view] = (version, drawn)
        try:
            drawn_now = await sync_to_async(render_fragments, thread_sensitive=False)(audience, site, language)
            text = None if drawn_now is None else drawn_now[0]
        except BaseException as error:
            drawn.set_exception(error)
            drawn.exception()  # retrieved: no "never retrieved" warning when nobody else was waiting
            raise
        drawn.set_result(text)
        if text is None:
            self.states.pop(view, None)
        return text

    def watch(self, audience: Audience, site: str, language: str) -> Watcher:
        watcher = Watcher(audience, site, language)
        self.watchers[audience.campaign_id].add(watcher)
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self.listen())
        return watcher

    def streams_of(self, user_id: int) -> int:
        """How many streams this process holds open for one user, over all their campaigns."""
        return sum(watcher.audience.user_id == user_id for watching in self.watchers.values() for watcher in watching)

    def forget(self, watcher: Watcher) -> None:
        watching = self.watchers.get(watcher.audience.campaign_id)
        if watching is not None:
            watching.discard(watcher)
            if not watching:
                del self.watchers[watcher.audience.campaign_id]
                for views in (self.states, self.shown):
                    for view in [view for view in views if view[0].campaign_id == watcher.audience.campaign_id]:
                        del views[view]

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
        self.shown.clear()  # changes may have been missed: the next one sends every card
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
        views = {(watcher.audience, watcher.site, watcher.language) for watcher in watching}
        # One render per audience (and language), not per client: the cost does not grow with the number of browsers.
        # On the thread that runs the views (thread_sensitive): the notification arrives at the action's commit, while
        # its view still draws the GM's answer, and the renders wait for it instead of taking turns with it.
        render = sync_to_async(render_fragments, thread_sensitive=True)
        rendered = await asyncio.gather(*(render(*view, change.characters, self.shown.get(view)) for view in views))
        by_view: dict[View, str | None] = {}
        for view, drawn in zip(views, rendered, strict=True):
            by_view[view] = None if drawn is None else drawn[0]
            if drawn is not None:
                self.shown[view] = drawn[1]
        for watcher in list(watching):
            text = by_view.get((watcher.audience, watcher.site, watcher.language), "")
            if text is None:
                self.deliver(watcher, END)
            elif text:
                self.deliver(watcher, text)

    def deliver(self, watcher: Watcher, text: str) -> None:
        try:
            watcher.queue.put_nowait(text)
        except asyncio.QueueFull:
            watcher.dropped = True  # too slow: drop it rather than wait; its browser reconnects and resyncs
            self.forget(watcher)


hub = Hub()


async def stream(audience: Audience, site: str, language: str) -> AsyncIterator[str]:
    """One browser's stream: the current state first, then every change, with heartbeats."""
    watcher = hub.watch(audience, site, language)
    try:
        yield "retry: 2000\n\n"
        first = await hub.state(audience, site, language)
        if first is None:
            return
        yield first
        while not watcher.dropped:
            try:
                text: str | None = await asyncio.wait_for(watcher.queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield ": heartbeat\n\n"
                continue
            if text == RESYNC:
                text = await hub.state(audience, site, language)
            if text is None or text == END:
                return  # this user may no longer watch the campaign; a reconnect is refused
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
    if not await sync_to_async(access.still_sees)(audience):
        raise Http404  # a member who plays no character here any more
    if hub.streams_of(audience.user_id) >= settings.STREAMS_PER_USER:
        # Each stream holds memory and a share of every render: one account cannot hold hundreds (README "Limits").
        message = _("Demasiadas pantallas abiertas con esta cuenta: cierra alguna pestaña y recarga esta.")
        return HttpResponse(message, status=429, headers={"Retry-After": "30"}, content_type="text/plain")
    # A stream lasts as long as the browser stays; its request must not keep a pooled connection all that time.
    await sync_to_async(release_connection)()
    site = f"{request.scheme}://{request.get_host()}"
    language = translation.get_language() or settings.LANGUAGE_CODE
    response = StreamingHttpResponse(stream(audience, site, language), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
