"""How a live stream is let in: through Django (`campaign_stream`: who asks, for which screen, and may they), or from
memory (`remembered`), for a request just like one whose stream its browser closed a moment ago.

From memory: a reconnect storm (a proxy restarted, a network blip: every browser of a process reconnects at once)
cost a session, an account and a campaign read and Django's request machinery per browser, ~8 ms of CPU each: 1000
browsers took 8 s to see their screens again. A stream its browser closed is remembered (play.live.Hub.remember) with
all its connect asked (the client's address, the URL, every header: the session cookie and the language with them)
and the headers Django answered; the very same request, within REMEMBER_SECONDS, is answered with those headers and
gets a stream for the same screen, registered as the closed one was, without asking Django: what a stream that had
never closed would have gone on being. Whatever could have ended it since is heard by the hub and makes it come back
through Django instead: a change of its campaign (its audience may no longer watch it), its session ended, its account
changed, the listener reconnected (changes may have been missed); one told it ends is never remembered. Its session is
asked again by the hub's sweep like every stream's, REMEMBER_SECONDS being the time a live stream goes between two.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, MutableMapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from campaigns import access
from campaigns.models import Campaign
from config.request_size import ASGIApp, Message, Receive, Send
from config.stream_gate import STREAM_SUFFIX
from play import live, sessions
from play.live import GONE, RETRY, ROLE, SESSION, Comeback, Headers, Request, Watcher, ending, stream
from play.live_drawing import Seen
from play.screens import view_of
from rules import notify

COMEBACKS_AT_ONCE = 8  # streams let in from memory at once, until their first screens are sent (remembered)
OPENED = "play.connects.opened"  # a list in a connect's ASGI scope: `opened` puts its stream there, for `answered`


def request_of(scope: MutableMapping[str, Any]) -> Request | None:
    """All a stream's connect asks (None for any other request): one just like it is the same browser's screen."""
    if scope.get("type") != "http" or scope.get("method") != "GET" or not scope.get("path", "").endswith(STREAM_SUFFIX):
        return None
    client = scope.get("client") or ("", 0)
    headers = tuple((bytes(name), bytes(value)) for name, value in scope.get("headers", ()))
    return client[0], scope.get("scheme"), scope.get("root_path", ""), scope["path"], scope.get("query_string"), headers


def remembered(app: ASGIApp) -> ASGIApp:
    """`app`, but a stream's connect just like one remembered is let in from memory (settings.STREAM_RECONNECTS),
    COMEBACKS_AT_ONCE at a time until each has its first screen sent: a storm of them is a queue that costs the event
    loop nothing while it waits, and another user's page is served between them."""
    turns: asyncio.Semaphore | None = None  # made on the server's event loop, at the first comeback

    async def streams(scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        nonlocal turns
        request = request_of(scope)
        if request is None or request not in live.hub.remembered:
            await app(scope, receive, send if request is None else answered(scope, request, send))
            return
        if turns is None:
            turns = asyncio.Semaphore(COMEBACKS_AT_ONCE)
        semaphore = turns
        await semaphore.acquire()
        held = True

        def shown() -> None:
            nonlocal held
            if held:
                held = False
                semaphore.release()

        try:
            watcher = live.hub.comeback(request)  # after the wait: all that may have been heard meanwhile, heard
            full = watcher is not None and live.hub.streams_of(watcher.user_id) >= settings.STREAMS_PER_USER
            if watcher is None or watcher.comeback is None or full:  # full: Django says so (campaign_stream)
                shown()
                await app(scope, receive, answered(scope, request, send))
                return
            await from_memory(watcher, watcher.comeback.headers, receive, send, shown)
        finally:
            shown()

    return streams


def answered(scope: MutableMapping[str, Any], request: Request, send: Send) -> Send:
    """`send`, noting on the stream Django opened (if it did) the headers it was answered with."""
    opened: list[Watcher] = []
    scope[OPENED] = opened

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            watcher = opened[0] if opened else None
            headers = tuple((bytes(name), bytes(value)) for name, value in message.get("headers", ()))
            cookie = any(name.lower() == b"set-cookie" for name, _value in headers)
            if isinstance(watcher, Watcher) and message.get("status") == 200 and not cookie:
                watcher.comeback = Comeback(request, headers)
        await send(message)

    return sending


class Closable:
    """A stream as Django serves it, ended when Django closes its response. A browser that leaves while the server
    waits to send it a message (it stopped reading: a frozen tab, a slow phone) gets its response's sending cancelled
    there, and Django closes only its own wrapping of the stream: the stream itself, left waiting at that message, would
    end (play.live.stream's finally: its watcher forgotten, what it showed marked) only when the garbage collector
    reached it. Django closes a response on a worker thread, once its request is over: the stream ends on the loop."""

    def __init__(self, body: AsyncGenerator[bytes]) -> None:
        self.body = body
        self.loop = asyncio.get_running_loop()

    def __aiter__(self) -> AsyncGenerator[bytes]:
        return self.body

    def close(self) -> None:
        with suppress(RuntimeError):  # the loop closed (the server stopping): nothing is left to end
            self.loop.call_soon_threadsafe(self.end)

    def end(self) -> None:
        task = self.loop.create_task(self.ended())
        closing.add(task)
        task.add_done_callback(closing.discard)

    async def ended(self) -> None:
        with suppress(RuntimeError):  # still running (ending already, in its finally): it ends on its own
            await self.body.aclose()


closing: set[asyncio.Task[None]] = set()  # the streams being ended (a task must be referenced until it is done)


async def from_memory(
    watcher: Watcher, headers: Headers, receive: Receive, send: Send, shown: Callable[[], None]
) -> None:
    """A remembered stream's comeback: registered at once (no await in between: the per-account cap holds), first
    drawn at the version its campaign is known to be at, sent until it ends or its browser leaves."""
    live.hub.watch(watcher)
    watcher.version = live.hub.known_version(watcher.campaign_id)
    await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
    sending = asyncio.create_task(sent(stream(watcher), send, shown))
    leaving = asyncio.create_task(left(receive))
    try:
        await asyncio.wait({sending, leaving}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sending, leaving):
            task.cancel()
        await asyncio.gather(sending, leaving, return_exceptions=True)
    if not sending.cancelled():
        sending.result()  # its error, if it failed, raised as Django's would be: the server logs it and closes


async def sent(body: AsyncGenerator[bytes], send: Send, shown: Callable[[], None]) -> None:
    """A stream's bytes to its browser; `shown` once its first screen is sent."""
    try:
        async for chunk in body:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if chunk is not RETRY:
                shown()
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        await body.aclose()  # cancelled while sending: the stream ends (play.live.stream's finally) now


async def left(receive: Receive) -> None:
    """Until the browser leaves."""
    while (await receive())["type"] != "http.disconnect":
        pass


def may_watch(campaign: Campaign, audience: access.Audience, sheet: int | None) -> bool:
    """Whether an audience may still watch its campaign, and open this sheet (None: its table or page)."""
    roster = access.roster_of(campaign)
    return roster.still_sees(audience) and (sheet is None or roster.sheet(audience, sheet) is not None)


def ended(why: str) -> HttpResponse:
    """A stream that ends at once, saying why: 200, so that the browser's EventSource reads it (an error status makes
    it retry for ever); its page then stops reconnecting."""
    return HttpResponse(ending(why), content_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def too_many() -> HttpResponse:
    # Each stream holds memory and a share of every render: one account cannot hold hundreds (README "Limits").
    message = _("Demasiadas pantallas abiertas con esta cuenta: cierra alguna pestaña y recarga esta.")
    return HttpResponse(message, status=429, headers={"Retry-After": "30"}, content_type="text/plain")


@dataclass(frozen=True)
class Admitted:
    """Who a stream's connect found asking, and for which screen (campaign_stream)."""

    audience: access.Audience
    sheet: int | None
    expires: datetime
    version: int  # the campaign's, read with it


def admit(request: HttpRequest, campaign_id: int) -> Admitted | HttpResponse:
    """Whether this request may open the campaign's stream (as what audience, on which screen), or the answer that
    ends it at once: every read of the connect in one go, and the pooled connection given back before the stream
    starts (config.stream_gate lets only a few connects in at once, so a burst of them never holds the pool)."""
    user = request.user
    if not user.is_authenticated:
        return ended(SESSION)
    campaign = access.CAMPAIGN_SEEN.first(user=user.pk, campaign=campaign_id)
    if campaign is None:
        return ended(GONE)  # deleted, or never this user's: the same words, which tell nothing more
    if not isinstance(request, ASGIRequest):
        # Under WSGI (runserver, the test live server) a stream would hold a whole thread forever: no live
        # updates there, and 204 tells the browser's EventSource not to retry. `make run` and Docker serve ASGI.
        return HttpResponse(status=204)
    audience = access.audience_of(user, campaign)
    sheet = request.GET.get("sheet", "")
    character = int(sheet) if sheet.isascii() and sheet.isdigit() and len(sheet) < 19 else None
    drawn_for = request.GET.get("as")  # the role its page was drawn for (static/js/screen.js): "gm" or "player"
    if drawn_for in ("gm", "player") and (drawn_for == "gm") != audience.is_gm:
        # Made co-GM, or no longer one, since the page was drawn: a reload draws the screen of the new role.
        return ended(ROLE if may_watch(campaign, audience, character) else GONE)
    if not may_watch(campaign, audience, character):
        return ended(GONE)  # the same words for a member who plays no character here and a sheet not theirs
    admitted = Admitted(audience, character, request.session.get_expiry_date(), campaign.version)
    connections["default"].close()  # with the pool on, this gives the connection back: the stream may last hours
    return admitted


@login_not_required  # an anonymous stream is told its session ended, not sent to the login page
@require_GET
async def campaign_stream(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """The campaign's live Server-Sent Events stream for one screen (the table, a player's page, or with `sheet` a
    character's sheet) of this user's audience. `tab` names the browser tab (its X-Tab header)."""
    key = request.session.session_key or ""
    async with live.hub.one_at_a_time(key):  # one session's connects: a burst of them is admitted in turn
        holder = live.hub.user_of_session(key)
        if holder is not None and live.hub.streams_of(holder) >= settings.STREAMS_PER_USER:
            return too_many()  # so a burst beyond the cap costs no query
        mark = live.hub.mark(campaign_id)
        admitted = await sync_to_async(admit)(request, campaign_id)
        if isinstance(admitted, HttpResponse):
            return admitted
        return opened(request, admitted, key, mark)


def opened(request: HttpRequest, admitted: Admitted, key: str, mark: tuple[int, int] | None) -> HttpResponseBase:
    """The stream of an admitted connect, counted and registered in one step (no await between): 50 connects at once
    by one account get the cap exactly. If no change of its campaign was heard since before `admit` read it (`mark`),
    its first screen is drawn at the version read then: a change that read missed reaches it as the next message."""
    audience = admitted.audience
    seen = Seen(
        view_of(audience, admitted.sheet),
        f"{request.scheme}://{request.get_host()}",
        translation.get_language() or settings.LANGUAGE_CODE,
        get_script_prefix(),
    )
    watcher = Watcher(
        seen, notify.tab_or_nothing(request.GET.get("tab")), sessions.session_digest(key), admitted.expires, key
    )
    if live.hub.streams_of(audience.user_id) >= settings.STREAMS_PER_USER:
        return too_many()
    live.hub.watch(watcher)
    if mark is not None and live.hub.mark(audience.campaign_id) == mark:
        watcher.version = admitted.version
        live.hub.learned(audience.campaign_id, mark, admitted.version)
    told = request.scope.get(OPENED) if isinstance(request, ASGIRequest) else None
    if isinstance(told, list):
        told.append(watcher)  # for `answered`, which sees the headers it is answered with
    response = StreamingHttpResponse(Closable(stream(watcher)), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
