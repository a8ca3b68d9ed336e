"""One timed run of bench/live.py (clicks on open screens, with the server's CPU and the bytes each client got) and
the rows they make: the app, the stack floor and the physical floor, each run the same way."""

import asyncio
import statistics
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import uvloop

from bench.clicks import Click, Sample, Stats, stats, taking_turns
from bench.crowd import Screen, Server, close_screens
from bench.scraped import Scraped

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
    scraped: Scraped = field(default_factory=Scraped)  # the app's /metrics around its runs (bench/scraped.py)

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


@dataclass
class Part:
    """One server's side of a timed run: its processes, its GM's clicks and the screens of each group."""

    servers: list[Server]
    click: Click
    clients: list[httpx.AsyncClient]
    screens: list[Screen]
    groups: list[list[Screen]]


async def timed_runs(parts: list[Part], changes: int, seed: int) -> list[Run]:
    """One run of `changes` clicks for each part on its open screens, the parts taking turns click by click
    (crowd.taking_turns), with each part's CPU and the bytes its screens received over it; then the screens close."""
    try:
        await asyncio.sleep(0.5)
        cpu = [sum(server.cpu_seconds() for server in part.servers) for part in parts]
        received = [sum(screen.received for screen in part.screens) for part in parts]
        samples = await taking_turns([(part.click, part.groups) for part in parts], changes, seed)
        return [
            run_of(
                samples[index],
                sum(server.cpu_seconds() for server in part.servers) - cpu[index],
                sum(screen.received for screen in part.screens) - received[index],
                len(part.groups[0]),
            )
            for index, part in enumerate(parts)
        ]
    finally:
        await asyncio.gather(*(client.aclose() for part in parts for client in part.clients))
        await close_screens([screen for part in parts for screen in part.screens])


def grouped(screens: list[Screen], per_group: int) -> list[list[Screen]]:
    return [screens[at : at + per_group] for at in range(0, len(screens), per_group)]


def run_async[T](coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())
