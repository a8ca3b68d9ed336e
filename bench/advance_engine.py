"""How long `rules.engine.advance` takes for a day, a year and a century, over many characters.

Advance jumps from one change to the next, so a long quiet stretch should cost about what a short one does; the
cost grows with what happens (PG recovered per wound, weekly illness losses), not with the seconds covered.

Run from the project root: python bench/advance_engine.py [characters]
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine import DAY, Health, Illness, Wound, advance, apply_wound, treat_wounds  # noqa: E402

YEAR = 365 * DAY


def characters(count: int) -> list[Health]:
    """A mix: untouched, lightly and heavily wounded, treated, ill with a serious disease."""
    states = []
    for n in range(count):
        health = Health(1 + n % 30, now=n * 37)
        for kind, amount in (("attack", n % 11), ("collision", n % 7), ("drowning", n % 5), ("gas", n % 3)):
            health = apply_wound(health, Wound(kind, min(amount, health.pg - 1)))
        if n % 4 == 0:
            health = treat_wounds(health)
        if n % 5 == 0:
            illness = Illness("serious", -2, 1 + n % 2, name="Peste", since=health.now)
            health = Health(
                health.constitution,
                health.wounds,
                (illness,),
                now=health.now,
                progress=health.progress,
            )
        states.append(health)
    return states


def timed(states: list[Health], seconds: int, resting: bool) -> float:
    start = time.perf_counter()
    for health in states:
        advance(health, seconds, resting)
    return time.perf_counter() - start


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    states = characters(count)
    quiet = [Health(h.constitution, now=h.now) for h in states]
    print(f"{count} characters")
    for label, group in (("mixed", states), ("unhurt", quiet)):
        for resting in (True, False):
            figures = ", ".join(
                f"{name} {timed(group, seconds, resting) * 1000:8.1f} ms"
                for name, seconds in (("1 day", DAY), ("1 year", YEAR), ("100 years", 100 * YEAR))
            )
            print(f"  {label:6} resting={resting!s:5}: {figures}")


if __name__ == "__main__":
    main()
