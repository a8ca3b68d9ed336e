"""Live updates as the GM feels them: from the click to the change on every screen, against a floor in the same run.

Per change: t0 just before the GM's POST is sent (the real damage form over HTTP, with the headers htmx sends), the
GM's round trip until its response is complete, and the time until the change is visible at the *last* SSE client
(its fragment complete; the change is recognised by the new PG value in it, which no earlier fragment carries). The
floor (bench/floor_app.py) is measured the same way: an HTTP POST running one transaction (UPDATE + NOTIFY), a few
bytes fanned out over SSE to the same clients. Rows: N = 10, 200, 1000 clients on one campaign (a third each on the
GM's and two players' streams) and 100 campaigns × 6 clients; each row 3 times, the median of the runs' p50s and p99s
is reported. Then a reconnect storm (1000 clients drop and reconnect at once), the GM's table page GET at 4 and 40
characters against a minimal Django view doing one query, and the queries per GET. The app runs under uvicorn with
DEBUG=0, as in production. The SSE clients are raw asyncio sockets in this one process (an httpx client per stream
would cost more CPU than the server under test); the machine is shared by them, the servers and PostgreSQL.

Run: make bench-live (a throw-away embedded database; or set DATABASE_URL). Try it: bench/live.py --quick.
"""

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import uvloop
from django.core.management import call_command
from django.db import connection

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.crowd import (  # noqa: E402 - sets Django up first, as the servers under test are
    FULL,
    PG_VALUE,
    QUICK,
    VERSION,
    Click,
    Options,
    Sample,
    Screen,
    Server,
    Stats,
    Table,
    app_clicker,
    close_screens,
    floor_clicker,
    make_table,
    measure,
    open_screens,
    run_gets,
    start_app,
    start_floor,
    stats,
)

# --- one row: N clients, app then floor, repeated --------------------------------------------------------------------


@dataclass
class Run:
    to_last: Stats
    round_trip: Stats
    cpu_ms: float = 0.0  # the server's CPU per change


def run_of(samples: list[Sample], cpu: float = 0.0) -> Run:
    return Run(stats([s.to_last for s in samples]), stats([s.round_trip for s in samples]), cpu * 1000 / len(samples))


@dataclass
class Row:
    label: str
    app: list[Run] = field(default_factory=list)
    floor: list[Run] = field(default_factory=list)
    connect_s: list[float] = field(default_factory=list)
    rss_mb: float = 0.0


def median_of(runs: list[Run], pick: Callable[[Run], float]) -> float:
    return statistics.median(pick(run) for run in runs)


async def app_repeat(app: Server, tables: list[Table], per_table: int, changes: int, seed: int, row: Row) -> None:
    plan_groups = []
    for table in tables:
        path = f"/campaigns/{table.campaign.pk}/stream/"
        plan_groups.append([(path, table.cookies[i % 3]) for i in range(per_table)])
    started = time.perf_counter()
    screens = await open_screens(app.port, [p for group in plan_groups for p in group], PG_VALUE)
    row.connect_s.append(time.perf_counter() - started)
    groups, at = [], 0
    for group in plan_groups:
        groups.append(screens[at : at + len(group)])
        at += len(group)
    click, clients = await app_clicker(app.base, tables)
    row.app.append(await timed_run(app, click, clients, screens, groups, changes, seed))


async def floor_repeat(floor: Server, keys: list[int], per_key: int, changes: int, seed: int, row: Row) -> None:
    plan = [(f"/?c={key}", "") for key in keys for _ in range(per_key)]
    screens = await open_screens(floor.port, plan, VERSION)
    groups = [screens[i * per_key : (i + 1) * per_key] for i in range(len(keys))]
    click, clients = await floor_clicker(floor.base, keys)
    row.floor.append(await timed_run(floor, click, clients, screens, groups, changes, seed))


async def timed_run(
    server: Server,
    click: Click,
    clients: list[httpx.AsyncClient],
    screens: list[Screen],
    groups: list[list[Screen]],
    changes: int,
    seed: int,
) -> Run:
    """One run of `changes` clicks on open screens, with the server's CPU over it; then the screens close."""
    try:
        await asyncio.sleep(0.5)
        cpu = server.cpu_seconds()
        samples = await measure(click, groups, changes, seed)
        return run_of(samples, server.cpu_seconds() - cpu)
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
        await close_screens(screens)


