"""A change is drawn for a process's streams by the request that made it, when it answers with what it changed
(play.screens.answers.Promises, promised by its tab before it acts): the listener of that process then reads and
draws nothing for the views the request drew, and draws what it did not (a stream opened since, a request that drew
nothing, a change from no tab). The acting tab's own stream gets nothing: its answer had the change. What the streams
get is the same whichever drew it. In this process: streams through config.stream_gate.StreamHandler, requests
through the test client on a worker thread, the hub's listener hearing PostgreSQL's notifications."""

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from campaigns import access
from config.stream_gate import StreamHandler
from play.live import streams as live
from play.screens import answers, streamed
from play.screens.answers import Seen, keep, promises
from play.screens.drawing import view_of
from play.screens.streamed import draw_change
from rules import actions, notify
from rules.damage import Attack
from tests.helpers import World, on_a_thread, reload
from tests.play.streams import pg_text, screens_with, stream_path
from tests.play.test_stream_connect import cookie_of, opened, run, shown

pytestmark = pytest.mark.django_db(transaction=True)

TAB = "acting-tab-0001"


@pytest.fixture(autouse=True)
def own_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "hub", live.Hub())


def counting_drawings(monkeypatch: pytest.MonkeyPatch) -> list[set[Seen]]:
    """The views the listener draws a change for, call by call."""
    drawn: list[set[Seen]] = []

    def counted(change: notify.Change, views: set[Seen]) -> dict[Seen, str | None]:
        drawn.append(set(views))
        return draw_change(change, views)

    screens_with(monkeypatch, changed=counted)
    return drawn


def gas_from_the_table(world: World, htmx: bool = True) -> int:
    """The GM's gas on Aldara, posted as htmx posts it from a tab of the table (or as a page without script does)."""
    client = Client()
    client.force_login(world.gm_a)
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_X_TAB": TAB} if htmx else {}
    data = {"kind": "gas", "turns": "2", "characters": world.char_a1.pk}
    response = client.post(f"/campaigns/{world.campaign_a.pk}/act/damage/", data, **headers)
    assert response.status_code == (200 if htmx else 302)
    return reload(world.char_a1).pg


class Table:
    """The GM's table in another tab (or in the acting tab, `gm_tab`) and the player's page: their sessions, made
    before the event loop runs."""

    def __init__(self, world: World, gm_tab: str = "") -> None:
        self.world = world
        self.gm_tab = gm_tab
        self.aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
        self.cookies = cookie_of(world.gm_a), cookie_of(world.player_a)

    async def opened(self, app: StreamHandler) -> tuple[list[str], list[str], list[asyncio.Task[None]]]:
        """Both streams, each showing Aldara as she is."""
        gm: list[str] = []
        player: list[str] = []
        tasks = [opened(app, stream_path(self.world, tab=self.gm_tab), self.cookies[0], gm)]
        await shown(gm, self.aldara)
        tasks.append(opened(app, stream_path(self.world), self.cookies[1], player))
        await shown(player, self.aldara)
        return gm, player, tasks


def test_the_request_that_makes_a_change_draws_it_for_the_streams_and_the_listener_draws_nothing(world, monkeypatch):
    drawn, table = counting_drawings(monkeypatch), Table(world)

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm, player, tasks = await table.opened(app)
        pg = await sync_to_async(gas_from_the_table, thread_sensitive=False)(world)
        hurt = pg_text(pg, world.char_a1.max_pg)
        await shown(gm, hurt)
        await shown(player, hurt)
        return tasks

    run(steps)
    assert drawn == []


def test_the_acting_tabs_own_stream_gets_nothing_and_the_others_are_drawn_by_its_request(world, monkeypatch):
    """The GM's stream is the acting tab's: the request draws the player's page for the streams, the listener draws
    nothing, and the GM's stream gets nothing (the answer to the request had the change)."""
    drawn, table = counting_drawings(monkeypatch), Table(world, gm_tab=TAB)

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm, player, tasks = await table.opened(app)
        before = len("".join(gm))
        pg = await sync_to_async(gas_from_the_table, thread_sensitive=False)(world)
        await shown(player, pg_text(pg, world.char_a1.max_pg))
        await asyncio.sleep(0.2)  # the listener delivers to every stream of a change at once: none is on its way
        assert len("".join(gm)) == before
        return tasks

    run(steps)
    assert drawn == []


def test_a_change_no_request_drew_is_drawn_by_the_listener(world, monkeypatch):
    """Made by a script (no request), or by a request that answers with a page (no htmx, no tab): no promise, and the
    listener draws the change for every view, once."""
    drawn, table = counting_drawings(monkeypatch), Table(world)

    def by_a_script() -> int:
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
        return reload(world.char_a1).pg

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm, player, tasks = await table.opened(app)
        for make in (by_a_script, lambda: gas_from_the_table(world, htmx=False)):
            pg = await sync_to_async(make, thread_sensitive=False)()
            await shown(gm, pg_text(pg, world.char_a1.max_pg))
            await shown(player, pg_text(pg, world.char_a1.max_pg))
        return tasks

    run(steps)
    assert [len(views) for views in drawn] == [2, 2]


