"""Live updates under load: N SSE clients on one app process, the GM changing things through the real HTTP form.

For N = 10, 200, 1000 clients (a mix of the GM's and two players' streams) the GM applies 50 changes; for each, the
time from the GM's response to the change reaching the last client. Then the floor, in the same run: a bare NOTIFY
fanned out by a minimal async SSE endpoint (bench/floor_app.py) to the same N clients. Then 100 campaigns × 6
clients with the changes spread over them. Prints p50 / p99 / max (ms), the ratio to the floor, and the server's peak
RSS. Run: make bench-live (a throw-away embedded database; or set DATABASE_URL).
"""

import asyncio
import logging
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()
logging.getLogger("httpx").setLevel(logging.WARNING)

import httpx  # noqa: E402
import psycopg  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from httpx_sse import aconnect_sse  # noqa: E402

from campaigns.models import Campaign, Membership  # noqa: E402
from characters.models import Character  # noqa: E402
from tests.servers import database_url, free_port  # noqa: E402

# A campaign of the benchmark: (campaign, its GM, its players, their characters).
type Setup = tuple[Campaign, User, list[User], list[Character]]

ROOT = Path(__file__).resolve().parent.parent
CHANGES = 50
SIZES = [int(n) for n in os.environ.get("BENCH_SIZES", "10,200,1000").split(",")]


def start(app: str, env: dict) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--log-level",
            "warning",
            "--timeout-graceful-shutdown",
            "1",
            "--backlog",
            "4096",
        ],
        cwd=ROOT,
        env={**os.environ, **env},
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            with httpx.stream("GET", base + "/accounts/login/", timeout=2):
                return process, base  # headers are enough: the floor app answers with an endless stream
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"{app} did not start")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def session(user: User) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


class Watcher:
    """One SSE client: counts the 'clock' events (every audience gets one per change) and when they came."""

    def __init__(self) -> None:
        self.clocks: list[float] = []
        self.ready = asyncio.Event()

    async def run(self, client: httpx.AsyncClient, path: str) -> None:
        async with aconnect_sse(client, "GET", path) as source:
            async for event in source.aiter_sse():
                if event.event == "clock":
                    self.clocks.append(time.perf_counter())
                    self.ready.set()


async def wait_all(watchers: list[Watcher], count: int, timeout: float = 30) -> float:
    """When the last watcher got its `count`-th clock event."""
    deadline = time.perf_counter() + timeout
    while any(len(w.clocks) < count for w in watchers):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{sum(len(w.clocks) < count for w in watchers)} clients behind")
        await asyncio.sleep(0.001)
    return max(w.clocks[count - 1] for w in watchers)


def summary(latencies: list[float]) -> tuple[float, float, float]:
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return statistics.median(ms), p99, ms[-1]


def make_campaign(n: int) -> Setup:
    users = get_user_model()
    gm = users.objects.create(username=f"bench-gm-{n}")
    players = [users.objects.create(username=f"bench-player-{n}-{i}") for i in range(2)]
    campaign = Campaign.objects.create(name=f"Bench {n}", gm=gm)
    characters = []
    for i, player in enumerate(players):
        Membership.objects.create(campaign=campaign, user=player)
        characters.append(
            Character.objects.create(campaign=campaign, player=player, name=f"PJ {n}-{i}", constitution=30)
        )
    return campaign, gm, players, characters


async def open_clients(
    base: str, plan: list[tuple[dict[str, str], str]], initial_state: bool = True
) -> tuple[list[Watcher], list[httpx.AsyncClient], list[asyncio.Task[None]]]:
    """Open one SSE client per (cookies, path); wait for their first fragment (the app sends the state first)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    clients, watchers, tasks = [], [], []
    for cookies, path in plan:
        client = httpx.AsyncClient(base_url=base, cookies=cookies, timeout=httpx.Timeout(10, read=None), limits=limits)
        watcher = Watcher()
        clients.append(client)
        watchers.append(watcher)
        tasks.append(asyncio.create_task(watcher.run(client, path)))
    if initial_state:
        await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), 120)
    else:
        await asyncio.sleep(1.0 + len(plan) / 500)  # the floor sends nothing on connect: give the sockets time
    return watchers, clients, tasks


async def close_clients(clients: list[httpx.AsyncClient], tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(c.aclose() for c in clients))


async def gm_post(base: str, cookies: dict[str, str], campaign: Campaign, characters: list[Character]) -> float:
    """Apply 1 PG to the party through the real form; return when the GM's response arrived."""
    async with httpx.AsyncClient(base_url=base, cookies=cookies) as gm:
        page = await gm.get(f"/campaigns/{campaign.pk}/")
        found = re.search(r'"X-CSRFToken": "([^"]+)"', page.text)
        assert found is not None, "the table page carries its CSRF token"
        token = found.group(1)
        response = await gm.post(
            f"/campaigns/{campaign.pk}/act/damage/",
            data={"kind": "attack", "amount": "1", "characters": [c.pk for c in characters]},
            headers={"X-CSRFToken": token, "HX-Request": "true", "Referer": base + "/"},
        )
        response.raise_for_status()
        return time.perf_counter()


