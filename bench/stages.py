"""Where a click's time goes, step by step, in the app and in the stack floor (bench/stack_floor.py) of the same run:
100 campaigns × 6 screens on each, as bench/live.py's row of that name, their clicks taking turns; each server marks
its steps (bench/probe.py) and each click's marks are lined up with the client's own times (the same monotonic
clock). Prints the median and the mean of each step over the clicks, in ms; a step the stack floor does not have is
left blank.

Run: .venv/bin/python scripts/dev.py bench bench/stages.py [clicks]  (or DATABASE_URL=… .venv/bin/python bench/…).
It makes and drops its own test database. Not a goal of its own: it says where to look (bench/RESULTS.md).
"""

import asyncio
import bisect
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from django.db import connection  # noqa: E402

from bench.crowd import (  # noqa: E402 — bench.crowd sets the servers' environment and Django up first
    PG_VALUE,
    VERSION,
    Click,
    Screen,
    Server,
    Table,
    app_clicker,
    clicked,
    close_screens,
    make_table,
    open_screens,
    stack_clicker,
    start_app,
)
from bench.live import stream_plan  # noqa: E402
from bench.runs import grouped, run_async  # noqa: E402

CAMPAIGNS, PER_CAMPAIGN, WARM_UP = 100, 6, 5
APP, STACK = "app", "stack floor"

type Marks = dict[str, list[float]]  # a click's marks by name, in order
# Each step: its name, and how it is found in one click's marks (None: not a step of this server's).
type Step = Callable[[Marks, "Timed"], float | None]


@dataclass
class Timed:
    t0: float  # the click sent
    answered: float  # the GM's answer complete
    last: float  # the change on the last of its campaign's screens


@dataclass
class Side:
    name: str
    server: Server
    probe: str
    click: Click | None = None
    groups: list[list[Screen]] = field(default_factory=list)
    screens: list[Screen] = field(default_factory=list)
    clicks: list[Timed] = field(default_factory=list)


def between(start: str, end: str, first: bool = True) -> Step:
    """From the first `start` mark to the first (or last) `end` mark after it."""

    def step(marks: Marks, _click: Timed) -> float | None:
        if start not in marks or end not in marks:
            return None
        begin = marks[start][0]
        after = [t for t in marks[end] if t >= begin]
        return None if not after else (after[0] if first else after[-1]) - begin

    return step


def to_client(start: str, end: str) -> Step:
    def step(marks: Marks, click: Timed) -> float | None:
        if start not in marks:
            return None
        return (click.last if end == "last" else click.answered) - marks[start][-1 if start == "deliver" else 0]

    return step


def collecting(marks: Marks, _click: Timed) -> float | None:
    """The garbage collector's time within the click, of any generation."""
    spans = [
        end - start
        for generation in "012"
        for start, end in zip(marks.get(f"gc{generation}+", []), marks.get(f"gc{generation}-", []), strict=False)
    ]
    return sum(spans)


def from_click(end: str) -> Step:
    return lambda marks, click: marks[end][0] - click.t0 if end in marks else None


STEPS: list[tuple[str, Step]] = [
    ("click → the request in the server", from_click("request")),
    ("request in → its session read", between("request", "session+")),
    ("the session read", between("session+", "session-")),
    ("the account read", between("user+", "user-")),
    ("account read → commit (the view)", between("user-", "commit+")),
    ("  · the campaign and its characters, for the form", between("table+", "table-")),
    ("  · form read → action", between("table-", "apply+")),
    ("  · the action's lock trip (BEGIN, then its reads)", between("lock+", "lock-")),
    ("  · between the trips (the rules, the rows, the event)", between("lock-", "write+")),
    ("  · the write trip (writes, event, reads for the drawing)", between("write+", "write-")),
    ("the commit", between("commit+", "commit-")),
    ("commit → the change drawn", between("commit-", "drawn-")),
    ("  · the drawing (every view, and the acting table)", between("drawn+", "drawn-")),
    ("commit → the last stream's message queued", between("commit-", "deliver", first=False)),
    ("last message queued → on the last screen", to_client("deliver", "last")),
    ("commit → the answer sent", between("commit-", "sent")),
    ("answer sent → in the GM's browser", to_client("sent", "answered")),
    ("the garbage collector, within the click", collecting),
    ("click → last screen", lambda _marks, click: click.last - click.t0),
    ("click → the GM's answer (round trip)", lambda _marks, click: click.answered - click.t0),
]


