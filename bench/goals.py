"""The goals table of issue 22, printed at the end of bench/live.py: each goal held or not against the stack floor
(bench/stack_floor.py) measured in the same run; what a run did not measure says so."""

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from bench.clicks import Stats
from bench.runs import APP, STACK, Row, Run
from bench.scraped import AGREEMENT, COST_SHARE, SCRAPE_INTERVAL
from bench.storm import Storm
from campaigns.models import Campaign
from rules import actions, queries

STORM_SECONDS = 3.0
PAGE_P99_MS = 1000.0
RSS_MB = 300.0


@dataclass
class Spread:
    """CPU per change summed over several app processes, a campaign's screens all on one of them or spread over all,
    and one process alone with all of them, the three taking turns in each run (bench/live.py)."""

    processes: int
    clients: int
    routed: list[Run]
    spread: list[Run]
    one: list[Run]


@dataclass
class Goal:
    measure: str
    app: str
    floor: str  # the stack floor's figure (or what the goal compares with)
    ratio: str
    goal: str
    held: bool | None  # None: not measured in this run
    why: str = ""  # what was not measured, and why

    def line(self) -> str:
        verdict = "held" if self.held else "**not held**"
        if self.held is None:
            verdict = "not measured"
        if self.why:
            verdict += f" ({self.why})"
        return f"| {self.measure} | {self.app} | {self.floor} | {self.ratio} | {self.goal} | {verdict} |"


def pair(values: tuple[float, float], unit: str = "") -> str:
    return f"{values[0]:.1f} / {values[1]:.1f}{unit}"


def against_stack(measure: str, row: Row, pick: Callable[[Row, str], tuple[float, float]]) -> Goal:
    app, stack = pick(row, APP), pick(row, STACK)
    ratios = (app[0] / stack[0], app[1] / stack[1])
    return Goal(measure, pair(app), pair(stack), pair(ratios, "×"), "≤ 2× (p50 and p99)", max(ratios) <= 2)


def live_goals(rows: list[Row]) -> list[Goal]:
    goals = [against_stack(f"click → last screen (ms), {row.label}", row, Row.to_last) for row in rows]
    goals += [against_stack(f"the GM's round trip (ms), {row.label}", row, Row.round_trip) for row in rows]
    cpu_row = next((row for row in rows if row.label == "10"), None)
    if cpu_row is None:
        goals.append(Goal("CPU per change, 10 clients", "", "", "", "≤ 3×", None, "no 10-client row"))
    else:
        app, stack = cpu_row.cpu_ms(APP), cpu_row.cpu_ms(STACK)
        goals.append(
            Goal(
                "CPU per change (ms), 10 clients",
                f"{app:.1f}",
                f"{stack:.1f}",
                f"{app / stack:.1f}×",
                "≤ 3×",
                app / stack <= 3,
            )
        )
    return goals


def storm_goal(storm: Storm | None, wanted: int) -> Goal:
    goal = f"≤ {STORM_SECONDS:.0f} s; no 5xx; page p99 < {PAGE_P99_MS / 1000:.0f} s"
    if storm is None:
        return Goal(f"reconnect storm, {wanted} clients", "", "", "", goal, None, "section skipped")
    figures = (
        f"all in {storm.storm_s:.1f} s; {storm.errors_5xx} 5xx; another user's page p99 {storm.page_storm.p99:.0f} ms"
    )
    held = storm.storm_s <= STORM_SECONDS and storm.errors_5xx == 0 and storm.page_storm.p99 < PAGE_P99_MS
    label = f"reconnect storm, {storm.clients} clients at once"
    why = f"at {storm.clients} clients, not {wanted}: --quick" if storm.clients < wanted else ""
    return Goal(label, figures, "—", "—", goal, held, why)


type Previews = (
    list[tuple[str, float, float]] | str
)  # (what was previewed, the preview's s, the advance's s), or why not
PREVIEW_CASES = ("60 characters × 1000 years", "one character, 250 healed wounds × 1 year")


