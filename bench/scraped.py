"""Issue 54's check of /metrics in bench/live.py: the app's own NOTIFY → last-send histogram against the bench's own
figure for the same changes, and what scraping costs.

Every Django server of bench/live.py runs as in production with PROMETHEUS_MULTIPROC_DIR (a fresh temporary folder
each, bench/crowd.py `start_app`); the bench's client is 127.0.0.1, which METRICS_ALLOWED lets in. For each timed
run of a row (bench/runs.py `timed_runs`), with the row's screens open:

- **The app's figure**, `twelveplus_change_fanout_seconds` (config.metrics): per change, from the moment the server's
  LISTEN connection handed its NOTIFY to `Hub.changed` to the moment the last of the process's SSE streams had sent the
  change's message (`Hub.sent`, once uvicorn took the bytes). /metrics is scraped just before the run and just after:
  the run's changes are the buckets' deltas, their p50 and p90 interpolated within the buckets as Prometheus's
  `histogram_quantile` does (`Buckets.quantile`); the mean (`_sum` ÷ `_count`) is exact.
- **The bench's own figure, NOTIFY → last screen**: the bench LISTENs on the app's channel (rules.notify.CHANNEL) on a
  connection of its own, in its own event loop, and notes when each change's notification arrives. PostgreSQL hands a
  notification to every listener at the commit, the bench's and the server's alike; the bench cannot see the server's
  moment, but its own is the same one but for scheduling. The end: the moment the campaign's last SSE client had the
  change's message whole (bench/crowd.py `Screen.seen`). Matched to the GM's click by the campaign and the time (the
  first notification of its campaign after the click began: clicks wait for their last screen, one at a time).
  So the bench's figure holds the metric's and, besides it, the last message's way through the socket into the bench's
  client, and any lag of the server's loop before it took the notification: it is expected a little above the metric.
  The bench's figures through the metric's own buckets are printed too: what the buckets' coarseness alone makes of it.
- **What scraping costs**: SCRAPES scrapes of /metrics one after another (keep-alive, as Prometheus scrapes), before
  the run: their wall time as the client sees it and the server process's CPU time over them (/proc, ÷ SCRAPES).
  Prometheus scrapes each host every SCRAPE_INTERVAL (deploy/prometheus.yml). **The cost**: one scrape's CPU ÷
  SCRAPE_INTERVAL, the share of the process's time scraping takes; a process busy with clicks serves each click that
  much later (it is also one scrape's CPU ÷ (a click's CPU × the clicks such a process serves in SCRAPE_INTERVAL)).
  The goal: under 1 % of a click's time. A click that happens to meet a scrape waits at most the scrape's wall time;
  one in SCRAPE_INTERVAL ÷ that wall time does.
"""

import asyncio
import bisect
import math
import statistics
import time
from dataclasses import dataclass, field

import httpx
import psycopg
from prometheus_client.parser import text_string_to_metric_families

from bench.clicks import Click
from bench.crowd import Screen, Server, Table
from config.metrics import FANOUT_BUCKETS
from rules import notify

FANOUT = "twelveplus_change_fanout_seconds"
SCRAPES = 50  # timed scrapes per run
SCRAPE_INTERVAL = 15.0  # s, deploy/prometheus.yml
AGREEMENT = 0.20  # |metrics ÷ bench − 1| at most (p50)
COST_SHARE = 0.01  # of a click's time


@dataclass(frozen=True)
class Buckets:
    """A histogram as Prometheus exposes it: cumulative counts by upper bound (+Inf last), the sum and the count."""

    bounds: tuple[float, ...]
    counts: tuple[float, ...]
    total: float = 0.0
    count: float = 0.0

    def __sub__(self, other: "Buckets") -> "Buckets":
        assert self.bounds == other.bounds, "the same buckets"
        counts = tuple(a - b for a, b in zip(self.counts, other.counts, strict=True))
        return Buckets(self.bounds, counts, self.total - other.total, self.count - other.count)

    def __add__(self, other: "Buckets") -> "Buckets":
        assert self.bounds == other.bounds, "the same buckets"
        counts = tuple(a + b for a, b in zip(self.counts, other.counts, strict=True))
        return Buckets(self.bounds, counts, self.total + other.total, self.count + other.count)

    def quantile(self, q: float) -> float:
        """As PromQL's histogram_quantile: the bucket where the rank falls, linearly within it (from 0 for the first);
        in the +Inf bucket, the highest finite bound. NaN without observations."""
        observations = self.counts[-1] if self.counts else 0.0
        if observations <= 0:
            return math.nan
        rank = q * observations
        b = next(i for i, count in enumerate(self.counts) if count >= rank)
        if b == len(self.bounds) - 1:
            return self.bounds[-2]
        start, end, count = 0.0, self.bounds[b], self.counts[b]
        if b > 0:
            start = self.bounds[b - 1]
            count -= self.counts[b - 1]
            rank -= self.counts[b - 1]
        return start + (end - start) * (rank / count) if count else end

    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan


def histogram(text: str, name: str = FANOUT) -> Buckets:
    """The named histogram in an exposition (unlabelled, as the fan-out's is)."""
    for family in text_string_to_metric_families(text):
        if family.name != name:
            continue
        buckets = sorted((float(s.labels["le"]), s.value) for s in family.samples if s.name == name + "_bucket")
        total = next(s.value for s in family.samples if s.name == name + "_sum")
        count = next(s.value for s in family.samples if s.name == name + "_count")
        return Buckets(tuple(b for b, _ in buckets), tuple(c for _, c in buckets), total, count)
    raise LookupError(f"{name} is not in the exposition")


def bucketed(values: list[float], bounds: tuple[float, ...]) -> Buckets:
    """Observations (s) as the same histogram would have counted them."""
    ordered = sorted(values)
    counts = tuple(float(bisect.bisect_right(ordered, bound)) for bound in bounds)
    return Buckets(bounds, counts, sum(values), float(len(values)))


@dataclass
class Scraped:
    """A row's figures, over its runs: the metric's buckets (deltas, summed), the bench's own NOTIFY → last screen per
    change, and the scrapes timed."""

    buckets: Buckets | None = None
    own: list[float] = field(default_factory=list)  # s, per change
    clicks: int = 0  # the app's changes timed
    unmatched: int = 0  # of them, those whose notification the bench did not hear
    scrape_cpu: list[float] = field(default_factory=list)  # s of the server's CPU per scrape, per run
    scrape_wall: list[float] = field(default_factory=list)  # s, every scrape timed
    scrape_bytes: int = 0

    def metrics(self, q: float) -> float:
        return self.buckets.quantile(q) if self.buckets is not None else math.nan

    def bench(self, q: float) -> float:
        return statistics.quantiles(self.own, n=100, method="inclusive")[round(q * 100) - 1] if self.own else math.nan

    def agreement(self) -> float:
        """The metric's p50 ÷ the bench's."""
        return self.metrics(0.5) / self.bench(0.5)

    def cost_share(self) -> float:
        """One scrape's CPU ÷ SCRAPE_INTERVAL (the median of the runs')."""
        return statistics.median(self.scrape_cpu) / SCRAPE_INTERVAL if self.scrape_cpu else math.nan


class Notices:
    """The bench's own LISTEN on the app's channel: when each change's notification arrived here, by campaign."""

    def __init__(self) -> None:
        self.heard: dict[int, list[float]] = {}
        self.connection: psycopg.AsyncConnection | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self, dsn: str) -> None:
        self.connection = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
        await self.connection.execute(f"LISTEN {notify.CHANNEL}")
        self.task = asyncio.create_task(self.listen(self.connection))

    async def listen(self, connection: psycopg.AsyncConnection) -> None:
        async for notice in connection.notifies():
            when = time.perf_counter()
            change = notify.Change.parse(notice.payload)
            if change is not None and change.event is not None:
                self.heard.setdefault(change.campaign_id, []).append(when)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        if self.connection is not None:
            await self.connection.close()
        self.task = self.connection = None

    def first_after(self, campaign_id: int, t0: float) -> float | None:
        """The first notification of the campaign heard after t0, taken (each belongs to one click)."""
        heard = self.heard.get(campaign_id, [])
        at = bisect.bisect_left(heard, t0)
        return heard.pop(at) if at < len(heard) else None