def test_a_view_the_request_did_not_draw_is_drawn_by_the_listener(world, monkeypatch):
    """The request drew the GM's table only (the player's stream opened after it looked): the GM's stream gets the
    request's drawing as it is, and the player's page is drawn by the listener, alone."""
    drawn, table = counting_drawings(monkeypatch), Table(world)
    made: list[Any] = []

    def promised_for_the_table_only() -> None:
        made.append(promises.promise(world.campaign_a.pk, TAB, set()))
        outcome = actions.apply_damage(
            world.campaign_a, [world.char_a1], Attack(amount=2), by=actions.FromTab(world.gm_a, TAB)
        )
        (gm_view,) = [seen for seen in live.hub.views_of(world.campaign_a.pk, "") if seen.view.audience.is_gm]
        assert outcome.event is not None
        keep(made[0], outcome.event.pk, {gm_view: "<p>drawn by the request</p>"})

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm, player, tasks = await table.opened(app)
        await sync_to_async(promised_for_the_table_only, thread_sensitive=False)()
        await shown(gm, "drawn by the request")
        aldara = await sync_to_async(reload, thread_sensitive=False)(world.char_a1)
        await shown(player, pg_text(aldara.pg, aldara.max_pg))
        return tasks

    run(steps)
    assert [{seen.view.audience.is_gm for seen in views} for views in drawn] == [{False}]


def test_what_the_request_draws_for_each_view_is_what_the_listener_would(world, monkeypatch):
    """The GM's table (owner and co-GM alike), each player's page and a sheet, in two languages: the request's
    drawing of its change equals the listener's own drawing of it, view by view."""
    kept: list[dict[Seen, str | None]] = []
    real_keep = answers.keep

    def keeping(future: Any, event: int | None, drawn: dict[Seen, str | None]) -> None:
        if drawn:
            kept.append(drawn)
        real_keep(future, event, drawn)

    monkeypatch.setattr(answers, "keep", keeping)
    views = {
        Seen(view_of(audience, sheet), "http://testserver", language)
        for audience, sheet in [
            (access.audience_of(world.gm_a, world.campaign_a), None),
            (access.audience_of(world.player_a, world.campaign_a), None),
            (access.audience_of(world.player_a2, world.campaign_a), None),
            (access.audience_of(world.player_a, world.campaign_a), world.char_a1.pk),
        ]
        for language in ("es", "en")
    }
    monkeypatch.setattr(live.hub, "views_of", lambda campaign_id, tab: set(views))

    def listeners_drawing() -> dict[Seen, str | None]:  # the test client refuses a thread with an event loop
        gas_from_the_table(world)
        event = world.campaign_a.events.latest("id")
        return draw_change(notify.Change(world.campaign_a.pk, (world.char_a1.pk,), event.pk), views)

    again = on_a_thread(listeners_drawing)
    (drawn,) = kept
    assert drawn.keys() == views
    assert drawn == again
    assert any(html for html in drawn.values())


def test_promises_older_than_their_time_are_let_go_oldest_first_and_the_young_kept(monkeypatch):
    """Let go from the oldest on, whether kept or not (the request and the listener hold theirs: neither waits on the
    process's list); a young promise stays findable however many are made."""
    now = [1000.0]
    monkeypatch.setattr(answers.time, "monotonic", lambda: now[0])
    made = answers.Promises()
    old = [made.promise(1, f"tab-{n:04}", set()) for n in range(1, 4)]
    keep(old[0], None, {})  # released; the others never kept
    now[0] += made.KEPT_SECONDS / 2
    young = [made.promise(2, f"tab-{n:04}", set()) for n in range(1, 1001)]
    assert all(made.of(1, f"tab-{n:04}") is old[n - 1] for n in range(1, 4))
    now[0] += made.KEPT_SECONDS / 2 + 1
    latest = made.promise(3, "tab-0001", set())
    assert [made.of(1, f"tab-{n:04}") for n in range(1, 4)] == [None, None, None]
    assert made.of(2, "tab-1000") is young[-1] and made.of(3, "tab-0001") is latest and len(made.made) == 1001
    assert made.of(3, "") is None  # no request of that campaign without a tab


def test_a_tabs_new_promise_takes_the_place_of_its_last_one_and_the_listener_takes_only_its_own_change():
    """The same tab acting twice: the latest promise is the one found; a promise kept for another event is no drawing
    of this change (the listener draws it)."""
    made = answers.Promises()
    first, second = made.promise(1, "tab-0001", set()), made.promise(1, "tab-0001", set())
    assert made.of(1, "tab-0001") is second is not first and len(made.made) == 1
    keep(second, 8, {})
    keep(second, 9, {})  # kept already: stays as it was
    assert second.drawn.result() == (8, {})


@pytest.mark.parametrize("event, found", [(8, "drawn"), (9, None), (None, None)])
def test_the_listener_takes_a_promised_drawing_only_for_the_event_it_was_kept_with(monkeypatch, event, found):
    made = answers.Promises()
    monkeypatch.setattr(streamed, "promises", made)
    view = object()
    keep(made.promise(1, "tab-0001", set()), 8, {view: "drawn"})  # type: ignore[dict-item]
    drawn = asyncio.run(streamed.promised(notify.Change(1, None, event, "tab-0001")))
    assert drawn == ({view: "drawn"} if found else {})


def test_promises_made_on_many_threads_at_once_are_each_found(monkeypatch):
    """Requests make promises on their own threads while old ones are let go: none is lost, none raises."""
    now = [1000.0]
    monkeypatch.setattr(answers.time, "monotonic", lambda: now[0])
    made = answers.Promises()
    for n in range(1, 501):
        made.promise(1, f"tab-{n:04}", set())  # old, let go by the first promise made below
    now[0] += made.KEPT_SECONDS + 1
    start = threading.Barrier(8)

    def requests(thread: int) -> list[answers.Promise]:
        start.wait()
        return [made.promise(2, f"tab-{thread * 1000 + n:05}", set()) for n in range(200)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        promised = list(pool.map(requests, range(8)))
    assert len(made.made) == 8 * 200 and made.of(1, "tab-0001") is None
    for thread, futures in enumerate(promised):
        assert all(made.of(2, f"tab-{thread * 1000 + n:05}") is future for n, future in enumerate(futures))
