"""One timed run of bench/live.py (clicks on open screens, with the server's CPU and the bytes each client got) and
the rows they make: the app, the stack floor and the physical floor, each run the same way."""

import asyncio
import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import uvloop

from bench.crowd import Click, Sample, Screen, Server, Stats, close_screens, measure, stats

APP, STACK, RAW = "app", "stack floor", "physical floor"
SERVERS = (APP, STACK, RAW)


@dataclass
class Run:
    to_last: Stats
    round_trip: Stats
    cpu_ms: float  # the server's CPU per change (summed over its processes)
    bytes_per_client: float  # what each client of the changed campaign received per change


def run_of(samples: list[Sample], cpu: float, received: int, per_group: int) -> Run:
    return Run(
        stats([s.to_last for s in samples]),
        stats([s.round_trip for s in samples]),
        cpu * 1000 / len(samples),
        received / len(samples) / per_group,
    )


@dataclass
class Row:
    label: str
    runs: dict[str, list[Run]] = field(default_factory=lambda: {name: [] for name in SERVERS})
    connect_s: list[float] = field(default_factory=list)  # the app's clients opening, 100 at a time
    rss_mb: dict[str, float] = field(default_factory=dict)  # peak RSS per server (VmHWM)

    def median(self, server: str, pick: Callable[[Run], float]) -> float:
        return statistics.median(pick(run) for run in self.runs[server])

    def to_last(self, server: str) -> tuple[float, float]:
        return self.median(server, lambda r: r.to_last.p50), self.median(server, lambda r: r.to_last.p99)

    def round_trip(self, server: str) -> tuple[float, float]:
        return self.median(server, lambda r: r.round_trip.p50), self.median(server, lambda r: r.round_trip.p99)

    def cpu_ms(self, server: str) -> float:
        return self.median(server, lambda r: r.cpu_ms)

    def bytes_per_client(self, server: str) -> float:
        return self.median(server, lambda r: r.bytes_per_client)


async def timed_run(
    servers: list[Server],
    click: Click,
    clients: list[httpx.AsyncClient],
    screens: list[Screen],
    groups: list[list[Screen]],
    changes: int,
    seed: int,
) -> Run:
    """One run of `changes` clicks on open screens, with the servers' CPU and the bytes received over it; then the
    screens close."""
    try:
        await asyncio.sleep(0.5)
        cpu = sum(server.cpu_seconds() for server in servers)
        received = sum(screen.received for screen in screens)
        samples = await measure(click, groups, changes, seed)
        cpu = sum(server.cpu_seconds() for server in servers) - cpu
        return run_of(samples, cpu, sum(screen.received for screen in screens) - received, len(groups[0]))
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
        await close_screens(screens)


def grouped(screens: list[Screen], per_group: int) -> list[list[Screen]]:
    return [screens[at : at + per_group] for at in range(0, len(screens), per_group)]


def run_async[T](coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())
