"""The API against the pages (issue 53): the same work asked of the same server in the same run, a campaign of 40
characters.

- **A read**: `GET /api/v1/campaigns/ID/characters` with a GM's token (`Authorization: Bearer`, scope "leer y actuar")
  against the GM's table page, `GET /campaigns/ID/` with the GM's session, as bench/pages.py times it: once with
  nothing changed between two reads (the page's screen is then kept by the process, play.screens.whole_screen) and
  once right after a change (one PG of damage to the next character, made here, outside the timed request).
- **A damage**: `POST /api/v1/campaigns/ID/damage` `{"characters": [id], "kind": "attack", "amount": 1}` against the
  GM's quick damage on a row of the table (`POST /campaigns/ID/act/damage/`, the fields of components/card.html's
  quick-damage form, posted as htmx posts it: HX-Request, X-Tab, X-CSRFToken and the token in the form). Each
  channel has a campaign of its own, built alike, and hits its 40 characters round robin (1 PG each time: none
  comes near death), so every request does the same work.

The floors of the same run, both through the project's whole middleware (bench/urls.py, bench/stack_floor.py): for
the reads the minimal view (the session and the user looked up, one query), for the damages the stack floor's POST
(the campaign row locked, its version bumped, `pg_notify`, a card's worth of bytes answered). The campaigns are
bench/pages.py's `make_crowd` (half of the characters players', each wounded three times).

One uvicorn with bench.settings and DEBUG=0, as bench/pages.py serves it; keep-alive clients; the requests of a round
interleaved (the first of a round goes round), 20 rounds to warm up; the token's cap of calls a minute lifted
(API_CALLS_PER_MINUTE); queries per request counted in-process with the test client. Prints p50 and p90 (ms) of each,
their ratios to the floor, then the goal: the API within 2× of the pages (p50 and p90).

Run: make bench (a throw-away embedded database; or set DATABASE_URL). bench/api.py [rounds] (default 200).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import cycle
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# Every call of a run is by one token: the per-token cap (play.api.v1.PerToken, still run on each call) would refuse
# most of them, as the per-account caps of streams would bench/live.py's (bench/crowd.py's SERVER_ENV).
os.environ["API_CALLS_PER_MINUTE"] = "1000000"

import httpx  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402

from bench.crowd import HOST, session, start_app  # noqa: E402 - sets Django up, as the server under test is
from bench.database import own_database  # noqa: E402
from bench.goals import Goal, pair  # noqa: E402
from bench.pages import a_change, make_crowd, nothing  # noqa: E402
from campaigns.models import Campaign, TokenScope  # noqa: E402
from rules.actions import tokens  # noqa: E402

if TYPE_CHECKING:
    from django.contrib.auth.models import User

WARM_UP = 20  # rounds not counted
GOAL = 2.0  # the API within 2× of the pages
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Figures:
    p50: float
    p90: float


def figures(seconds: list[float]) -> Figures:
    ms = sorted(s * 1000 for s in seconds)
    return Figures(statistics.median(ms), statistics.quantiles(ms, n=10, method="inclusive")[8])


@dataclass
class Probe:
    """One kind of request: how to send it (on its own keep-alive client), what to do before it, untimed, and what
    its answer must be."""

    label: str
    send: Callable[[], httpx.Response]
    check: Callable[[httpx.Response], None]
    before: Callable[[], object] = nothing
    times: list[float] = field(default_factory=list)
    queries: int = 0
    size: int = 0  # the answer's bytes


@dataclass
class World:
    """The campaigns of one run, their GM (the same account runs each), its session and its token."""

    read: Campaign  # read again and again, never changed
    changing: Campaign  # read right after a change
    api_damage: Campaign
    page_damage: Campaign
    stack: Campaign  # the stack floor's row
    gm: User
    cookie: str
    token: str
    tab: str = field(default_factory=lambda: secrets.token_hex(12))  # as static/js/screen.js names a browser tab


def make_world() -> World:
    read, gm = make_crowd(40)
    campaigns = []
    for _ in range(3):
        campaign, _gm = make_crowd(40)
        Campaign.objects.filter(pk=campaign.pk).update(gm=gm)  # one account, one session, one token for all
        campaign.gm = gm
        campaigns.append(campaign)
    stack = Campaign.objects.create(name="Stack floor", gm=gm)
    _row, token = tokens.create_token(gm, name="bench", scope=TokenScope.ACT)
    changing, api_damage, page_damage = campaigns
    return World(read, changing, api_damage, page_damage, stack, gm, session(gm).split("=", 1)[1], token)


def round_robin(campaign: Campaign) -> Iterator[int]:
    return cycle(list(campaign.characters.order_by("pk").values_list("pk", flat=True)))


def ok(
    status: int, *, json_characters: int | None = None, header: str | None = None
) -> Callable[[httpx.Response], None]:
    def check(response: httpx.Response) -> None:
        assert response.status_code == status, (response.request.url, response.status_code, response.text[:300])
        if json_characters is not None:
            assert len(response.json()["characters"]) == json_characters, "the API answers as many characters as asked"
        if header is not None:
            assert response.headers.get(header), f"the answer carries {header}"

    return check


def quick_form(pk: int) -> dict[str, str]:
    """What a row's quick-damage form posts (components/card.html), 1 PG typed."""
    row = str(pk)
    return {"kind": "attack", "characters": row, "fields_for": "attack", "slot": row, "character": row, "amount": "1"}


