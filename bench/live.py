"""Live updates as the GM feels them: from the click to the change on every screen, against two floors in the same run.

Three servers measured by the same code, row by row: the app; the stack floor (bench/stack_floor.py: a Django view
behind the project's whole middleware that locks the campaign row, bumps its version and sends pg_notify, answering a
card's worth of bytes, fanned out by a minimal async stream view over one LISTEN connection, each client getting as
many bytes per change as the app sent in the same row); and the physical floor (bench/floor_app.py: raw ASGI, UPDATE +
NOTIFY, a few bytes fanned out). Per change: t0 just before the GM's POST is sent (with the headers htmx sends), the
GM's round trip until its response is complete, and the time until the change is visible at the *last* SSE client
(its message complete; the change is recognised by a marker no earlier message carries: the new PG value for the app,
the new version for the floors). Rows: N = 10, 200, 1000 clients on one campaign (a third each on the GM's and two
players' streams) and 100 campaigns × 6 clients; the three servers' screens are open at once and their clicks take
turns, one each (this machine's speed drifts from minute to minute: a floor measured a minute after the app would
not be measured on the same machine); each row 3 times, the median of the runs' p50s and p99s is reported;
CPU per change is each server process's CPU time over the run ÷ changes. Then a reconnect storm (1000 clients drop
and reconnect at once, another user loading a page meanwhile), the GM's table page GET at 4 and 40 characters against
a minimal Django view, the CPU per change summed over several app processes (a campaign's screens routed to one of
them, or spread), and the goals table of issue 22 (bench/goals.py). The row "while ticks run" is the first
one-campaign row again while a task queue worker ticks 1,000 other campaigns day after day (issue 52,
bench/ticks.py). Around each timed run the app's /metrics is scraped (issue 54, bench/scraped.py): its histogram of
NOTIFY → last stream's send against the bench's own NOTIFY → last screen for the same changes, and what a scrape
costs. Every server runs under uvicorn with DEBUG=0, as in production (the Django ones with PROMETHEUS_MULTIPROC_DIR).
The SSE clients are raw asyncio sockets in this one process; the machine is shared by them, the servers and
PostgreSQL.

Run: make bench-live (a throw-away embedded database; or set DATABASE_URL). Try it: bench/live.py --quick.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import httpx
import psycopg
from django.core.management import call_command
from django.db import connection

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.clicks import Click, app_clicker, floor_clicker, stack_clicker, taking_turns
from bench.crowd import (  # noqa: E402 - sets Django up first, as the servers under test are
    FULL,
    PG_VALUE,
    QUICK,
    VERSION,
    Options,
    Screen,
    Server,
    Table,
    make_table,
    open_screens,
    start_app,
    start_floor,
    start_stack,
)
from bench.database import own_database  # noqa: E402
from bench.goals import Previews, Spread, measure_previews, print_goals, print_previews  # noqa: E402
from bench.pages import print_gets, run_gets  # noqa: E402
from bench.runs import APP, RAW, SERVERS, STACK, Part, Row, Run, grouped, run_async, timed_runs  # noqa: E402
from bench.scraped import Scraping, print_scraped  # noqa: E402
from bench.storm import Storm, print_storm, run_storm  # noqa: E402
from bench.ticks import running_campaigns, ticking  # noqa: E402

# --- one row: N clients, the app and both floors taking turns, repeated ----------------------------------------------

WARM_UP = 5  # clicks each server makes before a run, not counted


def stream_plan(tables: list[Table], per_table: int, path: str) -> list[tuple[str, str]]:
    """Each campaign's clients, a third each on its GM's and its two players' sessions."""
    return [(path.format(table.campaign.pk), table.cookies[i % 3]) for table in tables for i in range(per_table)]