def read_marks(path: str) -> tuple[list[float], list[str]]:
    times, names = [], []
    for line in Path(path).read_text().splitlines():
        at, name = line.split()
        times.append(float(at))
        names.append(name)
    return times, names


def marks_of(click: Timed, times: list[float], names: list[str]) -> Marks:
    """The marks a server wrote between a click and its end (and a moment after: the answer's `sent` is written
    after the bytes went)."""
    marks: Marks = {}
    start = bisect.bisect_left(times, click.t0)
    end = bisect.bisect_right(times, max(click.answered, click.last) + 0.003)
    for at, name in zip(times[start:end], names[start:end], strict=True):
        marks.setdefault(name, []).append(at)
    return marks


def medians(side: Side) -> list[tuple[float, float] | None]:
    times, names = read_marks(side.probe)
    found: list[list[float]] = [[] for _ in STEPS]
    for click in side.clicks:
        marks = marks_of(click, times, names)
        for values, (_label, step) in zip(found, STEPS, strict=True):
            value = step(marks, click)
            if value is not None:
                values.append(value * 1000)
    enough = len(side.clicks) // 2
    return [(statistics.median(values), statistics.mean(values)) if len(values) > enough else None for values in found]


async def timed(side: Side, group: int) -> Timed:
    """bench.crowd.clicked, on the clock the servers mark with (it starts its own within a microsecond of `t0`)."""
    assert side.click is not None
    t0 = time.perf_counter()
    sample = await clicked(side.click, group, side.groups[group])
    return Timed(t0, t0 + sample.round_trip, t0 + sample.to_last)


async def run(sides: list[Side], tables: list[Table], clicks: int) -> None:
    app, stack = sides
    app_path, stack_path = "/campaigns/{}/stream/", "/bench/stack/{}/stream/"
    app.screens = await open_screens(app.server.port, stream_plan(tables, PER_CAMPAIGN, app_path), PG_VALUE)
    stack.screens = await open_screens(stack.server.port, stream_plan(tables, PER_CAMPAIGN, stack_path), VERSION)
    app.click, clients = await app_clicker(app.server.base, tables)
    app.groups = grouped(app.screens, PER_CAMPAIGN)
    before = sum(screen.received for screen in app.screens)
    for group in range(WARM_UP):
        await timed(app, group)
    size = round((sum(screen.received for screen in app.screens) - before) / WARM_UP / PER_CAMPAIGN)
    stack.click, more = await stack_clicker(stack.server.base, tables, size)  # the app's bytes per change
    stack.groups = grouped(stack.screens, PER_CAMPAIGN)
    for group in range(WARM_UP):
        await timed(stack, group)
    pick = random.Random(7)
    for turn in range(clicks):
        group = pick.randrange(CAMPAIGNS)
        for side in sides if turn % 2 == 0 else sides[::-1]:
            side.clicks.append(await timed(side, group))
            await asyncio.sleep(0.01)
    for client in clients + more:
        await client.aclose()
    await close_screens(app.screens + stack.screens)


def main(clicks: int) -> None:
    sides = []
    try:
        for name in (APP, STACK):
            probe = tempfile.NamedTemporaryFile(prefix="probe-", suffix=".txt", delete=False).name  # noqa: SIM115
            os.environ["BENCH_PROBE"] = probe  # the server's environment is copied as it starts
            sides.append(Side(name, start_app("bench.probe_settings"), probe))
        run_async(run(sides, [make_table() for _ in range(CAMPAIGNS)], clicks))
    finally:
        for side in sides:
            side.server.stop()
    found = [medians(side) for side in sides]
    print(f"One click, {CAMPAIGNS} campaigns × {PER_CAMPAIGN} screens, {clicks} clicks each, median / mean (ms)\n")
    print(f"| step | {APP} | {STACK} |\n| --- | ---: | ---: |")
    for (label, _step), *values in zip(STEPS, *found, strict=True):
        shown = ["" if value is None else f"{value[0]:.2f} / {value[1]:.2f}" for value in values]
        print(f"| {label} | {' | '.join(shown)} |")
    for side in sides:
        Path(side.probe).unlink(missing_ok=True)


if __name__ == "__main__":
    connection.settings_dict["TEST"]["NAME"] = f"bench_stages_{connection.settings_dict['NAME']}"
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
    finally:
        connection.close()
        connection.creation.destroy_test_db(test_db, verbosity=0)