def measure_previews() -> Previews:
    """The time-skip preview against the advance it previews, by bench/advance.py's functions. The hook: when that
    module offers `preview_cases() -> list[tuple[str, float, float]]`, its figures are taken as they are; else, when
    it has the pieces (`crowd`, `one_character_healing`, `paired`), the issue's two cases are timed with them here:
    `rules.queries.preview_advance` against `rules.actions.advance_clock` (rolled back), seconds per call."""
    advance = importlib.import_module("bench.advance")
    if hasattr(advance, "preview_cases"):
        cases: list[tuple[str, float, float]] = advance.preview_cases()
        return cases
    if not all(hasattr(advance, name) for name in ("crowd", "one_character_healing", "paired", "YEAR")):
        return "bench/advance.py measures it; it offers no preview_cases() yet"
    figures = []
    made = [(advance.crowd(60), 1000 * advance.YEAR), (advance.one_character_healing(250), advance.YEAR)]
    for label, (campaign, seconds) in zip(PREVIEW_CASES, made, strict=True):

        def preview(campaign: Campaign = campaign, seconds: int = seconds) -> None:
            queries.preview_advance(campaign.pk, seconds)

        def advance_clock(campaign: Campaign = campaign, seconds: int = seconds) -> None:
            with transaction.atomic():
                actions.advance_clock(campaign.pk, seconds, by=campaign.gm)
                transaction.set_rollback(True)

        preview_s, advance_s = advance.paired(preview, advance_clock)
        figures.append((label, preview_s, advance_s))
    return figures


def print_previews(previews: Previews) -> None:
    if isinstance(previews, str):
        return
    print("\nThe time-skip preview against the advance it previews (bench/advance.py's cases and timer; ms per call)\n")
    print("| case | preview (ms) | advance (ms) | preview / advance |")
    print("| --- | ---: | ---: | ---: |")
    for label, preview_s, advance_s in previews:
        print(f"| {label} | {preview_s * 1e3:.1f} | {advance_s * 1e3:.1f} | {preview_s / advance_s:.2f} |", flush=True)


def preview_goals(previews: Previews) -> list[Goal]:
    if isinstance(previews, str):
        return [
            Goal(f"time-skip preview, {name}", "", "", "", "≤ 2× the advance", None, previews) for name in PREVIEW_CASES
        ]
    goals = []
    for name, preview_s, advance_s in previews:
        ratio = preview_s / advance_s
        preview, reference = f"{preview_s * 1e3:.1f}", f"the advance: {advance_s * 1e3:.1f}"
        goals.append(Goal(f"time-skip preview (ms), {name}", preview, reference, f"{ratio:.1f}×", "≤ 2×", ratio <= 2))
    return goals


def table_get_goal(gets: list[tuple[str, Stats, int]] | None) -> Goal:
    measure, goal = "the table GET at 40 characters (ms)", "≤ 2× the minimal view (p50 and p99)"
    if gets is None:
        return Goal(measure, "", "", "", goal, None, "section skipped")
    table = next(s for label, s, _n in gets if label == "table, 40 characters")  # a GET with nothing changed since
    minimal = gets[-1][1]
    ratios = (table.p50 / minimal.p50, table.p99 / minimal.p99)
    minimal_figures = f"minimal view: {pair((minimal.p50, minimal.p99))}"
    return Goal(measure, pair((table.p50, table.p99)), minimal_figures, pair(ratios, "×"), goal, max(ratios) <= 2)


def rss_goal(rows: list[Row]) -> Goal:
    row = next((row for row in rows if row.label == "1000"), None)
    measure, goal = "1000 clients, app peak RSS", f"< {RSS_MB:.0f} MB"
    if row is None:
        return Goal(measure, "", "", "", goal, None, "no 1000-client row")
    rss = row.rss_mb[APP]
    return Goal(measure, f"{rss:.0f} MB", f"{row.rss_mb[STACK]:.0f} MB", "—", goal, rss < RSS_MB)


