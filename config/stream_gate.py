"""Live-stream connects take their own way into Django: a few at a time, through only the middleware a stream needs.

A few at a time: each request Django serves under ASGI runs its middleware on a thread of its own, and a stream's
connect reads the session, the user and the campaign: a reconnect storm (every browser of a restarted process, at
once) was a thousand threads fighting for the interpreter, and another user's page waited seconds behind them. Here
the connects beyond STREAM_CONNECTS_AT_ONCE wait their turn on the event loop, holding nothing but their socket, until
the one before them has its response started; a page is never held.

Only the middleware it needs (STREAM_MIDDLEWARE, MIDDLEWARE's own entries in its order): who is asking (the client's
address, the session, the account), in which language, and the 503 when the database is down. What else MIDDLEWARE
does guards forms, logins and pages, none of which a stream has, and each of Django's middleware classes costs an
async request two hops to a thread and back: a connect took ~11 ms of CPU through all of them, ~8 through these.

On a few threads kept for them: Django gives each request a thread of its own (asgiref's ThreadSensitiveContext), for
as long as the request lasts; a stream lasts hours. A thousand open streams held a thousand idle threads, and when
they all ended at once (a proxy restarted: the reconnect storm) the event loop started a thread to shut down each of
theirs and waited for every start: ~0.3 s of the loop's time in slices of 100–300 ms, while another user's page waited
for its turn (bench/live.py's storm). Connects take STREAM_CONNECTS_AT_ONCE threads in turn, as they take the gate.
"""

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from config.request_size import ASGIApp, Message, Receive, Send

STREAM_SUFFIX = "/stream/"  # a page's live stream
API_STREAM_SUFFIX = "/events"  # the API's (play.api.stream): gated too, never let in from memory (connects.remembered)


class StreamHandler(ASGIHandler):
    """Django's ASGI handler with STREAM_MIDDLEWARE for its middleware (loaded by Django's own code, as MIDDLEWARE), and
    a stream's synchronous code (its middleware, its checks, its close) on one of a few threads kept, not its own."""

    def __init__(self) -> None:
        super().__init__()
        threads = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="stream-connect")
            for _ in range(max(1, settings.STREAM_CONNECTS_AT_ONCE))
        ]
        self.threads = itertools.cycle(threads)

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Mapping[str, Any]]],
        send: Callable[[Mapping[str, Any]], Awaitable[None]],
    ) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # which refuses it, as Django does
            return
        async with ThreadSensitiveContext(executor=next(self.threads)):
            await self.handle(scope, receive, send)

    def load_middleware(self, is_async: bool = False) -> None:
        everything = settings.MIDDLEWARE
        settings.MIDDLEWARE = settings.STREAM_MIDDLEWARE  # for the loading only, once, when the process starts
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = everything


def streams_in_turn(app: ASGIApp, streams: ASGIApp, at_once: int) -> ASGIApp:
    """`app` for everything but stream connects, which go to `streams`, `at_once` at a time."""
    turns: asyncio.Semaphore | None = None  # made on the server's event loop, at the first connect

    async def gated(scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        nonlocal turns
        if scope["type"] != "http" or not scope["path"].endswith((STREAM_SUFFIX, API_STREAM_SUFFIX)):
            await app(scope, receive, send)
            return
        if turns is None:
            turns = asyncio.Semaphore(at_once)
        semaphore = turns
        await semaphore.acquire()
        held = True

        async def started(message: Message) -> None:
            nonlocal held
            if held and message["type"] == "http.response.start":
                held = False
                semaphore.release()  # the response begins: the stream now waits on the event loop, not on Django
            await send(message)

        try:
            await streams(scope, receive, started)
        finally:
            if held:
                semaphore.release()

    return gated