class Scraping:
    """One timed run of the app, watched: its clicks noted, /metrics scraped before and after, the bench listening."""

    def __init__(self, server: Server, tables: list[Table], dsn: str) -> None:
        self.server, self.tables, self.dsn = server, tables, dsn
        self.notices = Notices()
        self.clicks: list[tuple[int, int, float]] = []  # group, marker, t0
        self.recording = False
        self.before_buckets: Buckets | None = None
        self.client = httpx.AsyncClient(base_url=server.base, timeout=60)

    def watched(self, clicker: tuple[Click, list[httpx.AsyncClient]]) -> tuple[Click, list[httpx.AsyncClient]]:
        click, clients = clicker

        async def noted(group: int) -> int:
            t0 = time.perf_counter()
            marker = await click(group)
            if self.recording:
                self.clicks.append((group, marker, t0))
            return marker

        return noted, clients

    async def scrape(self) -> str:
        response = await self.client.get("/metrics")
        response.raise_for_status()
        return response.text

    async def before(self, into: Scraped) -> None:
        """The scrapes timed, then the histogram as it stands, the listener open: the run may begin."""
        await self.scrape()
        cpu = self.server.cpu_seconds()
        for _ in range(SCRAPES):
            started = time.perf_counter()
            text = await self.scrape()
            into.scrape_wall.append(time.perf_counter() - started)
        into.scrape_cpu.append((self.server.cpu_seconds() - cpu) / SCRAPES)
        into.scrape_bytes = len(text.encode())
        await self.notices.open(self.dsn)
        self.before_buckets = histogram(await self.scrape())
        self.recording = True

    async def after(self, groups: list[list[Screen]], into: Scraped) -> None:
        """After the run (its screens had every change): the histogram's deltas, and the bench's own figures."""
        self.recording = False
        assert self.before_buckets is not None, "scraped before the run"
        delta = histogram(await self.scrape()) - self.before_buckets
        await self.notices.close()
        into.buckets = delta if into.buckets is None else into.buckets + delta
        into.clicks += len(self.clicks)
        for group, marker, t0 in self.clicks:
            heard = self.notices.first_after(self.tables[group].campaign.pk, t0)
            if heard is None:
                into.unmatched += 1
                continue
            into.own.append(max(screen.seen[marker] for screen in groups[group]) - heard)

    async def close(self) -> None:
        await self.notices.close()
        await self.client.aclose()


SCRAPED_HEADER = (
    "| clients | /metrics NOTIFY → last send: p50 · p90 · mean | bench NOTIFY → last screen: p50 · p90 · mean "
    "| the bench through the same buckets: p50 · p90 | /metrics ÷ bench: p50 · mean "
    "| changes: observed · timed · unheard "
    "| one scrape: wall p50 · server CPU (ms) · kB | scraping every 15 s: share of the process |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def scraped_line(label: str, scraped: Scraped) -> str:
    same = bucketed(scraped.own, scraped.buckets.bounds if scraped.buckets else (*FANOUT_BUCKETS, math.inf))
    mean = scraped.buckets.mean() if scraped.buckets else math.nan
    observed = f"{scraped.buckets.count:.0f}" if scraped.buckets else "—"
    bench_mean = statistics.fmean(scraped.own) if scraped.own else math.nan
    wall = statistics.median(scraped.scrape_wall) if scraped.scrape_wall else math.nan
    cpu = statistics.median(scraped.scrape_cpu) if scraped.scrape_cpu else math.nan
    return (
        f"| {label} | {ms(scraped.metrics(0.5))} · {ms(scraped.metrics(0.9))} · {ms(mean)} "
        f"| {ms(scraped.bench(0.5))} · {ms(scraped.bench(0.9))} · {ms(bench_mean)} "
        f"| {ms(same.quantile(0.5))} · {ms(same.quantile(0.9))} "
        f"| **{scraped.agreement():.2f}×** · {mean / bench_mean:.2f}× "
        f"| {observed} · {scraped.clicks} · {scraped.unmatched} | {ms(wall)} · {ms(cpu)} · "
        f"{scraped.scrape_bytes / 1024:.1f} | {scraped.cost_share() * 100:.3f} % |"
    )


def print_scraped(rows: list[tuple[str, Scraped]]) -> None:
    print(
        "\n/metrics scraped around each run (issue 54), ms: the app's histogram of NOTIFY heard → last stream's send "
        "(its deltas over the run, p50 and p90 interpolated within its buckets as histogram_quantile does; the mean "
        "exact), against the bench's own NOTIFY heard by its own LISTEN → the change whole at the last SSE client, "
        f"for the same changes. One scrape: {SCRAPES} timed per run, one after another; the share: one scrape's server "
        f"CPU ÷ {SCRAPE_INTERVAL:.0f} s (Prometheus's interval)\n"
    )
    print(SCRAPED_HEADER)
    for label, scraped in rows:
        print(scraped_line(label, scraped))
