"""The floor for bench/live.py: the least an SSE fan-out can do. A raw ASGI app with one LISTEN connection that
forwards each NOTIFY payload, as is, to every connected client. No Django, no rendering, no permissions."""

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg

CHANNEL = "bench_floor"
clients: set[asyncio.Queue] = set()
listener: asyncio.Task | None = None


async def listen() -> None:
    async with await psycopg.AsyncConnection.connect(os.environ["FLOOR_DSN"], autocommit=True) as conn:
        await conn.execute(f"LISTEN {CHANNEL}")
        async for notice in conn.notifies():
            message = f"event: clock\ndata: {notice.payload}\n\n".encode()
            for queue in list(clients):
                if queue.qsize() < 64:
                    queue.put_nowait(message)


async def app(
    scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
) -> None:
    global listener
    if scope["type"] != "http":
        return
    if listener is None:
        listener = asyncio.create_task(listen())
    queue: asyncio.Queue = asyncio.Queue()
    clients.add(queue)
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")],
            }
        )
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        while True:
            await send({"type": "http.response.body", "body": await queue.get(), "more_body": True})
    finally:
        clients.discard(queue)
