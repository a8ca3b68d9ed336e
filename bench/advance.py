"""Advancing the clock one year through rules.actions (PostgreSQL, one transaction) vs the pure engine alone; then
the time skip's preview against the advance it previews.

Each character has 3 wounds and a serious illness, as in tests/rules/test_scale.py. The action's run is rolled back
after timing, so the runs are alike. Prints seconds and the ratio action / engine (the floor, measured in this run).

The preview (issue 22: at most 2× the advance): `engine.preview` against `engine.advance` on the same states, and
`queries.preview_advance` against `actions.advance_clock` (rolled back), for 60 such characters over 1000 years, one
character healing 250 wounds in a year, and a mixed party of 6 over 3 days and a year.

Run: make bench  (or DATABASE_URL=… .venv/bin/python bench/advance.py [sizes…]). It makes and drops its own
test database on the server it is given.
"""

import math
import os
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402

from bench.database import own_database  # noqa: E402
from campaigns.models import Campaign  # noqa: E402
from characters.models import Character  # noqa: E402
from rules import actions, engine, queries  # noqa: E402
from rules.actions.core import load  # noqa: E402
from rules.models import Disease, Illness, Wound  # noqa: E402

YEAR = 365 * engine.DAY
REPEATS = 3
ROUNDS = 5  # of the preview against the advance: short calls, many of them, on a shared machine


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


def one_character_healing(wounds: int) -> Campaign:
    """CON 30, `wounds` attack wounds of 1 PG: a day of rest heals one, each at its own second."""
    gm, _ = get_user_model().objects.get_or_create(username="bench-gm")
    campaign = Campaign.objects.create(name=f"Bench {wounds} wounds", gm=gm)
    character = Character.objects.create(campaign=campaign, name="Herida", constitution=30, pg=300 - wounds)
    Wound.objects.create(
        character=character, kind="attack", amount=1, remaining=1, inflicted_at=0, times=wounds, every=1
    )
    return campaign


# A party as a table has one: (CON, [(kind, PG, treated)], disease or ""), PG left as the wounds say.
PARTY: tuple[tuple[int, list[tuple[str, int, bool]], str], ...] = (
    (12, [("attack", 8, False), ("collision", 4, True)], ""),
    (9, [("fall", 6, False), ("drowning", 4, False)], ""),
    (14, [("gas", 5, False), ("attack", 3, False)], "Peste"),
    (10, [], ""),
    (8, [("attack", 2, True), ("exertion", 1, False)], ""),
    (11, [("attack", 15, False), ("collision", 6, False)], "Gripe"),
)


def party() -> Campaign:
    gm, _ = get_user_model().objects.get_or_create(username="bench-gm")
    campaign = Campaign.objects.create(name="Bench party", gm=gm)
    for n, (constitution, wounds, disease) in enumerate(PARTY):
        lost = sum(amount for _kind, amount, _treated in wounds)
        character = Character.objects.create(
            campaign=campaign, name=f"Aventurero {n}", constitution=constitution, pg=10 * constitution - lost
        )
        for kind, amount, treated in wounds:
            Wound.objects.create(
                character=character, kind=kind, amount=amount, remaining=amount, treated=treated, inflicted_at=0
            )
        if disease:
            sick = Disease.objects.get(name=disease)
            Illness.objects.create(
                character=character,
                disease=sick,
                category=sick.category,
                penalty=sick.penalty,
                pg_per_week=sick.pg_per_week or 0,
                since=0,
            )
    return campaign


def paired(preview: Callable[[], object], advance: Callable[[], object]) -> tuple[float, float]:
    """Seconds per call of each, the best of ROUNDS runs of as many calls as take 0.2 s, the two taking turns so that
    a busy moment of the (shared) machine falls on both alike."""
    timers = [timeit.Timer(preview), timeit.Timer(advance)]
    numbers = [timer.autorange()[0] for timer in timers]
    best = [math.inf, math.inf]
    for _ in range(ROUNDS):
        for n, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            best[n] = min(best[n], timer.timeit(number) / number)
    return best[0], best[1]


def preview_case(label: str, campaign: Campaign, seconds: int) -> None:
    with transaction.atomic():
        healths = [x.health for x in load(campaign, None)]

    def engine_preview() -> None:
        for health in healths:
            engine.preview(health, seconds)

    def engine_advance() -> None:
        for health in healths:
            engine.advance(health, seconds)

    def app_preview() -> None:
        queries.preview_advance(campaign.pk, seconds)

    def app_advance() -> None:
        with transaction.atomic():
            actions.advance_clock(campaign.pk, seconds, by=campaign.gm)
            transaction.set_rollback(True)

    engine_p, engine_a = paired(engine_preview, engine_advance)
    app_p, app_a = paired(app_preview, app_advance)
    figures = f"{engine_p * 1e3:>9.3f}  {engine_a * 1e3:>9.3f}  {engine_p / engine_a:>5.2f}"
    print(f"{label:<36}  {figures}  {app_p * 1e3:>9.1f}  {app_a * 1e3:>9.1f}  {app_p / app_a:>5.2f}")


def preview_against_advance() -> None:
    print(f"\nThe preview against the advance it previews (ms per call, best of {ROUNDS}; goal: ratio ≤ 2)")
    print("engine: engine.preview / engine.advance; app: queries.preview_advance / actions.advance_clock")
    print(f"{'':<36}  {' engine ':-^27}  {' app ':-^29}")
    print(f"{'case':<36}  {'preview':>9}  {'advance':>9}  {'ratio':>5}  {'preview':>9}  {'advance':>9}  {'ratio':>5}")
    preview_case("60 characters × 1000 years", crowd(60), 1000 * YEAR)
    preview_case("1 character, 250 wounds healed × 1 y", one_character_healing(250), YEAR)
    mixed = party()
    preview_case("party of 6 × 3 days", mixed, 3 * engine.DAY)
    preview_case("party of 6 × 1 year", mixed, YEAR)


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
    sizes = [int(arg) for arg in sys.argv[1:]] or [100, 500, 2000]
    with own_database("advance"):
        main(sizes)
        preview_against_advance()
