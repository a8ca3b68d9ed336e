"""Where one change's CPU goes, in one process: the GM's POST (Django's test client, in-process: no socket, no
uvicorn) with its queries, the action alone, and the live renders of the change for the three audiences of
bench/live.py (the GM, two players), split by the parts of play.live.streams that take the time.

Run: .venv/bin/python scripts/dev.py bench bench/change_cost.py  (or DATABASE_URL=… .venv/bin/python bench/…).
Prints medians over 50 changes after 10 to warm up. It makes and drops its own test database.
"""

import os
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from bench.database import own_database  # noqa: E402
from campaigns import access  # noqa: E402
from campaigns.models import Campaign, Membership  # noqa: E402
from characters.models import Character  # noqa: E402
from play.screens import answers, drawing, regions, snapshot, streamed  # noqa: E402
from play.screens import log as screen_log  # noqa: E402
from rules import actions  # noqa: E402
from rules.damage import Attack  # noqa: E402
from rules.notify import Change  # noqa: E402

CHANGES, WARM_UP = 60, 10
PARTS: dict[Any, list[str]] = {
    snapshot.Snapshot: ["read_ahead"],  # the rows every view draws from, in one round trip
    drawing: ["fragment"],  # the regions' templates, as the drawing draws them
    regions: ["timeline_for"],  # a sheet's chart
    screen_log: ["entry_for", "fragment"],  # the log's entries, worded and drawn
}


# Set while the live drawings run: the POST's answer draws with the same parts, and is timed as a whole.
DRAWING = [False]


def timed_parts() -> dict[str, list[float]]:
    """Wrap the parts of a live render so that each records its time per change (the live drawings only)."""
    spent: dict[str, list[float]] = defaultdict(list)
    for owner, names in PARTS.items():
        for name in names:
            real = getattr(owner, name)
            label = f"{owner.__name__.rsplit('.', 1)[-1]}.{name}"

            def wrapper(*args: Any, _real: Callable[..., Any] = real, _label: str = label, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return _real(*args, **kwargs)
                finally:
                    if DRAWING[0]:
                        spent[_label][-1] += time.perf_counter() - start

            setattr(owner, name, wrapper)
            spent[label] = []
    return spent


def main() -> None:
    users = get_user_model().objects
    gm, one, two = (users.create_user(name, password="x") for name in ("gm", "ana", "bruno"))
    campaign = Campaign.objects.create(name="Bench", gm=gm)
    for player in (one, two):
        Membership.objects.create(campaign=campaign, user=player)
    a = Character.objects.create(campaign=campaign, player=one, name="Aldara", constitution=30)
    b = Character.objects.create(campaign=campaign, player=two, name="Borin", constitution=30)
    Character.objects.create(campaign=campaign, name="Tomás", constitution=30)  # an NPC, seen by the GM only
    client = Client(HTTP_HX_REQUEST="true", HTTP_HOST="localhost")
    client.force_login(gm)
    url = f"/campaigns/{campaign.pk}/act/damage/"
    drawn = client.get(url + "?slot=party").content
    choices = re.search(rb'name="choices" value="([^"]*)"', drawn).group(1).decode()  # type: ignore[union-attr]
    form = {"slot": "party", "kind": "attack", "amount": "1", "characters": [a.pk, b.pk], "choices": choices}
    # The screens of bench/live.py: the GM's table and each player's page.
    views = [
        answers.Seen(drawing.view_of(access.audience_of(user, campaign)), "http://localhost", "es")
        for user in (gm, one, two)
    ]
    spent = timed_parts()
    post, action, renders, queries = [], [], [], []
    for _ in range(CHANGES):
        start = time.perf_counter()
        with CaptureQueriesContext(connection) as captured:
            client.post(url, form)
        post.append(time.perf_counter() - start)
        queries.append(len(captured))
        for label in spent:
            spent[label].append(0.0)
        start = time.perf_counter()
        DRAWING[0] = True
        streamed.draw_change(Change(campaign.pk, None, campaign.events.latest("id").pk), set(views))
        DRAWING[0] = False
        renders.append(time.perf_counter() - start)
        start = time.perf_counter()
        actions.apply_damage(campaign.pk, [a.pk, b.pk], Attack(amount=1), by=gm)
        action.append(time.perf_counter() - start)

    def ms(values: list[float]) -> float:
        return statistics.median(values[WARM_UP:]) * 1000

    print(f"One change (1 PG to two player characters), medians of {CHANGES - WARM_UP}, ms")
    print(f"  the GM's POST, whole view in-process:  {ms(post):6.1f}  ({statistics.median(queries)} queries)")
    print(f"    of which the action alone:            {ms(action):6.1f}")
    print(f"  the live drawings, 3 screens:           {ms(renders):6.1f}")
    for name, values in spent.items():
        print(f"    in {name + ':':<28}      {ms(values):6.1f}")


if __name__ == "__main__":
    with own_database("cost"):
        main()
