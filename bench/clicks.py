"""The GM's clicks of bench/live.py, each timed from the click to the change on the last screen and to the GM's own
answer (`measure`, `taking_turns`), against the app and both floors (bench/crowd.py: the servers and the screens)."""

import asyncio
import random
import re
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from bench.crowd import CONSTITUTION, Round, Screen, Table


@dataclass
class Sample:
    to_last: float  # t0 → the change visible at the last client, s
    round_trip: float  # t0 → the GM's response complete, s


type Click = Callable[[int], Awaitable[int]]  # which group → the marker of the change it made (after sending it)


def limits() -> httpx.Limits:
    return httpx.Limits(max_connections=4, max_keepalive_connections=4)


async def app_clicker(base: str, tables: list[Table]) -> tuple[Click, list[httpx.AsyncClient]]:
    """The GM's browser per campaign: the party damage form drawn once, then posted as htmx posts it."""
    gms, forms = [], []
    for table in tables:
        gm = httpx.AsyncClient(base_url=base, limits=limits(), timeout=60)
        gm.cookies.set("sessionid", table.cookies[0].split("=", 1)[1])
        form = (await gm.get(f"/campaigns/{table.campaign.pk}/act/damage/", headers={"HX-Request": "true"})).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        choices = re.search(r'name="choices" value="([^"]*)"', form)
        assert token is not None and choices is not None, "the damage form carries its token and choices"
        gms.append(gm)
        forms.append((token.group(1), choices.group(1)))

    async def click(group: int) -> int:
        table, gm, (token, choices) = tables[group], gms[group], forms[group]
        url = f"/campaigns/{table.campaign.pk}/act/damage/"
        data = {
            "csrfmiddlewaretoken": token,
            "slot": "party",
            "choices": choices,
            "kind": "attack",
            "characters": [str(c.pk) for c in table.characters],
            "amount": "1",
        }
        headers = {
            "HX-Request": "true",
            "HX-Current-URL": f"{base}/campaigns/{table.campaign.pk}/",
            "HX-Target": "table",
            "X-CSRFToken": token,
            "Origin": base,
        }
        response = await gm.post(url, data=data, headers=headers)
        response.raise_for_status()
        table.changes += 1
        marker = CONSTITUTION * 10 - table.changes
        assert f'class="pg-value">{marker}<' in response.text, "the GM's table shows the change"
        return marker

    return click, gms


async def floor_clicker(base: str, keys: list[int]) -> tuple[Click, list[httpx.AsyncClient]]:
    gm = httpx.AsyncClient(base_url=base, limits=limits(), timeout=60)

    async def click(group: int) -> int:
        response = await gm.post(f"/?c={keys[group]}", content=b"amount=1")
        response.raise_for_status()
        return int(response.text.removeprefix("v"))

    return click, [gm]


async def stack_clicker(base: str, tables: list[Table], size: int) -> tuple[Click, list[httpx.AsyncClient]]:
    """The GM's browser per campaign on the stack floor: its page read once for the CSRF token, then posted as htmx
    posts, asking for change messages of `size` bytes per client."""
    gms, tokens = [], []
    for table in tables:
        gm = httpx.AsyncClient(base_url=base, limits=limits(), timeout=60)
        gm.cookies.set("sessionid", table.cookies[0].split("=", 1)[1])
        page = (await gm.get(f"/bench/stack/{table.campaign.pk}/")).text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token is not None, "the stack floor's page carries its token"
        gms.append(gm)
        tokens.append(token.group(1))

    async def click(group: int) -> int:
        table, gm, token = tables[group], gms[group], tokens[group]
        headers = {
            "HX-Request": "true",
            "HX-Current-URL": f"{base}/bench/stack/{table.campaign.pk}/",
            "HX-Target": "table",
            "X-CSRFToken": token,
            "Origin": base,
        }
        data = {"csrfmiddlewaretoken": token, "bytes": str(size)}
        response = await gm.post(f"/bench/stack/{table.campaign.pk}/", data=data, headers=headers)
        response.raise_for_status()
        marker = re.search(r'data-v="(\d+)"', response.text)
        assert marker is not None, "the stack floor answers the new version"
        return int(marker.group(1))

    return click, gms


async def measure(click: Click, groups: list[list[Screen]], changes: int, seed: int) -> list[Sample]:
    """`changes` clicks, each on a random group (campaign); each waits for its change on the group's every screen."""
    [samples] = await taking_turns([(click, groups)], changes, seed)
    return samples


async def taking_turns(parts: list[tuple[Click, list[list[Screen]]]], changes: int, seed: int) -> list[list[Sample]]:
    """`changes` clicks for each part (a server's clicks and the screens of its groups), the parts taking turns click by
    click — whatever slows this shared machine for a while slows each of them alike — and each part's groups picked
    in the same order (the same seed). The first part of each turn goes round, so none always clicks first."""
    picks = [random.Random(seed) for _ in parts]
    samples: list[list[Sample]] = [[] for _ in parts]
    for turn in range(changes):
        for offset in range(len(parts)):
            index = (turn + offset) % len(parts)
            click, groups = parts[index]
            group = picks[index].randrange(len(groups))
            samples[index].append(await clicked(click, group, groups[group]))
            await asyncio.sleep(0.01)  # let the last writes and the GM's connection settle
    return samples


async def clicked(click: Click, group: int, screens: list[Screen]) -> Sample:
    """One click on a group, timed until the GM's answer and until its change is on every screen of the group."""
    t0 = time.perf_counter()
    # The screens may show the change before the GM's answer arrives: they record every marker as it comes.
    marker = await click(group)
    t_gm = time.perf_counter()
    times = [s.seen.get(marker) for s in screens]
    if all(t is not None for t in times):
        t_last = max(t for t in times if t is not None)
    else:
        t_last = await asyncio.wait_for(wait_marker(screens, marker, t0), 60)
    if min(s.seen[marker] for s in screens) < t0:
        raise AssertionError("a change was seen before its click")
    return Sample(t_last - t0, t_gm - t0)


async def wait_marker(screens: list[Screen], marker: int, t0: float) -> float:
    waiting = [s for s in screens if marker not in s.seen]
    seen = [s.seen[marker] for s in screens if marker in s.seen]
    round_ = Round(marker, waiting, t0)
    return max([await round_.done, *seen])


@dataclass
class Stats:
    p50: float
    p99: float
    max: float


def stats(values: list[float]) -> Stats:
    ms = sorted(v * 1000 for v in values)
    return Stats(statistics.median(ms), statistics.quantiles(ms, n=100, method="inclusive")[98], ms[-1])