async def one_run(
    servers: dict[str, Server],
    tables: list[Table],
    keys: list[int],
    per_campaign: int,
    options: Options,
    seed: int,
    row: Row,
) -> None:
    """The three servers' runs as one: all their screens open, then their GMs' browsers, their clicks taking turns
    (runs.timed_runs). A few clicks each first, not counted: the app's say how many bytes a change sends each client,
    which the stack floor's then send too. The GMs' browsers open within a second of each other, so that a
    connection kept alive between clicks (or closed, idle too long: 100 campaigns) is so for all three alike."""
    started = time.perf_counter()
    app_path, stack_path = "/campaigns/{}/stream/", "/bench/stack/{}/stream/"
    app_screens = await open_screens(servers[APP].port, stream_plan(tables, per_campaign, app_path), PG_VALUE)
    row.connect_s.append(time.perf_counter() - started)
    stack_screens = await open_screens(servers[STACK].port, stream_plan(tables, per_campaign, stack_path), VERSION)
    floor_plan = [(f"/?c={key}", "") for key in keys for _ in range(per_campaign)]
    floor_screens = await open_screens(servers[RAW].port, floor_plan, VERSION)

    def part(name: str, clicker: tuple[Click, list[httpx.AsyncClient]], screens: list[Screen]) -> Part:
        click, clients = clicker
        return Part([servers[name]], click, clients, screens, grouped(screens, per_campaign))

    scraping = Scraping(servers[APP], tables, dsn())  # the app's /metrics around the run (bench/scraped.py)
    app = part(APP, scraping.watched(await app_clicker(servers[APP].base, tables)), app_screens)
    before = sum(screen.received for screen in app_screens)
    await taking_turns([(app.click, app.groups)], WARM_UP, seed)
    size = round((sum(screen.received for screen in app_screens) - before) / WARM_UP / per_campaign)
    stack = part(STACK, await stack_clicker(servers[STACK].base, tables, size), stack_screens)
    floor = part(RAW, await floor_clicker(servers[RAW].base, keys), floor_screens)
    await taking_turns([(stack.click, stack.groups), (floor.click, floor.groups)], WARM_UP, seed)
    try:
        await scraping.before(row.scraped)
        runs = await timed_runs([app, stack, floor], options.changes, seed)
        await scraping.after(app.groups, row.scraped)
    finally:
        await scraping.close()
    for name, run in zip(SERVERS, runs, strict=True):
        row.runs[name].append(run)


floor_keys = 0


def floor_rows(count: int) -> list[int]:
    global floor_keys
    keys = list(range(floor_keys + 1, floor_keys + count + 1))
    floor_keys += count
    with connection.cursor() as cursor:
        cursor.executemany("INSERT INTO bench_floor (id, version) VALUES (%s, 0)", [[k] for k in keys])
    return keys


def run_row(label: str, campaigns: int, per_campaign: int, options: Options) -> Row:
    row = Row(label)
    servers = {APP: start_app(), STACK: start_stack(), RAW: start_floor(dsn())}
    try:
        for repeat in range(options.repeats):
            tables = [make_table() for _ in range(campaigns)]  # fresh: every run starts at full PG
            run_async(one_run(servers, tables, floor_rows(campaigns), per_campaign, options, 12 + repeat, row))
        row.rss_mb = {name: server.peak_rss_mb() for name, server in servers.items()}
    finally:
        for server in servers.values():
            server.stop()
    return row


def pair(values: tuple[float, float]) -> str:
    return f"{values[0]:.1f} / {values[1]:.1f}"


def ratio(a: tuple[float, float], b: tuple[float, float]) -> str:
    return f"{a[0] / b[0]:.1f}× / {a[1] / b[1]:.1f}×"


