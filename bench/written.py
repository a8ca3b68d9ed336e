"""What config/written.py earns: a quick damage's writes — its wounds and characters, the campaign's version, its
event and its notification (rules.actions.core.log) — sent in one round trip (`in_one_trip`, each a prepared
statement), against the same statements sent one round trip each (each prepared too), and a floor measured in the same
run: one `SELECT 1` round trip. Each round in its own transaction, rolled back (no notification leaves). Medians over
rounds; config/written.py's docstring quotes the figures.

Run: .venv/bin/python scripts/dev.py bench bench/written.py  (or DATABASE_URL=… .venv/bin/python bench/…).
It makes and drops its own test database.
"""

import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from bench.database import own_database  # noqa: E402
from config import written  # noqa: E402
from rules import actions  # noqa: E402
from rules.actions import core  # noqa: E402
from rules.actions.sheet import Sheet  # noqa: E402
from rules.damage import Attack  # noqa: E402

ROUNDS, WARM_UP = 300, 30
type Statements = Sequence[tuple[str, Sequence[Any]]]


def a_blows_statements() -> Statements:
    """The statements a quick damage to one character of six sends, as the action made them."""
    gm = get_user_model().objects.create_user("bench_gm", password="x")
    campaign = actions.create_campaign("Bench", gm)
    characters = [
        actions.add_character(campaign, Sheet(name=f"PJ {n}", constitution=12), by=gm).characters[0].pk
        for n in range(6)
    ]
    caught: list[Statements] = []
    real = core.in_one_trip

    def catching(statements: Statements) -> list[tuple[Any, ...]]:
        caught.append(list(statements))
        return real(statements)

    core.in_one_trip = catching
    try:
        actions.apply_damage(campaign.pk, characters[:1], Attack(amount=1), by=gm)
    finally:
        core.in_one_trip = real
    return caught[-1]


def timed(run: Callable[[], Any]) -> list[float]:
    spent = []
    for _round in range(ROUNDS):
        start = time.perf_counter()
        with transaction.atomic():
            run()
            transaction.set_rollback(True)
        spent.append(time.perf_counter() - start)
    return spent[WARM_UP:]


def main() -> None:
    statements = a_blows_statements()

    def one_trip() -> None:
        written.in_one_trip(statements)

    def one_each() -> None:
        for statement in statements:
            written.in_one_trip([statement])

    def floor() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchall()

    results: dict[str, list[float]] = {}
    for _turn in range(3):  # taking turns: the machine's speed drifts
        for name, run in (("one trip", one_trip), ("one each", one_each), ("floor", floor)):
            results.setdefault(name, []).extend(timed(run))
    medians = {name: statistics.median(values) * 1000 for name, values in results.items()}
    rounds = 3 * (ROUNDS - WARM_UP)
    print(f"A quick damage's {len(statements)} writes, each round a transaction rolled back; median of {rounds}")
    for sql, _params in statements:
        print(f"  - {sql.split('(')[0][:70]}")
    for name, label in (("one trip", "in one round trip"), ("one each", "one round trip each")):
        print(f"  {label + ':':28}{medians[name]:6.2f} ms  ({medians[name] / medians['floor']:.1f}× the floor)")
    print(f"  floor (BEGIN, SELECT 1, ROLLBACK): {medians['floor']:6.2f} ms")
    print(f"  one trip saves {medians['one each'] - medians['one trip']:.2f} ms a blow")


if __name__ == "__main__":
    with own_database("written"):
        main()
