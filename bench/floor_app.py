"""The floor for bench/live.py: the least a "click → every screen" round can do, measured exactly like the app.

A raw ASGI app, no Django. `POST /?c=ID` runs one transaction — UPDATE a row of `bench_floor` (its version + 1) and
pg_notify — and answers with the new version. One LISTEN connection per process forwards each notification, a few
bytes, to every SSE client of that id (`GET /?c=ID`), through a bounded queue each, as the app's hub does. On connect a
client first gets the last version this process has seen (from memory: no query), as the app sends its state first.
The table is made by bench/live.py: `CREATE TABLE bench_floor (id int PRIMARY KEY, version int NOT NULL)`.
"""

import asyncio
import os
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import psycopg

CHANNEL = "bench_floor"
QUEUE_SIZE = 64

type Scope = dict[str, Any]
type Receive = Callable[[], Awaitable[dict[str, Any]]]
type Send = Callable[[dict[str, Any]], Awaitable[None]]

clients: dict[int, set[asyncio.Queue[bytes]]] = defaultdict(set)
versions: dict[int, int] = {}
listener: asyncio.Task[None] | None = None
writer: psycopg.AsyncConnection[Any] | None = None
writer_lock = asyncio.Lock()


def message(version: int) -> bytes:
    return f"event: clock\ndata: v{version}\n\n".encode()


async def listen() -> None:
    async with await psycopg.AsyncConnection.connect(os.environ["FLOOR_DSN"], autocommit=True) as conn:
        await conn.execute(f"LISTEN {CHANNEL}")
        async for notice in conn.notifies():
            key, version = (int(part) for part in notice.payload.split(":"))
            versions[key] = version
            data = message(version)
            for queue in list(clients.get(key, ())):
                if queue.qsize() < QUEUE_SIZE:
                    queue.put_nowait(data)


async def change(key: int) -> int:
    """One transaction: UPDATE the row and NOTIFY its new version (sent at commit, as the app's actions do)."""
    global writer
    async with writer_lock:
        if writer is None:
            writer = await psycopg.AsyncConnection.connect(os.environ["FLOOR_DSN"], autocommit=True)
        async with writer.transaction():
            update = "UPDATE bench_floor SET version = version + 1 WHERE id = %s RETURNING version"
            row = await (await writer.execute(update, [key])).fetchone()
            assert row is not None, f"bench_floor has no row {key}"
            await writer.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{key}:{row[0]}"])
        return int(row[0])


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    global listener
    if scope["type"] != "http":
        return
    key = int(parse_qs(scope["query_string"].decode()).get("c", ["0"])[0])
    if scope["method"] == "POST":
        while (await receive()).get("more_body"):
            pass
        body = f"v{await change(key)}".encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    if listener is None:
        listener = asyncio.create_task(listen())
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    clients[key].add(queue)
    try:
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        first = b"retry: 2000\n\n" + message(versions.get(key, 0))
        await send({"type": "http.response.body", "body": first, "more_body": True})
        while True:
            await send({"type": "http.response.body", "body": await queue.get(), "more_body": True})
    finally:
        clients[key].discard(queue)
