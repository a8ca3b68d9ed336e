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
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# As in production (README "Deploying"), over plain HTTP on 127.0.0.1; the same SECRET_KEY here and in the servers,
# so the sessions made here are valid there. The per-account caps would refuse a thousand streams of three accounts.
SERVER_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "bench-live-only-not-a-secret-" + "x" * 32,
    "ALLOWED_HOSTS": "127.0.0.1,testserver",
    "SECURE_SSL_REDIRECT": "0",
    "SESSION_COOKIE_SECURE": "0",
    "CSRF_COOKIE_SECURE": "0",
    "SECURE_HSTS_SECONDS": "0",
    "STREAMS_PER_USER": "100000",
    "CHARACTERS_PER_CAMPAIGN": "100",
    "LOG_LEVEL": "WARNING",
}
os.environ.update(SERVER_ENV)
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"

import django  # noqa: E402

django.setup()

import httpx  # noqa: E402
import psycopg  # noqa: E402
import uvloop  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402

from campaigns.models import Campaign, Membership  # noqa: E402
from characters.models import Character  # noqa: E402
from play.forms.damage import DamageForm  # noqa: E402
from tests.servers import database_url, free_port  # noqa: E402

HOST = "127.0.0.1"
CONSTITUTION = 30  # 300 PG: room for every change of a run at 1 PG each
PG_VALUE = re.compile(rb'class="pg-value">(\d+)<')  # the app: a card's PG, new with every change (1 PG each)
VERSION = re.compile(rb"data: v(\d+)")  # the floor: the row's version


@dataclass
class Options:
    sizes: list[int]
    campaigns: int
    per_campaign: int
    changes: int
    repeats: int
    storm: int
    gets: int


FULL = Options(sizes=[10, 200, 1000], campaigns=100, per_campaign=6, changes=50, repeats=3, storm=1000, gets=200)
QUICK = Options(sizes=[10, 200], campaigns=20, per_campaign=6, changes=40, repeats=1, storm=200, gets=50)


# --- servers -------------------------------------------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: IO[bytes]  # its stderr, shown when it stops (less the streams cancelled at shutdown: they never end)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.seek(0)
        for line in self.log.read().decode(errors="replace").splitlines():
            if "timeout graceful shutdown exceeded" not in line:
                print(line, file=sys.stderr)
        self.log.close()


def start(app: str, env: dict[str, str], probe: str) -> Server:
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", app, "--host", HOST, "--port", str(port), "--no-access-log"]
    command += ["--log-level", "warning", "--timeout-graceful-shutdown", "1", "--backlog", "4096"]
    log = tempfile.TemporaryFile()  # noqa: SIM115 (it lives as long as the server; Server.stop closes it)
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stderr=log)
    server = Server(process, port, log)
    for _ in range(150):
        try:
            with httpx.stream("GET", server.base + probe, timeout=2):
                return server  # the headers are enough: the floor answers GET with an endless stream
        except httpx.TransportError:
            if process.poll() is not None:
                break
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"{app} did not start")


def start_app(settings: str = "config.settings") -> Server:
    return start("config.asgi:application", {"DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": settings}, "/")


def start_floor(dsn: str) -> Server:
    return start("bench.floor_app:app", {"FLOOR_DSN": dsn}, "/?c=0")


# --- the world -----------------------------------------------------------------------------------------------------


@dataclass
class Table:
    """One campaign of the benchmark: its GM, two players with a character each, and the clients' sessions."""

    campaign: Campaign
    gm: User
    players: list[User]
    characters: list[Character]
    cookies: list[str]  # the GM's, then each player's session cookie
    changes: int = 0  # changes made so far: the PG after the next one is max - changes - 1


made = 0


def session(user: User) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def make_table() -> Table:
    global made
    made += 1
    users = get_user_model()
    gm = users.objects.create(username=f"bench-gm-{made}")
    players = [users.objects.create(username=f"bench-player-{made}-{i}") for i in range(2)]
    campaign = Campaign.objects.create(name=f"Bench {made}", gm=gm)
    characters = []
    for i, player in enumerate(players):
        Membership.objects.create(campaign=campaign, user=player)
        characters.append(
            Character.objects.create(campaign=campaign, player=player, name=f"PJ {made}-{i}", constitution=CONSTITUTION)
        )
    return Table(campaign, gm, players, characters, [session(u) for u in (gm, *players)])


def make_crowd(size: int) -> tuple[Campaign, User]:
    """The GM's table with `size` characters, half of them players', each wounded by a few attacks (a log to show)."""
    global made
    made += 1
    users = get_user_model()
    gm = users.objects.create(username=f"bench-gm-{made}")
    campaign = Campaign.objects.create(name=f"Crowd {size}", gm=gm)
    for i in range(size):
        player = None
        if i % 2 == 0:
            player = users.objects.create(username=f"bench-player-{made}-{i}")
            Membership.objects.create(campaign=campaign, user=player)
        Character.objects.create(campaign=campaign, player=player, name=f"PJ {i}", constitution=10 + i % 10)
    everyone = [str(pk) for pk in campaign.characters.values_list("pk", flat=True)]
    for amount in (3, 2, 1):
        form = DamageForm(data={"kind": "attack", "amount": str(amount), "characters": everyone}, campaign=campaign)
        assert form.is_valid(), form.errors
        form.perform(gm)
    return campaign, gm


