"""The crowd of bench/live.py: the servers under test (the app, the stack floor of bench/stack_floor.py and the
physical floor of bench/floor_app.py), the campaigns and their accounts, and the SSE clients (raw asyncio sockets in
this one process). The GM's clicks, each timed, are bench/clicks.py's."""

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
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
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

from campaigns.models import Campaign, Membership  # noqa: E402
from characters.models import Character  # noqa: E402
from tests.servers import database_url, free_port  # noqa: E402

HOST = "127.0.0.1"
CONSTITUTION = 30  # 300 PG: room for every change of a run at 1 PG each
PG_VALUE = re.compile(rb'class="pg-value">(\d+)<')  # the app: a card's PG, new with every change (1 PG each)
VERSION = re.compile(rb"data: v(\d+)")  # both floors: the row's version


@dataclass
class Options:
    sizes: list[int]
    campaigns: int
    per_campaign: int
    changes: int
    repeats: int
    storm: int
    gets: int
    processes: int = 4  # the several-processes section (WEB_CONCURRENCY)


FULL = Options(sizes=[10, 200, 1000], campaigns=100, per_campaign=6, changes=50, repeats=3, storm=1000, gets=200)
QUICK = Options(sizes=[10, 200], campaigns=20, per_campaign=6, changes=40, repeats=1, storm=200, gets=50)


# --- servers -------------------------------------------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: IO[bytes]  # its stderr, shown when it stops (less the streams cancelled at shutdown: they never end)
    metrics_dir: str | None = None  # its PROMETHEUS_MULTIPROC_DIR, removed when it stops

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
        if self.metrics_dir is not None:
            shutil.rmtree(self.metrics_dir, ignore_errors=True)


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
    """As in production (`make run`, the Docker image): /metrics summed from files in a PROMETHEUS_MULTIPROC_DIR of its
    own, fresh, answered to this machine (METRICS_ALLOWED) only."""
    metrics = tempfile.mkdtemp(prefix="bench-metrics-")
    env = {"DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": settings, "PROMETHEUS_MULTIPROC_DIR": metrics}
    try:
        server = start("config.asgi:application", {**env, "METRICS_ALLOWED": "127.0.0.1,::1"}, "/")
    except BaseException:
        shutil.rmtree(metrics, ignore_errors=True)
        raise
    server.metrics_dir = metrics
    return server


def start_stack() -> Server:
    """The stack floor (bench/stack_floor.py): the app's server and settings, plus the bench's URLs."""
    return start_app("bench.settings")


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
        self.statuses: list[int] = []  # the error statuses of refused requests
        self.received = 0  # bytes of messages received (the chunks' contents)

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
            self.statuses.append(int(head.split()[1]))
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
        self.received += len(chunk)
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