def plan_for(campaign: Campaign, gm: User, players: list[User], n: int) -> list[tuple[dict[str, str], str]]:
    cookies = [session(gm), *(session(p) for p in players)]
    path = f"/campaigns/{campaign.pk}/stream/"
    return [(cookies[i % len(cookies)], path) for i in range(n)]


async def app_run(
    base: str, plan: list[tuple[dict[str, str], str]], gm_cookies: dict[str, str], setup: Setup
) -> list[float]:
    campaign, _gm, _players, characters = setup
    watchers, clients, tasks = await open_clients(base, plan)
    latencies = []
    try:
        for k in range(CHANGES):
            responded = await gm_post(base, gm_cookies, campaign, characters)
            last = await wait_all(watchers, k + 2)  # the first clock came with the initial state
            latencies.append(max(last - responded, 0.0))
    finally:
        await close_clients(clients, tasks)
    return latencies


async def floor_run(base: str, n: int, dsn: str) -> list[float]:
    watchers, clients, tasks = await open_clients(base, [({}, "/")] * n, initial_state=False)
    latencies = []
    try:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            for k in range(CHANGES):
                await conn.execute("SELECT pg_notify('bench_floor', %s)", [f'{{"n": {k}}}'])
                sent = time.perf_counter()
                last = await wait_all(watchers, k + 1)
                latencies.append(max(last - sent, 0.0))
    finally:
        await close_clients(clients, tasks)
    return latencies


async def many_campaigns_run(base: str, setups: list, plan: list, groups: list, gm_cookies: list) -> list[float]:
    watchers, clients, tasks = await open_clients(base, plan)
    latencies = []
    rng = random.Random(12)
    try:
        for _ in range(CHANGES):
            index = rng.randrange(len(setups))
            campaign, _gm, _players, characters = setups[index]
            group = [watchers[i] for i in groups[index]]
            count = min(len(w.clocks) for w in group) + 1
            responded = await gm_post(base, gm_cookies[index], campaign, characters)
            latencies.append(max(await wait_all(group, count) - responded, 0.0))
    finally:
        await close_clients(clients, tasks)
    return latencies


def main() -> None:
    url = database_url()
    params = {
        k: v
        for k, v in connection.get_connection_params().items()
        if k in ("dbname", "user", "password", "host", "port")
    }
    dsn = psycopg.conninfo.make_conninfo(**params)
    setup = make_campaign(0)
    app, app_base = start("config.asgi:application", {"DATABASE_URL": url, "DEBUG": "1"})
    floor, floor_base = start("bench.floor_app:app", {"FLOOR_DSN": dsn})
    print(f"{CHANGES} changes per run; latency = GM's response (or NOTIFY) → the change at the last client, ms")
    print(
        f"{'clients':>8} | {'app p50':>8} {'p99':>8} {'max':>8} | {'floor p50':>9} {'p99':>8} {'max':>8} | "
        f"{'p99 ratio':>9} | {'app RSS MB':>10}"
    )
    try:
        for n in SIZES:
            # Sessions are made here, outside the event loop: the ORM is sync.
            plan = plan_for(setup[0], setup[1], setup[2], n)
            app_latencies = asyncio.run(app_run(app_base, plan, session(setup[1]), setup))
            floor_latencies = asyncio.run(floor_run(floor_base, n, dsn))
            a, f = summary(app_latencies), summary(floor_latencies)
            print(
                f"{n:>8} | {a[0]:>8.1f} {a[1]:>8.1f} {a[2]:>8.1f} | {f[0]:>9.1f} {f[1]:>8.1f} {f[2]:>8.1f} | "
                f"{a[1] / f[1]:>9.1f} | {peak_rss_mb(app.pid):>10.0f}",
                flush=True,
            )
        setups = [make_campaign(n) for n in range(1, 101)]
        plan, groups = [], []
        for campaign, gm, players, _characters in setups:
            first = len(plan)
            plan += plan_for(campaign, gm, players, 6)
            groups.append(range(first, len(plan)))
        gm_cookies = [session(gm) for _campaign, gm, _players, _characters in setups]
        latencies = summary(asyncio.run(many_campaigns_run(app_base, setups, plan, groups, gm_cookies)))
        print(
            f"100 campaigns × 6 clients: p50 {latencies[0]:.1f} ms, p99 {latencies[1]:.1f} ms, "
            f"max {latencies[2]:.1f} ms; app peak RSS {peak_rss_mb(app.pid):.0f} MB"
        )
    finally:
        for process in (app, floor):
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    # Its own database, so a test run on the same server does not get in the way.
    connection.settings_dict["TEST"]["NAME"] = f"bench_{connection.settings_dict['NAME']}"
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        main()
    finally:
        connection.close()
        connection.creation.destroy_test_db(test_db, verbosity=0)