# --- the clients: raw asyncio SSE readers --------------------------------------------------------------------------


class Round:
    """One change being waited for: which screens still lack it, and when the last one got it."""

    def __init__(self, marker: int, screens: list["Screen"], t0: float) -> None:
        early = [s for s in screens if marker in s.seen]
        if early:
            raise AssertionError(f"{len(early)} screens had marker {marker} before the click")
        self.marker = marker
        self.pending = set(screens)
        self.done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.t0 = t0
        for screen in screens:
            screen.round = self

    def arrived(self, screen: "Screen", when: float) -> None:
        self.pending.discard(screen)
        if not self.pending and not self.done.done():
            self.done.set_result(when)


class Refused(Exception):
    """A stream request answered with an error status (a 503 when the database pool is exhausted, a 429…)."""


class Screen:
    """One browser's SSE stream: records when each marker (a PG value, a version) first became visible on it."""

    def __init__(self, path: str, cookie: str, pattern: re.Pattern[bytes]) -> None:
        self.path, self.cookie, self.pattern = path, cookie, pattern
        self.seen: dict[int, float] = {}
        self.ready: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.first_payload = b""
        self.round: Round | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.task: asyncio.Task[None] | None = None
        self.refused = 0

    def open(self, port: int) -> None:
        self.task = asyncio.create_task(self.run(port))

    async def run(self, port: int) -> None:
        """Connect; on a refusal or a lost connection before the first state, retry as htmx's SSE extension does
        (0.5 s, 1 s, 2 s… up to 64 s)."""
        backoff = 0
        try:
            while True:
                try:
                    await self.read(port)
                    return  # the server ended the stream
                except (ConnectionError, asyncio.IncompleteReadError, Refused):
                    if self.ready.done():
                        return
                    self.refused += 1
                    if self.writer is not None:
                        self.writer.transport.abort()
                backoff = max(min(backoff * 2, 128), 1)
                await asyncio.sleep(backoff * 0.5)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            if not self.ready.done():
                self.ready.set_exception(error)
            raise

    async def read(self, port: int) -> None:
        reader, self.writer = await asyncio.open_connection(HOST, port)
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAccept: text/event-stream\r\n"
            f"Cache-Control: no-cache\r\nAccept-Language: es\r\nCookie: {self.cookie}\r\n\r\n"
        )
        self.writer.write(request.encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise Refused(head.splitlines()[0].decode())
        if b"transfer-encoding: chunked" not in head.lower():
            raise RuntimeError("expected a chunked stream")
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                return
            chunk = (await reader.readexactly(size + 2))[:-2]
            self.receive(chunk, time.perf_counter())

    def receive(self, chunk: bytes, now: float) -> None:
        """A whole chunk is one message of the server (a change's fragments): visible once complete."""
        markers = self.pattern.findall(chunk)
        for marker in markers:
            value = int(marker)
            if value not in self.seen:
                self.seen[value] = now
                if self.round is not None and self.round.marker == value:
                    self.round.arrived(self, now)
        if markers and not self.ready.done():
            self.first_payload = chunk
            self.ready.set_result(now)

    def drop(self) -> None:
        """The browser goes away at once (a network blip, a laptop lid): the socket is reset."""
        if self.writer is not None:
            self.writer.transport.abort()
        if self.task is not None:
            self.task.cancel()


async def open_screens(
    port: int, plan: list[tuple[str, str]], pattern: re.Pattern[bytes], wave: int = 100
) -> list[Screen]:
    """Open one stream per (path, cookie), `wave` at a time (browsers arriving), and wait until each has shown its
    first state."""
    screens = [Screen(path, cookie, pattern) for path, cookie in plan]
    for at in range(0, len(screens), wave):
        for screen in screens[at : at + wave]:
            screen.open(port)
        await asyncio.wait_for(asyncio.gather(*(s.ready for s in screens[at : at + wave])), 300)
    return screens


async def close_screens(screens: Iterable[Screen]) -> None:
    tasks = []
    for screen in screens:
        screen.drop()
        if screen.task is not None:
            tasks.append(screen.task)
    await asyncio.gather(*tasks, return_exceptions=True)


# --- the GM's clicks -----------------------------------------------------------------------------------------------


@dataclass
class Sample:
    to_last: float  # t0 → the change visible at the last client, s
    round_trip: float  # t0 → the GM's response complete, s


type Click = Callable[[int], Awaitable[int]]  # which group → the marker of the change it made (after sending it)


def limits() -> httpx.Limits:
    return httpx.Limits(max_connections=4, max_keepalive_connections=4)


async def app_clicker(base: str, tables: list[Table]) -> tuple[Click, list[httpx.AsyncClient]]:
    """The GM's browser per campaign: the party damage form drawn once, then posted as htmx posts it."""
    gms, forms = [], []
    for table in tables:
        gm = httpx.AsyncClient(base_url=base, limits=limits(), timeout=60)
        gm.cookies.set("sessionid", table.cookies[0].split("=", 1)[1])
        form = (await gm.get(f"/campaigns/{table.campaign.pk}/act/damage/", headers={"HX-Request": "true"})).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        choices = re.search(r'name="choices" value="([^"]*)"', form)
        assert token is not None and choices is not None, "the damage form carries its token and choices"
        gms.append(gm)
        forms.append((token.group(1), choices.group(1)))

    async def click(group: int) -> int:
        table, gm, (token, choices) = tables[group], gms[group], forms[group]
        url = f"/campaigns/{table.campaign.pk}/act/damage/"
        data = {
            "csrfmiddlewaretoken": token,
            "slot": "party",
            "choices": choices,
            "kind": "attack",
            "characters": [str(c.pk) for c in table.characters],
            "amount": "1",
        }
        headers = {
            "HX-Request": "true",
            "HX-Current-URL": f"{base}/campaigns/{table.campaign.pk}/",
            "HX-Target": "table",
            "X-CSRFToken": token,
            "Origin": base,
        }
        response = await gm.post(url, data=data, headers=headers)
        response.raise_for_status()
        table.changes += 1
        marker = CONSTITUTION * 10 - table.changes
        assert f'class="pg-value">{marker}<' in response.text, "the GM's table shows the change"
        return marker

    return click, gms


async def floor_clicker(base: str, keys: list[int]) -> tuple[Click, list[httpx.AsyncClient]]:
    gm = httpx.AsyncClient(base_url=base, limits=limits(), timeout=60)

    async def click(group: int) -> int:
        response = await gm.post(f"/?c={keys[group]}", content=b"amount=1")
        response.raise_for_status()
        return int(response.text.removeprefix("v"))

    return click, [gm]


async def measure(click: Click, groups: list[list[Screen]], changes: int, seed: int) -> list[Sample]:
    """`changes` clicks, each on a random group (campaign); each waits for its change on the group's every screen."""
    rng = random.Random(seed)
    samples = []
    for _ in range(changes):
        group = rng.randrange(len(groups))
        t0 = time.perf_counter()
        # The screens may show the change before the GM's answer arrives: they record every marker as it comes.
        marker = await click(group)
        t_gm = time.perf_counter()
        screens = groups[group]
        times = [s.seen.get(marker) for s in screens]
        if all(t is not None for t in times):
            t_last = max(t for t in times if t is not None)
        else:
            t_last = await asyncio.wait_for(wait_marker(screens, marker, t0), 60)
        if min(s.seen[marker] for s in screens) < t0:
            raise AssertionError("a change was seen before its click")
        samples.append(Sample(t_last - t0, t_gm - t0))
        await asyncio.sleep(0.01)  # let the last writes and the GM's connection settle
    return samples


async def wait_marker(screens: list[Screen], marker: int, t0: float) -> float:
    waiting = [s for s in screens if marker not in s.seen]
    seen = [s.seen[marker] for s in screens if marker in s.seen]
    round_ = Round(marker, waiting, t0)
    return max([await round_.done, *seen])


# --- one row: N clients, app then floor, repeated --------------------------------------------------------------------


@dataclass
class Stats:
    p50: float
    p99: float
    max: float


def stats(values: list[float]) -> Stats:
    ms = sorted(v * 1000 for v in values)
    return Stats(statistics.median(ms), statistics.quantiles(ms, n=100, method="inclusive")[98], ms[-1])


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


# --- the table page GET --------------------------------------------------------------------------------------------


def query_count(user: User, url: str) -> int:
    client = Client(HTTP_HOST=HOST)
    client.force_login(user)
    with override_settings(ROOT_URLCONF="bench.urls"):
        client.get(url)  # the first request warms caches (translations, templates)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries)


def run_gets(count: int) -> list[tuple[str, Stats, int]]:
    crowds = {size: make_crowd(size) for size in (4, 40)}
    pages = [(f"table, {size} characters", f"/campaigns/{c.pk}/", gm) for size, (c, gm) in crowds.items()]
    campaign, gm = crowds[40]
    pages.append(("minimal view, 1 query", f"/bench/minimal/{campaign.pk}/", gm))
    counts = [query_count(user, url) for _label, url, user in pages]
    server = start_app("bench.settings")
    times: list[list[float]] = [[] for _ in pages]
    try:
        clients = []
        for _label, _url, user in pages:
            client = httpx.Client(base_url=server.base, timeout=30)
            client.cookies.set("sessionid", session(user).split("=", 1)[1])
            clients.append(client)
        for round_ in range(count + 20):  # interleaved, so drift hits each alike; the first 20 warm up
            for i, ((_label, url, _user), client) in enumerate(zip(pages, clients, strict=True)):
                started = time.perf_counter()
                response = client.get(url)
                elapsed = time.perf_counter() - started
                assert response.status_code == 200, (url, response.status_code)
                if round_ >= 20:
                    times[i].append(elapsed)
        for client in clients:
            client.close()
    finally:
        server.stop()
    return [(label, stats(t), n) for (label, _url, _user), t, n in zip(pages, times, counts, strict=True)]


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