def probes(world: World, base: str) -> list[Probe]:
    """The requests of a round, each on a client of its own: the API's with the token and no session, the pages'
    with the GM's session, as a browser sends them."""

    def client(**headers: str) -> httpx.Client:
        made = httpx.Client(base_url=base, timeout=30, headers={"Accept-Language": "es", **headers})
        if "Authorization" not in headers:
            made.cookies.set("sessionid", world.cookie)
        return made

    api = client(Authorization=f"Bearer {world.token}")
    api_changed = client(Authorization=f"Bearer {world.token}")
    api_damager = client(Authorization=f"Bearer {world.token}")
    page, page_changed, page_damager, minimal, stack = (client() for _ in range(5))

    table = f"/campaigns/{world.page_damage.pk}/"
    csrf = CSRF.search(page_damager.get(table).text)  # the table holds its quick-damage forms and their token
    stack_csrf = CSRF.search(stack.get(f"/bench/stack/{world.stack.pk}/").text)
    assert csrf is not None and stack_csrf is not None, "the table and the stack floor's page carry a CSRF token"
    htmx = {"HX-Request": "true", "HX-Current-URL": base + table, "X-Tab": world.tab, "Origin": base}
    api_targets, page_targets = round_robin(world.api_damage), round_robin(world.page_damage)

    def api_damage() -> httpx.Response:
        body = {"characters": [next(api_targets)], "kind": "attack", "amount": 1}
        return api_damager.post(f"/api/v1/campaigns/{world.api_damage.pk}/damage", json=body)

    def page_damage() -> httpx.Response:
        pk = next(page_targets)
        form = {**quick_form(pk), "csrfmiddlewaretoken": csrf.group(1)}
        headers = {**htmx, "HX-Trigger": f"quick-form-{pk}", "HX-Target": f"quick-form-{pk}"}
        return page_damager.post(f"{table}act/damage/", data=form, headers={**headers, "X-CSRFToken": csrf.group(1)})

    def stack_post() -> httpx.Response:
        headers = {
            **htmx,
            "HX-Current-URL": f"{base}/bench/stack/{world.stack.pk}/",
            "X-CSRFToken": stack_csrf.group(1),
        }
        data = {"csrfmiddlewaretoken": stack_csrf.group(1), "bytes": "0"}
        return stack.post(f"/bench/stack/{world.stack.pk}/", data=data, headers=headers)

    read, changing = world.read.pk, world.changing.pk
    changed = a_change(world.changing, world.gm)
    return [
        Probe("API read", lambda: api.get(f"/api/v1/campaigns/{read}/characters"), ok(200, json_characters=40)),
        Probe("table page GET", lambda: page.get(f"/campaigns/{read}/"), ok(200)),
        Probe(
            "API read after a change",
            lambda: api_changed.get(f"/api/v1/campaigns/{changing}/characters"),
            ok(200, json_characters=40),
            changed,
        ),
        Probe("table page GET after a change", lambda: page_changed.get(f"/campaigns/{changing}/"), ok(200), changed),
        Probe("minimal view GET (floor)", lambda: minimal.get(f"/bench/minimal/{read}/"), ok(200)),
        Probe("API damage", api_damage, ok(200, json_characters=1)),
        Probe("page quick damage", page_damage, ok(200, header="X-Regions")),
        Probe("stack floor POST (floor)", stack_post, ok(200)),
    ]


