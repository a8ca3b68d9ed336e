"""What a process counts for Prometheus (`/metrics`, play.views.health.metrics), with prometheus-client.

Under several uvicorn workers each process writes its figures to files in PROMETHEUS_MULTIPROC_DIR (set by `make run`
and the Docker image; emptied when the server starts) and `/metrics`, whichever worker answers it, sums them all:
counters and histograms add up, the gauges of what is open now (streams, pooled connections) add up over the live
processes. Without that variable (the tests' servers, a lone process) a process serves its own figures.
"""

from __future__ import annotations

import atexit
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

# Seconds: a page or an action (most answer in 5–50 ms), and a change's trip to the last screen.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# About 1.5× apart where a change's trip falls (3 ms for a few screens, 20–35 ms for a thousand): a median read from
# them agrees with bench/live.py's own within a few percent (bench/RESULTS.md).
FANOUT_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.0075,
    0.01,
    0.015,
    0.02,
    0.03,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.35,
    0.5,
    1,
    2,
    5,
)

REQUESTS = Histogram(
    "twelveplus_request_seconds",
    "Requests by view and status, and how long each took",
    ["view", "status"],
    buckets=REQUEST_BUCKETS,
)
STREAMS = Gauge(
    "twelveplus_streams_open",
    "Live streams open, by screen (table, page, sheet, api)",
    ["screen"],
    multiprocess_mode="livesum",
)
CHANGES = Counter("twelveplus_changes_fanned_out", "Changes heard on the LISTEN connection and drawn for streams")
FANOUT = Histogram(
    "twelveplus_change_fanout_seconds",
    "From a change's NOTIFY heard to its message sent on the last stream",
    buckets=FANOUT_BUCKETS,
)
ACTIONS = Counter("twelveplus_actions", "Actions that logged an entry, by kind", ["kind"])
REFUSALS = Counter("twelveplus_refusals", "Actions refused in words (bad data, no right, a table that moved on)")
UNAVAILABLE = Counter("twelveplus_unavailable", "503 answers, by cause", ["cause"])
POOL = Gauge(
    "twelveplus_db_pool_connections",
    "The database pool: its connections, those in use, requests waiting",
    ["state"],
    multiprocess_mode="livesum",
)
TICKS = Counter("twelveplus_ticks", "Steps of time between sessions made by the task queue")


if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # A process that ends takes its gauges (what is open now) with it; one killed leaves them until the next start.
    atexit.register(multiprocess.mark_process_dead, os.getpid())


def exposition() -> tuple[bytes, str]:
    """Every process's figures (PROMETHEUS_MULTIPROC_DIR), or this one's, in Prometheus's text format."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def pool_seen(stats: dict[str, int]) -> None:
    """The pool as psycopg_pool's get_stats() found it, at the end of a request."""
    size = stats.get("pool_size", 0)
    POOL.labels("size").set(size)
    POOL.labels("in_use").set(size - stats.get("pool_available", 0))
    POOL.labels("waiting").set(stats.get("requests_waiting", 0))
