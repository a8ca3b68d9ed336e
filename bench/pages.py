"""The GM's table page GET of bench/live.py, against a minimal Django view doing one query behind the same middleware
(bench/urls.py), served by a uvicorn of its own; and one user's page load timed from outside (curl), for the load
during the reconnect storm."""

import shutil
import subprocess
import threading
import time
from collections.abc import Callable

import httpx
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from bench.clicks import Stats, stats
from bench.crowd import HOST, session, start_app
from campaigns.models import Campaign, Membership
from characters.models import Character
from play.forms.damage import DamageForm
from rules import actions
from rules.actions import visits
from rules.damage import Attack

made = 0


def make_crowd(size: int) -> tuple[Campaign, User]:
    """The GM's table with `size` characters, half of them players', each wounded by a few attacks (a log to show)."""
    global made
    made += 1
    users = get_user_model()
    gm = users.objects.create(username=f"bench-crowd-gm-{made}")
    campaign = Campaign.objects.create(name=f"Crowd {size}", gm=gm)
    for i in range(size):
        player = None
        if i % 2 == 0:
            player = users.objects.create(username=f"bench-crowd-player-{made}-{i}")
            Membership.objects.create(campaign=campaign, user=player)
        Character.objects.create(campaign=campaign, player=player, name=f"PJ {i}", constitution=10 + i % 10)
    everyone = [str(pk) for pk in campaign.characters.values_list("pk", flat=True)]
    for amount in (3, 2, 1):
        form = DamageForm(data={"kind": "attack", "amount": str(amount), "characters": everyone}, campaign=campaign)
        assert form.is_valid(), form.errors
        form.perform(gm)
    return campaign, gm


def query_count(user: User, url: str, before: Callable[[], object]) -> int:
    client = Client(HTTP_HOST=HOST)
    client.force_login(user)
    with override_settings(ROOT_URLCONF="bench.urls"):
        client.get(url)  # the first request warms caches (translations, templates)
        before()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries)


def nothing() -> None:
    pass


def a_change(campaign: Campaign, gm: User) -> Callable[[], object]:
    """One PG of damage to the next of the campaign's characters, by the GM, who has read it ("Desde tu última
    visita" put away, as their live table would have it): outside the timed GET."""
    characters = list(campaign.characters.order_by("pk"))
    made = [0]

    def change() -> None:
        made[0] += 1
        actions.apply_damage(campaign, [characters[made[0] % len(characters)]], Attack(amount=1), by=gm)
        visits.dismissed(campaign, gm)

    return change


def run_gets(count: int) -> list[tuple[str, Stats, int]]:
    """The table's GET again and again with nothing changed in between (the goal's: what the process keeps of a
    screen is then current, play.screens.whole_screen), and right after a change (drawn anew), against the minimal
    view; interleaved."""
    crowds = {size: make_crowd(size) for size in (4, 40)}
    pages: list[tuple[str, str, User, Callable[[], object]]] = [
        (f"table, {size} characters", f"/campaigns/{c.pk}/", gm, nothing) for size, (c, gm) in crowds.items()
    ]
    changing, its_gm = make_crowd(40)  # a table of its own: the goal's stays unchanged
    changed = a_change(changing, its_gm)
    pages.append(("table, 40 characters, each GET after a change", f"/campaigns/{changing.pk}/", its_gm, changed))
    campaign, gm = crowds[40]
    pages.append(("minimal view, 1 query", f"/bench/minimal/{campaign.pk}/", gm, nothing))
    counts = [query_count(user, url, before) for _label, url, user, before in pages]
    server = start_app("bench.settings")
    times: list[list[float]] = [[] for _ in pages]
    try:
        clients = []
        for _label, _url, user, _before in pages:
            client = httpx.Client(base_url=server.base, timeout=30)
            client.cookies.set("sessionid", session(user).split("=", 1)[1])
            clients.append(client)
        for round_ in range(count + 20):  # interleaved, so drift hits each alike; the first 20 warm up
            for i, ((_label, url, _user, before), client) in enumerate(zip(pages, clients, strict=True)):
                before()
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
    return [(label, stats(t), n) for (label, _url, _user, _before), t, n in zip(pages, times, counts, strict=True)]


def print_gets(gets: list[tuple[str, Stats, int]], count: int) -> None:
    minimal = gets[-1][1]
    print(f"\nThe GM's table page, GET, {count} requests each (ms); queries per GET counted in-process\n")
    print("| page | p50 (ms) | p99 | p50 / minimal | p99 / minimal | queries |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, s, n in gets:
        print(f"| {label} | {s.p50:.1f} | {s.p99:.1f} | {s.p50 / minimal.p50:.1f} | {s.p99 / minimal.p99:.1f} | {n} |")


def load_once(url: str, cookie: str) -> tuple[int, float]:
    """One page load by a fresh curl (a browser's new connection), timed by curl itself: (status, seconds); status 0
    when no answer came."""
    if shutil.which("curl") is None:
        raise RuntimeError(
            "the page loads during the reconnect storm are made with curl: install it (apt-get install curl)"
        )
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "30"]
    command += ["-H", f"Cookie: {cookie}", "-H", "Accept-Language: es", url]
    out = subprocess.run(command, capture_output=True, text=True, check=False).stdout.split()
    return (int(out[0]), float(out[1])) if len(out) == 2 else (0, 30.0)


class PageLoads:
    """One user's page loaded again and again until stopped, from outside this process (curl), so that the
    thousand streams read here do not share its time."""

    def __init__(self, url: str, cookie: str) -> None:
        self.url, self.cookie = url, cookie
        self.loads: list[tuple[int, float]] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stopping.is_set():
            self.loads.append(load_once(self.url, self.cookie))

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> list[tuple[int, float]]:
        """Stop (the load under way ends first) and give every load's (status, seconds)."""
        self.stopping.set()
        self.thread.join()
        return self.loads
