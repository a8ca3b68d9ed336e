"""Who draws a change: the request that made it draws the acting screen's regions for its answer (play.screens.answers),
and the listener of each process draws it once for every other view its streams show (play.live.streams): the acting
tab's view only when another browser shows it too. In this process: streams through config.stream_gate.StreamHandler,
requests through the test client on a worker thread, the hub's listener hearing PostgreSQL's notifications."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from config.stream_gate import StreamHandler
from play.live import streams as live
from play.screens.streamed import Seen, draw_change
from rules import actions, notify
from rules.damage import Attack
from tests.helpers import World, reload
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
    """The GM's gas on Aldara, posted as htmx posts it from the tab TAB of the table (or as a page without script
    does)."""
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


def test_the_listener_draws_a_change_from_a_tab_once_for_each_other_view(world, monkeypatch):
    """The gas comes from a tab of the table that has no stream here (another process's): the GM's table in another
    tab and the player's page are drawn by the listener, each once, in one call."""
    drawn, table = counting_drawings(monkeypatch), Table(world)

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm, player, tasks = await table.opened(app)
        pg = await sync_to_async(gas_from_the_table, thread_sensitive=False)(world)
        hurt = pg_text(pg, world.char_a1.max_pg)
        await shown(gm, hurt)
        await shown(player, hurt)
        return tasks

    run(steps)
    assert [{seen.view.audience.is_gm for seen in views} for views in drawn] == [{True, False}]


def test_the_acting_tabs_view_is_left_to_its_answer(world, monkeypatch):
    """The GM's stream is the acting tab's: the listener draws the player's page alone, and the GM's stream gets
    nothing (the answer to the request had the change)."""
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
    assert [{seen.view.audience.is_gm for seen in views} for views in drawn] == [{False}]


def test_a_change_no_tab_made_is_drawn_by_the_listener_for_every_view(world, monkeypatch):
    """Made by a script (no request), or by a request that answers with a page (no htmx): the listener draws the
    change for every view, once."""
    drawn, table = counting_drawings(monkeypatch), Table(world, gm_tab=TAB)

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
