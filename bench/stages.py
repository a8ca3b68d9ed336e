"""Where a click's time goes, step by step, in the app and in the stack floor (bench/stack_floor.py) of the same run:
100 campaigns × 6 screens on each (or another shape), as bench/live.py's row of that name, their clicks taking turns;
each server marks its steps (bench/probe.py) and each click's marks are lined up with the client's own times (the same
monotonic clock). Prints the median, mean and p95 of each step over the clicks, in ms, and its mean over the slowest
5% of clicks (where the tail comes from); a step the stack floor does not have is left blank.

Run: .venv/bin/python scripts/dev.py bench bench/stages.py [clicks] [campaigns x screens, as 1x10]
(or DATABASE_URL=… .venv/bin/python bench/…).
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


from bench.clicks import Click, app_clicker, clicked, stack_clicker
from bench.crowd import (  # noqa: E402 — bench.crowd sets the servers' environment and Django up first
    CONSTITUTION,
    PG_VALUE,
    VERSION,
    Screen,
    Server,
    Table,
    close_screens,
    make_table,
    open_screens,
    start_app,
)
from bench.database import own_database  # noqa: E402
from bench.live import stream_plan  # noqa: E402
from bench.runs import grouped, run_async  # noqa: E402

WARM_UP = 5


@dataclass
class Shape:
    campaigns: int = 100  # as bench/live.py's row "100 campaigns × 6"; `1x10` is its row of 10 clients
    per_campaign: int = 6


SHAPE = Shape()
APP, STACK = "app", "stack floor"

type Marks = dict[str, list[float]]  # a click's marks by name, in order
# Each step: its name, and how it is found in one click's marks (None: not a step of this server's).
type Step = Callable[[Marks, "Timed"], float | None]


@dataclass(frozen=True)
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


def figures(side: Side) -> list[tuple[float, float, float, float] | None]:
    """Each step's median, mean and p95 over the clicks, and its mean over the slowest 5% (by click → last screen)."""
    times, names = read_marks(side.probe)
    slowest = set(sorted(side.clicks, key=lambda click: click.last - click.t0)[-max(1, len(side.clicks) // 20) :])
    found: list[list[float]] = [[] for _ in STEPS]
    tail: list[list[float]] = [[] for _ in STEPS]
    for click in side.clicks:
        marks = marks_of(click, times, names)
        for values, tail_values, (_label, step) in zip(found, tail, STEPS, strict=True):
            value = step(marks, click)
            if value is not None:
                values.append(value * 1000)
                if click in slowest:
                    tail_values.append(value * 1000)
    enough = len(side.clicks) // 2
    return [
        (
            statistics.median(values),
            statistics.mean(values),
            statistics.quantiles(values, n=20)[-1],
            statistics.mean(tail_values) if tail_values else 0.0,
        )
        if len(values) > enough
        else None
        for values, tail_values in zip(found, tail, strict=True)
    ]


async def timed(side: Side, group: int) -> Timed:
    """bench.crowd.clicked, on the clock the servers mark with (it starts its own within a microsecond of `t0`)."""
    assert side.click is not None
    t0 = time.perf_counter()
    sample = await clicked(side.click, group, side.groups[group])
    return Timed(t0, t0 + sample.round_trip, t0 + sample.to_last)


async def run(sides: list[Side], tables: list[Table], clicks: int) -> None:
    app, stack = sides
    app_path, stack_path = "/campaigns/{}/stream/", "/bench/stack/{}/stream/"
    app.screens = await open_screens(app.server.port, stream_plan(tables, SHAPE.per_campaign, app_path), PG_VALUE)
    stack.screens = await open_screens(stack.server.port, stream_plan(tables, SHAPE.per_campaign, stack_path), VERSION)
    app.click, clients = await app_clicker(app.server.base, tables)
    app.groups = grouped(app.screens, SHAPE.per_campaign)
    before = sum(screen.received for screen in app.screens)
    for turn in range(WARM_UP):
        await timed(app, turn % SHAPE.campaigns)
    size = round((sum(screen.received for screen in app.screens) - before) / WARM_UP / SHAPE.per_campaign)
    stack.click, more = await stack_clicker(stack.server.base, tables, size)  # the app's bytes per change
    stack.groups = grouped(stack.screens, SHAPE.per_campaign)
    for turn in range(WARM_UP):
        await timed(stack, turn % SHAPE.campaigns)
    pick = random.Random(7)
    for turn in range(clicks):
        group = pick.randrange(SHAPE.campaigns)
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
        run_async(run(sides, [make_table() for _ in range(SHAPE.campaigns)], clicks))
    finally:
        for side in sides:
            side.server.stop()
    found = [figures(side) for side in sides]
    print(
        f"One click, {SHAPE.campaigns} campaigns × {SHAPE.per_campaign} screens, {clicks} clicks each; median / mean /"
        " p95 (ms), and the mean over the slowest 5% of clicks (by click → last screen)\n"
    )
    print(f"| step | {APP} | {STACK} |\n| --- | ---: | ---: |")
    for (label, _step), *values in zip(STEPS, *found, strict=True):
        shown = [
            "" if value is None else f"{value[0]:.2f} / {value[1]:.2f} / {value[2]:.2f} · {value[3]:.2f}"
            for value in values
        ]
        print(f"| {label} | {' | '.join(shown)} |")
    for side in sides:
        Path(side.probe).unlink(missing_ok=True)


if __name__ == "__main__":
    with own_database("stages"):
        if len(sys.argv) > 2:
            SHAPE.campaigns, SHAPE.per_campaign = map(int, sys.argv[2].split("x"))
        clicks = int(sys.argv[1]) if len(sys.argv) > 1 else 300
        # Each click takes 1 PG from the characters of one campaign, picked at random: they must not run out.
        if (clicks + WARM_UP) / SHAPE.campaigns > CONSTITUTION * 10 * 0.8:
            sys.exit(f"{clicks} clicks would leave the characters of {SHAPE.campaigns} campaign(s) without PG")
        main(clicks)
