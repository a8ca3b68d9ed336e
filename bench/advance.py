"""Advancing the clock one year through rules.actions (PostgreSQL, one transaction) vs the pure engine alone.

Each character has 3 wounds and a serious illness, as in tests/rules/test_scale.py. The action's run is rolled back
after timing, so the runs are alike. Prints seconds and the ratio action / engine (the floor, measured in this run).

Run: make bench  (or DATABASE_URL=… .venv/bin/python bench/advance.py [sizes…]). It makes and drops its own
test database on the server it is given.
"""

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from campaigns.models import Campaign  # noqa: E402
from characters.models import Character  # noqa: E402
from rules import actions, engine  # noqa: E402
from rules.actions.core import load  # noqa: E402
from rules.models import Disease, Illness, Wound  # noqa: E402

YEAR = 365 * engine.DAY
REPEATS = 3


def crowd(size: int) -> Campaign:
    gm, _ = get_user_model().objects.get_or_create(username="bench-gm")
    campaign = Campaign.objects.create(name=f"Bench {size}", gm=gm)
    characters = Character.objects.bulk_create(
        Character(campaign=campaign, name=f"Soldado {n}", constitution=10 + n % 10, pg=0) for n in range(size)
    )
    plague = Disease.objects.get(name="Peste")
    Wound.objects.bulk_create(
        Wound(character=c, kind=kind, amount=3, remaining=3, inflicted_at=0)
        for c in characters
        for kind in ("attack", "collision", "gas")
    )
    Illness.objects.bulk_create(
        Illness(character=c, disease=plague, category="serious", penalty=-2, pg_per_week=1, since=0) for c in characters
    )
    Character.objects.filter(campaign=campaign).update(pg=(django.db.models.F("constitution") * 10) - 9)
    return campaign


def best_of(function: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(sizes: list[int]) -> None:
    print(f"Advance one year, best of {REPEATS}; each character: 3 wounds + a serious illness")
    print(f"{'characters':>10}  {'action (s)':>10}  {'engine (s)':>10}  {'ratio':>6}")
    for size in sizes:
        campaign = crowd(size)
        with transaction.atomic():
            healths = [x.health for x in load(campaign, None)]

        def through_action(campaign: Campaign = campaign) -> None:
            with transaction.atomic():
                actions.advance_clock(campaign.pk, YEAR, by=campaign.gm)
                transaction.set_rollback(True)

        def engine_alone(healths: list[engine.Health] = healths) -> None:
            for health in healths:
                engine.advance(health, YEAR)

        action_time, engine_time = best_of(through_action), best_of(engine_alone)
        print(f"{size:>10}  {action_time:>10.3f}  {engine_time:>10.3f}  {action_time / engine_time:>6.1f}")


if __name__ == "__main__":
    # Its own database, so a test run on the same server does not get in the way.
    connection.settings_dict["TEST"]["NAME"] = f"bench_{connection.settings_dict['NAME']}"
    sizes = [int(arg) for arg in sys.argv[1:]] or [100, 500, 2000]
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        main(sizes)
    finally:
        connection.creation.destroy_test_db(test_db, verbosity=0)
