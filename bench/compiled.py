"""What config/compiled.py earns: the reads a quick damage makes on every click (its session, its account, the
campaign, the characters the form offers, the campaign's lock, the touched wounds, the log's latest page, the checks
pending), each through the ORM (the same queryset, built with the values and run) and compiled (config.compiled:
built and compiled once, a prepared statement), against a floor measured in the same run: one `SELECT 1` round trip
per read through Django's cursor. Medians over rounds of all eight; the compiled module's docstring quotes the figures.

Run: .venv/bin/python scripts/dev.py bench bench/compiled.py  (or DATABASE_URL=… .venv/bin/python bench/…).
It makes and drops its own test database.
"""

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.database import own_database  # noqa: E402
from campaigns.access import CAMPAIGN_SEEN  # noqa: E402
from config.compiled import Compiled  # noqa: E402
from config.signed_in import ACCOUNT, SESSION  # noqa: E402
from play.forms.base import IN_PLAY  # noqa: E402
from play.screens.snapshot import LATEST_HEADS, WOUNDS  # noqa: E402
from rules import actions  # noqa: E402
from rules.actions.core import LOCKED  # noqa: E402
from rules.actions.sheet import Sheet  # noqa: E402
from rules.damage import Attack  # noqa: E402
from rules.queries import PENDING  # noqa: E402

ROUNDS, WARM_UP = 300, 30
type Values = Callable[[dict[str, Any]], dict[str, Any]]


def hot_reads() -> list[tuple[str, Compiled[Any], Values]]:
    return [
        ("the session", SESSION, lambda w: {"key": w["key"], "now": timezone.now()}),
        ("the account", ACCOUNT, lambda w: {"pk": w["user"]}),
        ("the campaign, as its GM sees it", CAMPAIGN_SEEN, lambda w: {"user": w["user"], "campaign": w["campaign"]}),
        ("the characters in play", IN_PLAY, lambda w: {"campaign": w["campaign"]}),
        ("the campaign locked", LOCKED, lambda w: {"campaign": w["campaign"]}),
        ("the touched characters' wounds", WOUNDS, lambda w: {"characters": w["characters"][:1]}),
        ("the log's latest page", LATEST_HEADS, lambda w: {"campaign": w["campaign"]}),
        ("the checks pending", PENDING, lambda w: {"campaign": w["campaign"]}),
    ]


def table() -> dict[str, Any]:
    """A GM, a campaign of six characters with some wounds and a log, and the GM's session."""
    gm = get_user_model().objects.create_user("bench_gm", password="x")
    campaign = actions.create_campaign("Bench", gm)
    characters = [
        actions.add_character(campaign, Sheet(name=f"PJ {n}", constitution=12), by=gm).characters[0].pk
        for n in range(6)
    ]
    for _blow in range(10):
        actions.apply_damage(campaign.pk, characters[:2], Attack(amount=1), by=gm)
    session = SessionStore()
    session["_auth_user_id"] = str(gm.pk)
    session.create()
    return {"user": gm.pk, "campaign": campaign.pk, "characters": characters, "key": session.session_key}


def timed(run: Callable[[], Any]) -> list[float]:
    spent = []
    for _round in range(ROUNDS):
        start = time.perf_counter()
        with transaction.atomic():  # the lock is read in a transaction, as an action reads it
            run()
        spent.append(time.perf_counter() - start)
    return spent[WARM_UP:]


def main() -> None:
    world = table()
    reads = [(name, query, values(world)) for name, query, values in hot_reads()]

    def orm() -> None:
        for _name, query, values in reads:
            list(query.build(**values))

    def compiled() -> None:
        for _name, query, values in reads:
            query.list(**values)

    def floor() -> None:
        with connection.cursor() as cursor:
            for _read in reads:
                cursor.execute("SELECT 1")
                cursor.fetchall()

    results: dict[str, list[float]] = {}
    for _turn in range(3):  # taking turns: the machine's speed drifts
        for name, run in (("ORM", orm), ("compiled", compiled), ("floor", floor)):
            results.setdefault(name, []).extend(timed(run))
    medians = {name: statistics.median(values) * 1000 for name, values in results.items()}
    print(f"The {len(reads)} hot reads of a quick damage, one after another; median of {3 * (ROUNDS - WARM_UP)} rounds")
    for name, _query, _values in reads:
        print(f"  - {name}")
    print(f"  through the ORM:   {medians['ORM']:6.2f} ms  ({medians['ORM'] / medians['floor']:.1f}× the floor)")
    print(
        f"  compiled:          {medians['compiled']:6.2f} ms  ({medians['compiled'] / medians['floor']:.1f}× the floor)"
    )
    print(f"  floor (SELECT 1):  {medians['floor']:6.2f} ms")
    print(f"  the compiled reads take {medians['compiled'] / medians['ORM']:.2f} of the ORM's time")


if __name__ == "__main__":
    with own_database("compiled"):
        main()