TO_LAST_HEADER = (
    "| clients | app | stack floor | physical floor | app / stack | app / physical | stack / physical "
    "| bytes per change per client: app · stack · physical |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def to_last_line(row: Row) -> str:
    app, stack, raw = (row.to_last(name) for name in SERVERS)
    sizes = " · ".join(f"{row.bytes_per_client(name):,.0f}" for name in SERVERS)
    return (
        f"| {row.label} | {pair(app)} | {pair(stack)} | {pair(raw)} | **{ratio(app, stack)}** | {ratio(app, raw)} "
        f"| {ratio(stack, raw)} | {sizes} |"
    )


ROUND_TRIP_HEADER = (
    "| clients | GM round trip: app | stack floor | physical floor | app / stack "
    "| CPU per change (ms): app · stack · physical | CPU app / stack | peak RSS: app · stack · physical (MB) |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def round_trip_line(row: Row) -> str:
    app, stack, raw = (row.round_trip(name) for name in SERVERS)
    cpu = " · ".join(f"{row.cpu_ms(name):.1f}" for name in SERVERS)
    rss = " · ".join(f"{row.rss_mb[name]:.0f}" for name in SERVERS)
    return (
        f"| {row.label} | {pair(app)} | {pair(stack)} | {pair(raw)} | **{ratio(app, stack)}** | {cpu} "
        f"| {row.cpu_ms(APP) / row.cpu_ms(STACK):.1f}× | {rss} |"
    )


def runs_detail(row: Row) -> str:
    def each(runs: list[Run]) -> str:
        return ", ".join(f"{r.to_last.p50:.0f}/{r.to_last.p99:.0f}" for r in runs)

    connect = ", ".join(f"{s:.1f}" for s in row.connect_s)
    servers = "; ".join(f"{name} {each(row.runs[name])}" for name in SERVERS)
    return f"  {row.label}: {servers}; app connect (s) {connect}"


def live_section(options: Options) -> list[Row]:
    print(
        f"Click → last screen: {options.changes} changes per run, {options.repeats} run(s) per row; "
        "the median of the runs' p50s / p99s (ms)\n"
    )
    rows = []
    shapes = [(str(n), 1, n) for n in options.sizes]
    shapes.append((f"{options.campaigns} campaigns × {options.per_campaign}", options.campaigns, options.per_campaign))
    for label, campaigns, per_campaign in shapes:
        rows.append(run_row(label, campaigns, per_campaign, options))
        print(f"  {label}: done", flush=True)
    print("\n" + TO_LAST_HEADER)
    for row in rows:
        print(to_last_line(row))
    print("\nThe GM's round trip (p50 / p99, ms), the server's CPU per change and its peak RSS\n")
    print(ROUND_TRIP_HEADER)
    for row in rows:
        print(round_trip_line(row))
    print("\nPer run (click→last p50/p99, ms):")
    for row in rows:
        print(runs_detail(row))
    print_scraped([(row.label, row.scraped) for row in rows])
    return rows


# --- while time between sessions ticks: the same row with a worker ticking 1,000 other campaigns ---------------------

TICKING = (1000, 6)  # campaigns × characters a worker ticks, day after day, while the row runs (bench/ticks.py)


def ticks_section(options: Options) -> Row:
    """The first one-campaign row again, while a task queue worker ticks TICKING campaigns one day after another (issue
    52): the clicks and both floors take turns on the same machine as before, the ticks running under all three."""
    clients = options.sizes[0]
    print(f"\nClick → last screen at {clients} clients while a worker ticks {TICKING[0]} campaigns × {TICKING[1]}\n")
    campaigns = running_campaigns(*TICKING)
    with ticking(campaigns) as days:
        while not days:  # the first day ticked whole: the worker is in its stride
            time.sleep(0.1)
        row = run_row(f"{clients} while ticks run", 1, clients, options)
        ticked = len(days)
    print(TO_LAST_HEADER)
    print(to_last_line(row))
    print_scraped([(row.label, row.scraped)])
    whole = ", ".join(f"{seconds:.1f}" for seconds in days[:ticked])
    print(f"\n  {ticked} whole days ticked while it ran ({TICKING[0]} ticks each), in s: {whole}")
    return row


# --- several processes: a campaign's screens routed to one, or spread over all ---------------------------------------


async def processes_part(servers: list[Server], table: Table, clients: int, routed: bool) -> Part:
    """The campaign's clients all on the first process (a load balancer hashing the campaign id), or client i on
    process i mod n; the GM posts to the first. CPU summed over every process."""
    plan = stream_plan([table], clients, "/campaigns/{}/stream/")
    screens: list[Screen] = []
    for index, server in enumerate(servers):
        part = [p for i, p in enumerate(plan) if (0 if routed else i % len(servers)) == index]
        if part:
            screens += await open_screens(server.port, part, PG_VALUE)
    return Part(servers, *await app_clicker(servers[0].base, [table]), screens, [screens])


async def processes_run(
    sets: list[list[Server]], tables: list[Table], clients: int, options: Options, seed: int
) -> list[Run]:
    """Routed over the first set, spread over the second, one process alone: their clicks taking turns."""
    parts = [
        await processes_part(servers, table, clients, routed)
        for servers, table, routed in zip(sets, tables, (True, False, True), strict=True)
    ]
    await taking_turns([(part.click, part.groups) for part in parts], WARM_UP, seed)
    return await timed_runs(parts, options.changes, seed)


def processes_section(options: Options, clients: int = 10) -> Spread:
    """Three sets of app processes (each part's CPU is its own processes'): `processes` for a campaign routed to one
    of them, as many for one spread over all, and one process alone, taking turns in each run."""
    spread = Spread(options.processes, clients, [], [], [])
    sets = [[start_app() for _ in range(options.processes)] for _ in range(2)] + [[start_app()]]
    try:
        for repeat in range(options.repeats):
            tables = [make_table() for _ in sets]
            routed, spread_run, one = run_async(processes_run(sets, tables, clients, options, 12 + repeat))
            spread.routed.append(routed)
            spread.spread.append(spread_run)
            spread.one.append(one)
    finally:
        for server in (server for servers in sets for server in servers):
            server.stop()
    each = "; ".join(
        f"{name} " + ", ".join(f"{run.cpu_ms:.1f}" for run in runs)
        for name, runs in (("routed", spread.routed), ("spread", spread.spread), ("one process", spread.one))
    )
    print(
        f"\n{options.processes} app processes (WEB_CONCURRENCY={options.processes}), {clients} clients on one "
        f"campaign: CPU per change summed over the processes (ms), per run: {each}",
        flush=True,
    )
    return spread


# --- main ----------------------------------------------------------------------------------------------------------


def dsn() -> str:
    params = connection.get_connection_params()
    return psycopg.conninfo.make_conninfo(
        **{k: v for k, v in params.items() if k in ("dbname", "user", "password", "host", "port")}
    )


def main(options: Options, sections: set[str]) -> None:
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 serves the hashed files of STATIC_ROOT
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_floor (id int PRIMARY KEY, version int NOT NULL)")
        cursor.execute("INSERT INTO bench_floor VALUES (0, 0)")
    print(
        f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}; the app and both floors under uvicorn, "
        "DEBUG=0\n"
    )
    rows = live_section(options) if "live" in sections else []
    if "ticks" in sections:
        rows.append(ticks_section(options))
    storm: Storm | None = None
    if "storm" in sections:
        storm = run_storm(options.storm, dsn())
        print_storm(storm)
    gets = None
    if "table" in sections:
        gets = run_gets(options.gets)
        print_gets(gets, options.gets)
    spread = processes_section(options) if "processes" in sections else None
    previews: Previews = "section skipped"
    if "preview" in sections:
        previews = measure_previews()
        print_previews(previews)
    print_goals(rows, storm, FULL.storm, gets, spread, previews)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer clients and one run per row, to try it")
    parser.add_argument("--sizes", help="client counts of the one-campaign rows, e.g. 10,200")
    parser.add_argument("--repeats", type=int)
    sections = "live,ticks,storm,table,processes,preview"
    parser.add_argument("--sections", default=sections, help=f"any of {sections}")
    args = parser.parse_args()
    options = QUICK if args.quick else FULL
    if args.sizes:
        options.sizes = [int(n) for n in args.sizes.split(",")]
    if args.repeats:
        options.repeats = args.repeats
    with own_database("live"):
        main(options, set(args.sections.split(",")))
