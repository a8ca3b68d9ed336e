"""How a live stream is let in: through Django (play.views.streams.campaign_stream: who asks, for which screen, and may
they), or from memory (`remembered`), for a request just like one whose stream its browser closed a moment ago.

From memory: a reconnect storm (a proxy restarted, a network blip: every browser of a process reconnects at once) cost a
session, an account and a campaign read and Django's request machinery per browser, ~8 ms of CPU each: 1000 browsers
took 8 s to see their screens again. A stream its browser closed is remembered (play.live.memory.Memory) with all
its connect asked (the client's address, the URL, every header: the session cookie and the language with them) and the
headers Django answered; the very same request, within REMEMBER_SECONDS, is answered with those headers and gets a
stream for the same screen, registered as the closed one was, without asking Django: what a stream that had never closed
would have gone on being. Whatever could have ended it since is heard by the hub and makes it come back through Django
instead: a change of its campaign (its audience may no longer watch it), its session ended, its account changed, the
listener reconnected (changes may have been missed); one told it ends is never remembered. Its session is asked again by
the hub's sweep like every stream's, REMEMBER_SECONDS being the time a live stream goes between two."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, MutableMapping
from contextlib import asynccontextmanager, suppress
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from config.request_size import ASGIApp, Message, Receive, Send
from config.stream_gate import STREAM_SUFFIX
from play.live import streams
from play.live.messages import sse
from play.live.watchers import (
    BEAT,
    GONE,
    MOVE,
    MOVE_RETRY,
    RESYNC,
    RETRY,
    ROLE,
    SESSION,
    Comeback,
    Headers,
    Request,
    Watcher,
)

COMEBACKS_AT_ONCE = 8  # streams let in from memory at once, until their first screens are sent (remembered)
OPENED = "play.live.connects.opened"  # a list in a connect's ASGI scope: `opened` puts its stream there, for `answered`


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

    async def letting_in(scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        nonlocal turns
        request = request_of(scope)
        if request is None or request not in streams.hub.memory.remembered:
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
            hub = streams.hub  # after the wait: all that may have been heard meanwhile, heard
            watcher = hub.memory.comeback(request, hub.listening, hub.listened)
            full = watcher is not None and streams.hub.streams_of(watcher.user_id) >= settings.STREAMS_PER_USER
            if watcher is None or watcher.comeback is None or full:  # full: Django says so (campaign_stream)
                shown()
                await app(scope, receive, answered(scope, request, send))
                return
            await from_memory(watcher, watcher.comeback.headers, receive, send, shown)
        finally:
            shown()

    return letting_in


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
    """A stream as Django serves it, ended when Django closes its response. A browser that leaves while the server waits
    to send it a message (it stopped reading: a frozen tab, a slow phone) gets its response's sending cancelled there,
    and Django closes only its own wrapping of the stream: the stream itself, left waiting at that message, would end
    (play.live.connects.stream's finally: its watcher forgotten, what it showed marked) only when the garbage collector
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
    streams.hub.watch(watcher)
    watcher.version = streams.hub.known_version(watcher.campaign_id)
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
        await body.aclose()  # cancelled while sending: the stream ends (play.live.connects.stream's finally) now


async def left(receive: Receive) -> None:
    """Until the browser leaves."""
    while (await receive())["type"] != "http.disconnect":
        pass


def ending(why: str) -> bytes:
    """The last message of a stream: why it ends (an Ending); the page says it in words (screen_end.html)
    and its script stops reconnecting (sse-close)."""
    return sse("end", why).encode()


class Admission:
    """One session's stream connects admitted in turn (play.views.streams.campaign_stream): a burst of them by one
    account is counted against its cap one at a time. Held on the event loop: by session key, its lock and how many
    wait on it."""

    def __init__(self) -> None:
        self.admitting: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def one_at_a_time(self, key: str) -> AsyncIterator[None]:
        """Hold this session's turn (a visitor without one needs none)."""
        if not key:
            yield
            return
        lock, users = self.admitting.get(key) or (asyncio.Lock(), 0)
        self.admitting[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self.admitting[key]
            if users == 1:
                del self.admitting[key]
            else:
                self.admitting[key] = (lock, users - 1)


admission = Admission()


async def listening() -> None:
    """Wait for the hub's LISTEN connection before a stream's first message (then no change can fall between them);
    at most 5 s: with the database down, the screen as it is, and a resync follows."""
    for _ in range(100):
        if streams.hub.listening:
            return
        await asyncio.sleep(0.05)


def told(watcher: Watcher, message: bytes | str) -> tuple[bytes, bool] | None:
    """What a stream sends for the hub's own words, and whether it ends then: a heartbeat (or the end, its session
    expired), or a move (the process is stopping: reconnect in a moment, to another host). None for anything else."""
    if message == BEAT:
        if watcher.expires is not None and watcher.expires <= timezone.now():
            return ending(SESSION), True
        return b": heartbeat\n\n", False
    if message == MOVE:
        return MOVE_RETRY, True
    return None


async def stream(watcher: Watcher) -> AsyncGenerator[bytes]:
    """One browser's stream: the whole screen first, then every change, with heartbeats."""
    watcher.started = True
    try:
        yield RETRY
        await listening()
        first = await streams.hub.state(watcher.seen, watcher.version)
        if first is None:
            yield ending(GONE)
            return
        yield first
        while not watcher.dropped:
            message, event = await watcher.queue.get()
            if (said := told(watcher, message)) is not None:
                yield said[0]
                if said[1]:
                    return
                continue
            text = await streams.hub.state(watcher.seen) if message == RESYNC else message
            if text is None or text == GONE:
                yield ending(GONE)
                return
            if text in (SESSION, ROLE):
                yield ending(str(text))
                return
            yield text if isinstance(text, bytes) else text.encode()
            watcher.last_event = max(watcher.last_event, event)  # sent: a tab closed before it never showed it
            if event:
                streams.hub.sent(event)
    except (asyncio.CancelledError, GeneratorExit):
        # its browser closed it: the same request, soon, is let in again from memory
        streams.hub.memory.remember(watcher, streams.hub.listening, streams.hub.listened)
        raise
    finally:
        streams.hub.forget(watcher)  # also on a client disconnect (CancelledError): no watcher or queue is left behind
        if watcher.last_event:  # what it showed live is not news at its account's next visit (one write per stream)
            await sync_to_async(streams.hub.drawn().ended, thread_sensitive=False)(watcher.seen, watcher.last_event)
