"""The reconnect storm of bench/live.py: 1000 clients on one campaign drop at once and reconnect at once (each retrying
a refused request as htmx's SSE extension does), while another user loads a page of their own again and again."""

import asyncio
import time
from dataclasses import dataclass

import psycopg

from bench.clicks import Stats, app_clicker, measure, stats
from bench.crowd import PG_VALUE, Server, Table, close_screens, make_table, open_screens, start_app
from bench.pages import PageLoads, load_once
from bench.runs import run_async

QUIET_LOADS = 10


async def transactions(dsn: str) -> int:
    """The database's transactions so far: with autocommit, about one per query. A backend flushes its counts once
    idle for 10 s, so wait that long first."""
    await asyncio.sleep(11)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        query = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
        row = await (await conn.execute(query)).fetchone()
    return int(row[0]) if row else 0


@dataclass
class Storm:
    clients: int
    cold_s: float  # the clients arriving 100 at a time
    storm_s: float  # from the drop until every client shows its state again
    payloads: int  # initial states received
    refused: int  # stream requests answered with an error or cut (the browser retries 0.5 s, 1 s, 2 s… later)
    errors_5xx: int  # of those, answered with a 5xx status
    cpu_s: float
    transactions: int  # the page loads' included
    rss_mb: float
    after_change_ms: float  # click → last screen for one change right after
    page_quiet: Stats  # another user's table page before the storm
    page_storm: Stats  # the same page, loaded again and again during the storm
    page_loads: int
    page_failed: int  # loads during the storm not answered 200


def few_stats(seconds: list[float]) -> Stats:
    """p50, p99 and max of a handful of timings (stats() needs two)."""
    return stats(seconds) if len(seconds) > 1 else stats(seconds * 2)


async def storm_async(app: Server, table: Table, other: Table, clients: int, dsn: str) -> Storm:
    path = f"/campaigns/{table.campaign.pk}/stream/"
    plan = [(path, table.cookies[i % 3]) for i in range(clients)]
    page = f"{app.base}/campaigns/{other.campaign.pk}/"
    started = time.perf_counter()
    screens = await open_screens(app.port, plan, PG_VALUE)
    cold = time.perf_counter() - started
    quiet = [await asyncio.to_thread(load_once, page, other.cookies[0]) for _ in range(QUIET_LOADS)]
    before = await transactions(dsn)
    cpu = app.cpu_seconds()
    loads = PageLoads(page, other.cookies[0])
    started = time.perf_counter()
    loads.start()
    for screen in screens:
        screen.drop()
    screens = await open_screens(app.port, plan, PG_VALUE, wave=len(plan))
    storm = time.perf_counter() - started
    cpu = app.cpu_seconds() - cpu
    during = await asyncio.to_thread(loads.stop)
    payloads = sum(b"event: change" in s.first_payload for s in screens)
    refused = sum(s.refused for s in screens)
    errors = sum(status >= 500 for s in screens for status in s.statuses)
    done = await transactions(dsn) - before - 1  # less the statistics query itself
    # Everyone reconnected is live again: one change reaches them all.
    click, gms = await app_clicker(app.base, [table])
    try:
        [sample] = await measure(click, [screens], 1, 0)
    finally:
        await asyncio.gather(*(c.aclose() for c in gms))
        await close_screens(screens)
    return Storm(
        clients,
        cold,
        storm,
        payloads,
        refused,
        errors,
        cpu,
        done,
        app.peak_rss_mb(),
        sample.to_last * 1000,
        few_stats([seconds for _status, seconds in quiet]),
        few_stats([seconds for _status, seconds in during]),
        len(during),
        sum(status != 200 for status, _seconds in during),
    )


def run_storm(clients: int, dsn: str) -> Storm:
    app = start_app()
    try:
        return run_async(storm_async(app, make_table(), make_table(), clients, dsn))
    finally:
        app.stop()


def print_storm(storm: Storm) -> None:
    print(f"\nReconnect storm: {storm.clients} clients drop at once and reconnect at once\n")
    print(
        "| clients | first connect, 100 at a time (s) | storm: all show their state again (s) "
        "| initial states sent | refused requests (retried) | of which 5xx | app CPU in the storm (s) "
        "| PostgreSQL transactions in the storm | app peak RSS | next change, click → last screen (ms) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(
        f"| {storm.clients} | {storm.cold_s:.1f} | {storm.storm_s:.1f} | {storm.payloads} | {storm.refused} "
        f"| {storm.errors_5xx} | {storm.cpu_s:.1f} | {storm.transactions} | {storm.rss_mb:.0f} MB "
        f"| {storm.after_change_ms:.0f} |"
    )
    quiet, during = storm.page_quiet, storm.page_storm
    print(
        f"\nAnother user's table page (a fresh connection each, timed by curl): quiet p50 / p99 "
        f"{quiet.p50:.0f} / {quiet.p99:.0f} ms ({QUIET_LOADS} loads); during the storm p50 / p99 / max "
        f"{during.p50:.0f} / {during.p99:.0f} / {during.max:.0f} ms ({storm.page_loads} loads, "
        f"{storm.page_failed} not answered 200)",
        flush=True,
    )
