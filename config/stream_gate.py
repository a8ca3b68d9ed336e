"""Live-stream connects enter Django a few at a time. Each request Django serves under ASGI runs its middleware on a
thread of its own, and a stream's connect reads the session, the user and the campaign: a reconnect storm (every
browser of a restarted process, at once) was a thousand threads fighting for the interpreter, and another user's
page waited seconds behind them. Here the connects beyond STREAM_CONNECTS_AT_ONCE wait their turn on the event loop,
holding nothing but their socket, until the one before them has its response started; a page is never held."""

import asyncio
from collections.abc import MutableMapping
from typing import Any

from config.request_size import ASGIApp, Message, Receive, Send

STREAM_SUFFIX = "/stream/"


def streams_in_turn(app: ASGIApp, at_once: int) -> ASGIApp:
    turns: asyncio.Semaphore | None = None  # made on the server's event loop, at the first connect

    async def gated(scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        nonlocal turns
        if scope["type"] != "http" or not scope["path"].endswith(STREAM_SUFFIX):
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
            await app(scope, receive, started)
        finally:
            if held:
                semaphore.release()

    return gated