floor_keys = 0


def floor_rows(count: int) -> list[int]:
    global floor_keys
    keys = list(range(floor_keys + 1, floor_keys + count + 1))
    floor_keys += count
    with connection.cursor() as cursor:
        cursor.executemany("INSERT INTO bench_floor (id, version) VALUES (%s, 0)", [[k] for k in keys])
    return keys


def run_row(label: str, campaigns: int, per_campaign: int, options: Options, dsn: str) -> Row:
    row = Row(label)
    app, floor = start_app(), start_floor(dsn)
    try:
        for repeat in range(options.repeats):
            tables = [make_table() for _ in range(campaigns)]  # fresh: every run starts at full PG
            keys = floor_rows(campaigns)
            seed = 12 + repeat
            run_async(app_repeat(app, tables, per_campaign, options.changes, seed, row))
            run_async(floor_repeat(floor, keys, per_campaign, options.changes, seed, row))
        row.rss_mb = app.peak_rss_mb()
    finally:
        app.stop()
        floor.stop()
    return row


def run_async[T](coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


LIVE_HEADER = (
    "| clients | click→last p50 (ms) | p99 | max | GM round trip p50 | p99 "
    "| floor click→last p50 | p99 | max | floor round trip p50 "
    "| p50 app / floor | p99 app / floor | round trip app / floor | app CPU per change (ms) | app peak RSS |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def live_line(row: Row) -> str:
    a50, a99 = median_of(row.app, lambda r: r.to_last.p50), median_of(row.app, lambda r: r.to_last.p99)
    f50, f99 = median_of(row.floor, lambda r: r.to_last.p50), median_of(row.floor, lambda r: r.to_last.p99)
    amax, fmax = max(r.to_last.max for r in row.app), max(r.to_last.max for r in row.floor)
    g50, g99 = median_of(row.app, lambda r: r.round_trip.p50), median_of(row.app, lambda r: r.round_trip.p99)
    fg50 = median_of(row.floor, lambda r: r.round_trip.p50)
    cpu = median_of(row.app, lambda r: r.cpu_ms)
    return (
        f"| {row.label} | {a50:.1f} | {a99:.1f} | {amax:.1f} | {g50:.1f} | {g99:.1f} "
        f"| {f50:.1f} | {f99:.1f} | {fmax:.1f} | {fg50:.1f} "
        f"| {a50 / f50:.1f} | {a99 / f99:.1f} | {g50 / fg50:.1f} | {cpu:.0f} | {row.rss_mb:.0f} MB |"
    )


def runs_detail(row: Row) -> str:
    def each(runs: list[Run]) -> str:
        return ", ".join(f"{r.to_last.p50:.0f}/{r.to_last.p99:.0f}" for r in runs)

    connect = ", ".join(f"{s:.1f}" for s in row.connect_s)
    return f"  {row.label}: app p50/p99 per run {each(row.app)}; floor {each(row.floor)}; app connect (s) {connect}"


# --- the reconnect storm -------------------------------------------------------------------------------------------


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
    payloads: int  # initial states received (each one a render of the server's, today)
    refused: int  # stream requests answered with an error (the browser retries 0.5 s, 1 s, 2 s… later)
    cpu_s: float
    transactions: int
    rss_mb: float
    after_change_ms: float  # click → last screen for one change right after


async def storm_async(app: Server, table: Table, clients: int, dsn: str) -> Storm:
    path = f"/campaigns/{table.campaign.pk}/stream/"
    plan = [(path, table.cookies[i % 3]) for i in range(clients)]
    started = time.perf_counter()
    screens = await open_screens(app.port, plan, PG_VALUE)
    cold = time.perf_counter() - started
    before = await transactions(dsn)
    cpu = app.cpu_seconds()
    started = time.perf_counter()
    for screen in screens:
        screen.drop()
    screens = await open_screens(app.port, plan, PG_VALUE, wave=len(plan))
    storm = time.perf_counter() - started
    cpu = app.cpu_seconds() - cpu
    payloads = sum(b"event: change" in s.first_payload for s in screens)
    refused = sum(s.refused for s in screens)
    done = await transactions(dsn) - before - 1  # less the statistics query itself
    # Everyone reconnected is live again: one change reaches them all.
    click, gms = await app_clicker(app.base, [table])
    try:
        [sample] = await measure(click, [screens], 1, 0)
    finally:
        await asyncio.gather(*(c.aclose() for c in gms))
        await close_screens(screens)
    return Storm(clients, cold, storm, payloads, refused, cpu, done, app.peak_rss_mb(), sample.to_last * 1000)


def run_storm(clients: int, dsn: str) -> Storm:
    app = start_app()
    try:
        return run_async(storm_async(app, make_table(), clients, dsn))
    finally:
        app.stop()


# --- main ----------------------------------------------------------------------------------------------------------


def main(options: Options, sections: set[str]) -> None:
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 serves the hashed files of STATIC_ROOT
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_floor (id int PRIMARY KEY, version int NOT NULL)")
        cursor.execute("INSERT INTO bench_floor VALUES (0, 0)")
    params = {
        k: v
        for k, v in connection.get_connection_params().items()
        if k in ("dbname", "user", "password", "host", "port")
    }
    dsn = psycopg.conninfo.make_conninfo(**params)
    cores = os.cpu_count()
    print(f"Machine: {cores} cores; Python {sys.version.split()[0]}; app and floor under uvicorn, DEBUG=0\n")

    if "live" in sections:
        print(
            f"Click → last screen: {options.changes} changes per run, {options.repeats} run(s) per row; "
            "the median of the runs' p50s and p99s (ms); max over all runs\n"
        )
        print(LIVE_HEADER, flush=True)
        rows = []
        for n in options.sizes:
            rows.append(run_row(str(n), 1, n, options, dsn))
            print(live_line(rows[-1]), flush=True)
        label = f"{options.campaigns} campaigns × {options.per_campaign}"
        rows.append(run_row(label, options.campaigns, options.per_campaign, options, dsn))
        print(live_line(rows[-1]), flush=True)
        print("\nPer run (click→last p50/p99, ms):")
        for row in rows:
            print(runs_detail(row))

    if "storm" in sections:
        storm = run_storm(options.storm, dsn)
        print(f"\nReconnect storm: {storm.clients} clients drop at once and reconnect at once\n")
        print(
            "| clients | first connect, 100 at a time (s) | storm: all show their state again (s) "
            "| initial states sent | refused requests (retried) | app CPU in the storm (s) "
            "| PostgreSQL transactions in the storm | app peak RSS | next change, click → last screen (ms) |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        print(
            f"| {storm.clients} | {storm.cold_s:.1f} | {storm.storm_s:.1f} | {storm.payloads} | {storm.refused} "
            f"| {storm.cpu_s:.1f} | {storm.transactions} | {storm.rss_mb:.0f} MB | {storm.after_change_ms:.0f} |",
            flush=True,
        )

    if "table" in sections:
        results = run_gets(options.gets)
        floor = results[-1][1]
        print(f"\nThe GM's table page, GET, {options.gets} requests each (ms); queries per GET counted in-process\n")
        print("| page | p50 (ms) | p99 | p50 / minimal | p99 / minimal | queries |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for label, s, n in results:
            print(f"| {label} | {s.p50:.1f} | {s.p99:.1f} | {s.p50 / floor.p50:.1f} | {s.p99 / floor.p99:.1f} | {n} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer clients and one run per row, to try it")
    parser.add_argument("--sizes", help="client counts of the one-campaign rows, e.g. 10,200")
    parser.add_argument("--repeats", type=int)
    parser.add_argument("--sections", default="live,storm,table", help="any of live,storm,table")
    args = parser.parse_args()
    options = QUICK if args.quick else FULL
    if args.sizes:
        options.sizes = [int(n) for n in args.sizes.split(",")]
    if args.repeats:
        options.repeats = args.repeats
    # Its own database, so a test run on the same server does not get in the way.
    connection.settings_dict["TEST"]["NAME"] = f"bench_{connection.settings_dict['NAME']}"
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        main(options, set(args.sections.split(",")))
    finally:
        connection.close()
        connection.creation.destroy_test_db(test_db, verbosity=0)
