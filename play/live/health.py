"""Whether this process is fit to serve the table, for a balancer's health check (play.views.health: `/readyz`).

Ready means: the database answers within READY_TIMEOUT, every migration this code knows of is applied, and the live
machinery's LISTEN connection (play.live.streams) heard this process's own probe NOTIFY within PROBE_SECONDS — a
process whose LISTEN connection is gone would serve pages but no live screen. Each check sends the next probe in the
same round trip as its question to the database. The questions go over a connection of the checker's own, asynchronous
and bounded in time: a database cut off (no answer, no error) costs a check READY_TIMEOUT, never a thread or the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import psycopg
from asgiref.sync import sync_to_async
from django.db import connections
from django.db.migrations.loader import MigrationLoader

from play.live import streams
from rules import notify

READY_TIMEOUT = 0.5  # seconds the database has to answer a check
PROBE_SECONDS = 3.0  # a probe heard longer ago than this: the LISTEN connection is not trusted


def newest_migrations() -> list[str]:
    """The migrations this code knows of that no other depends on ("app.name"): all are applied once these are."""
    try:
        graph = MigrationLoader(None, ignore_no_migrations=True).graph
        return sorted(f"{app}.{name}" for app, name in graph.leaf_nodes())
    finally:
        connections["default"].close()


class Readiness:
    def __init__(self) -> None:
        self.connection: psycopg.AsyncConnection[Any] | None = None
        self.leaves: list[str] | None = None
        self.checking: asyncio.Future[str | None] | None = None  # the check in flight: checks at once share it
        self.closing: set[asyncio.Future[None]] = set()  # questions and connections given up, ending (referenced)

    async def reason(self) -> str | None:
        """Why this process is not ready (a short word, nothing more), or None when it is."""
        streams.hub.keep_listening()
        if streams.hub.leaving:
            return "stopping"
        if self.checking is None or self.checking.done():
            self.checking = asyncio.ensure_future(self.check())
        return await asyncio.shield(self.checking)

    async def check(self) -> str | None:
        if self.leaves is None:
            self.leaves = await sync_to_async(newest_migrations, thread_sensitive=False)()
        # Not asyncio.wait_for: a query cancelled has psycopg ask the server to cancel it, which a database cut off
        # never answers. A question not answered in time is left to end by itself, its connection given up.
        asked = asyncio.ensure_future(self.ask(self.leaves))
        done, _pending = await asyncio.wait({asked}, timeout=READY_TIMEOUT)
        if not done or asked.exception() is not None:
            self.drop(asked)
            return "database"
        applied = asked.result()
        if applied < len(self.leaves):
            return "migrations"
        heard = streams.hub.probe_heard
        if not streams.hub.listening or heard is None or time.monotonic() - heard > PROBE_SECONDS:
            return "listen"
        return None

    async def ask(self, leaves: list[str]) -> int:
        """Send the next probe, and count the newest migrations applied: one round trip."""
        if self.connection is None or self.connection.closed:
            params = {
                key: value
                for key, value in connections["default"].get_connection_params().items()
                if key in ("dbname", "user", "password", "host", "port")
            }
            self.connection = await psycopg.AsyncConnection.connect(**params, autocommit=True, connect_timeout=2)
        probe = notify.notice_payload(notify.PROBE, streams.hub.process)
        cursor = await self.connection.execute(
            "SELECT pg_notify(%s, %s), (SELECT count(*) FROM django_migrations WHERE app || '.' || name = ANY(%s))",
            [notify.CHANNEL, probe, leaves],
        )
        row = await cursor.fetchone()
        return int(row[1]) if row is not None else 0

    def drop(self, asked: asyncio.Future[int]) -> None:
        """Give up the connection (the next check makes another) and the question on it, both ended in the background:
        a database that does not answer holds no check's answer."""
        connection, self.connection = self.connection, None
        task = asyncio.ensure_future(given_up(asked, connection))
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)


async def given_up(asked: asyncio.Future[int], connection: psycopg.AsyncConnection[Any] | None) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.shield(asked), 60)
    if connection is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(connection.close(), 5)


readiness = Readiness()