def spread_goal(spread: Spread | None) -> Goal:
    goal = "routed ≤ 1.2× one process's"
    if spread is None:
        return Goal("several processes, CPU per change summed", "", "", "", goal, None, "section skipped")

    def middle(runs: list[Run]) -> float:
        return sorted(run.cpu_ms for run in runs)[len(runs) // 2]

    routed, one = middle(spread.routed), middle(spread.one)
    measure = f"{spread.processes} processes, {spread.clients} clients: CPU per change summed (ms), routed · spread"
    figures = f"{routed:.1f} · {middle(spread.spread):.1f}"
    return Goal(measure, figures, f"one process: {one:.1f}", f"{routed / one:.1f}×", goal, routed / one <= 1.2)


def metrics_goals(rows: list[Row]) -> list[Goal]:
    """Issue 54: the app's NOTIFY → last-send histogram against the bench's own figure (p50) in each row, and what
    scraping every SCRAPE_INTERVAL costs in the row where it costs most (bench/scraped.py says how each is measured)."""
    goals = []
    for row in rows:
        scraped = row.scraped
        if scraped.buckets is None or not scraped.own:
            continue
        ratio = scraped.agreement()
        figures = f"{scraped.metrics(0.5) * 1e3:.1f} (p90 {scraped.metrics(0.9) * 1e3:.1f})"
        bench = f"the bench: {scraped.bench(0.5) * 1e3:.1f} (p90 {scraped.bench(0.9) * 1e3:.1f})"
        measure = f"/metrics NOTIFY → last send p50 (ms), {row.label}"
        goals.append(
            Goal(measure, figures, bench, f"{ratio:.2f}×", f"within {AGREEMENT:.0%}", abs(ratio - 1) <= AGREEMENT)
        )
    measure, goal = f"scraping /metrics every {SCRAPE_INTERVAL:.0f} s: share of the app process", f"< {COST_SHARE:.0%}"
    scraped_rows = [row for row in rows if row.scraped.scrape_cpu]
    if not goals or not scraped_rows:
        return [
            Goal(
                "/metrics NOTIFY → last send against the bench", "", "", "", f"within {AGREEMENT:.0%}", None, "no row"
            ),
            Goal(measure, "", "", "", goal, None, "no row"),
        ]
    row = max(scraped_rows, key=lambda row: row.scraped.cost_share())
    share = row.scraped.cost_share()
    cpu = share * SCRAPE_INTERVAL * 1e3
    figures = f"{cpu:.1f} ms CPU a scrape ({row.label})"
    click = f"a click: {row.cpu_ms(APP):.1f} ms CPU, {row.round_trip(APP)[0]:.1f} ms round trip"
    goals.append(Goal(measure, figures, click, f"{share:.3%}", goal, share < COST_SHARE))
    return goals


def print_goals(
    rows: list[Row],
    storm: Storm | None,
    storm_clients: int,
    gets: list[tuple[str, Stats, int]] | None,
    spread: Spread | None,
    previews: Previews,
) -> None:
    goals = [
        *live_goals(rows),
        storm_goal(storm, storm_clients),
        *preview_goals(previews),
        table_get_goal(gets),
        rss_goal(rows),
        spread_goal(spread),
        *metrics_goals(rows),
    ]
    print(
        "\nGoals (issues 22 and 54): the app against the stack floor of the same run (p50 / p99 where two), and its "
        "/metrics against the bench\n"
    )
    print("| measure | app | stack floor (or the reference) | ratio | goal | held? |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for goal in goals:
        print(goal.line())
    held = sum(goal.held is True for goal in goals)
    measured = sum(goal.held is not None for goal in goals)
    print(f"\n{held} of {measured} measured goals held.", flush=True)