def count_queries(world: World, rows: list[Probe]) -> None:
    """Each request's queries, counted in-process by the test client (the second of two: the first warms caches)."""
    api = Client(HTTP_HOST=HOST, headers={"Authorization": f"Bearer {world.token}"})
    page = Client(HTTP_HOST=HOST)
    page.force_login(world.gm)
    targets, page_targets = round_robin(world.api_damage), round_robin(world.page_damage)
    hx = {"HX-Request": "true", "X-Tab": world.tab}

    requests: dict[str, Callable[[], object]] = {
        "API read": lambda: api.get(f"/api/v1/campaigns/{world.read.pk}/characters"),
        "table page GET": lambda: page.get(f"/campaigns/{world.read.pk}/"),
        "API read after a change": lambda: api.get(f"/api/v1/campaigns/{world.changing.pk}/characters"),
        "table page GET after a change": lambda: page.get(f"/campaigns/{world.changing.pk}/"),
        "API damage": lambda: api.post(
            f"/api/v1/campaigns/{world.api_damage.pk}/damage",
            json.dumps({"characters": [next(targets)], "kind": "attack", "amount": 1}),
            content_type="application/json",
        ),
        "page quick damage": lambda: page.post(
            f"/campaigns/{world.page_damage.pk}/act/damage/", quick_form(next(page_targets)), headers=hx
        ),
        "minimal view GET (floor)": lambda: page.get(f"/bench/minimal/{world.read.pk}/"),
        "stack floor POST (floor)": lambda: page.post(f"/bench/stack/{world.stack.pk}/", {"bytes": "0"}, headers=hx),
    }
    with override_settings(ROOT_URLCONF="bench.urls"):
        for probe in rows:
            request = requests[probe.label]
            probe.before()
            request()
            probe.before()
            with CaptureQueriesContext(connection) as queries:
                request()
            probe.queries = len(queries)


def run(rounds: int) -> list[Probe]:
    world = make_world()
    server = start_app("bench.settings")
    try:
        rows = probes(world, server.base)
        for round_ in range(rounds + WARM_UP):
            for offset in range(len(rows)):
                probe = rows[(round_ + offset) % len(rows)]
                probe.before()
                started = time.perf_counter()
                response = probe.send()
                elapsed = time.perf_counter() - started
                probe.check(response)
                probe.size = len(response.content)
                if round_ >= WARM_UP:
                    probe.times.append(elapsed)
    finally:
        server.stop()
    count_queries(world, rows)
    return rows


def goal(measure: str, api: Figures, page: Figures) -> Goal:
    ratios = (api.p50 / page.p50, api.p90 / page.p90)
    held = max(ratios) <= GOAL
    return Goal(measure, pair((api.p50, api.p90)), pair((page.p50, page.p90)), pair(ratios, "×"), "≤ 2×", held)


def report(rows: list[Probe], rounds: int) -> None:
    got = {probe.label: figures(probe.times) for probe in rows}
    floors = {"GET": got["minimal view GET (floor)"], "POST": got["stack floor POST (floor)"]}
    print(f"\nThe API against the pages, campaigns of 40 characters: {rounds} requests each (ms), interleaved\n")
    print("| request | p50 (ms) | p90 | p50 / floor | p90 / floor | queries | answer (bytes) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for probe in rows:
        mine = got[probe.label]
        floor = floors["POST" if "damage" in probe.label or "POST" in probe.label else "GET"]
        print(
            f"| {probe.label} | {mine.p50:.1f} | {mine.p90:.1f} | {mine.p50 / floor.p50:.1f} "
            f"| {mine.p90 / floor.p90:.1f} | {probe.queries} | {probe.size:,} |"
        )
    goals = [
        goal("read, 40 characters, nothing changed (ms)", got["API read"], got["table page GET"]),
        goal(
            "read, 40 characters, after a change (ms)",
            got["API read after a change"],
            got["table page GET after a change"],
        ),
        goal("damage, one character (ms)", got["API damage"], got["page quick damage"]),
    ]
    print("\nGoals (issue 53): the API within 2× of the same work through the pages, same run (p50 / p90)\n")
    print("| measure | API | the pages | API / pages | goal | held? |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for each in goals:
        print(each.line())
    print(f"\n{sum(each.held is True for each in goals)} of {len(goals)} goals held.", flush=True)


def main(rounds: int) -> None:
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG=0 serves the hashed files of STATIC_ROOT
    print(f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}; one uvicorn, bench.settings, DEBUG=0")
    report(run(rounds), rounds)


if __name__ == "__main__":
    with own_database("api"):
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
