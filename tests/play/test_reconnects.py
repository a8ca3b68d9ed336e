"""A stream its browser closed comes back from memory when the very same request comes again soon (play.live.connects):
no read, no Django; and through Django whenever something that could have ended it was heard since, or the request
differs at all. In this process, through the ASGI app streams take (settings.STREAM_RECONNECTS in front of
config.stream_gate.StreamHandler), with a hub of its own."""

import asyncio
import gc
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from django.test import Client

from config.stream_gate import StreamHandler
from play.live import connects, memory
from play.live import streams as live
from play.views import streams as stream_views
from rules import actions
from rules.damage import Attack
from tests.helpers import World, on_a_thread, reload
from tests.play.streams import pg_text, stream_path
from tests.play.test_stream_connect import cookie_of, counting_reads, request, run, shown

pytestmark = pytest.mark.django_db(transaction=True)

App = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@pytest.fixture(autouse=True)
def own_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "hub", live.Hub())


@pytest.fixture
def admitted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The connects Django admitted (connects.admit ran), by campaign."""
    asked: list[int] = []
    real = stream_views.admit

    def counted(request: Any, campaign_id: int) -> Any:
        asked.append(campaign_id)
        return real(request, campaign_id)

    monkeypatch.setattr(stream_views, "admit", counted)
    return asked


class Browser:
    """One browser tab's stream of a request: what it receives lands in `text`; `close` is the browser leaving."""

    def __init__(self, app: App, scope: dict[str, Any]) -> None:
        self.scope = scope
        self.text: list[str] = []
        self.status: int | None = None
        self.leaving = asyncio.Event()
        self.reading = asyncio.Event()  # cleared: the browser reads nothing more (a frozen tab): the server waits
        self.reading.set()
        self.asked = False
        self.task = asyncio.create_task(app(dict(scope), self.receive, self.send))  # a server's own copy each time

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.leaving.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        await self.reading.wait()
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.text.append(message.get("body", b"").decode())

    async def close(self) -> None:
        self.leaving.set()
        await asyncio.wait_for(self.task, 5)

    @property
    def received(self) -> str:
        return "".join(self.text)


def app() -> App:
    return connects.remembered(StreamHandler())


async def closed_and_back(browser: Browser, stream: App, wanted: str) -> Browser:
    """The browser closes its stream and opens the same again (a network blip); it shows `wanted`."""
    await browser.close()
    again = Browser(stream, browser.scope)  # the very same request
    await shown(again.text, wanted)
    return again


def test_the_same_request_again_comes_back_without_django_and_stays_live(
    world: World, admitted: list[int], monkeypatch
):
    reads = counting_reads(monkeypatch)
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.gm_a)
    hurt: list[str] = []

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world) + "?tab=tab-one-1234", cookie))
        await shown(first.text, aldara)
        back = await closed_and_back(first, stream, aldara)
        assert back.status == 200
        assert admitted == [world.campaign_a.pk]  # the comeback asked Django nothing
        assert reads == [world.campaign_a.pk]  # nor the campaign's version: the first stream's, read once, still is
        assert len(live.hub.watchers[world.campaign_a.pk]) == 1

        # Live as before: a change reaches it.
        def hurt_her() -> str:
            actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
            after = reload(world.char_a1)
            return pg_text(after.pg, after.max_pg)

        hurt.append(await asyncio.to_thread(on_a_thread, hurt_her))
        await shown(back.text, hurt[0])
        # And once more: the comeback, closed, is remembered in its turn, the change it saw included.
        last = await closed_and_back(back, stream, hurt[0])
        assert admitted == [world.campaign_a.pk]
        return [last.task]

    run(steps)


def test_a_request_that_differs_at_all_goes_through_django(world: World, admitted: list[int]):
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    gm, player = cookie_of(world.gm_a), cookie_of(world.player_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world) + "?tab=tab-one-1234", gm))
        await shown(first.text, aldara)
        await first.close()
        others = [
            Browser(stream, request(stream_path(world) + "?tab=tab-two-1234", gm)),  # another tab
            Browser(stream, request(stream_path(world) + "?tab=tab-one-1234", player)),  # another session
            Browser(stream, request(stream_path(world) + "?tab=tab-one-1234", gm, [(b"accept-language", b"en")])),
        ]
        for other in others:
            await shown(other.text, aldara)
        assert admitted == [world.campaign_a.pk] * 4
        return [other.task for other in others]

    run(steps)


def test_a_stolen_request_with_a_forged_cookie_gets_nothing_from_memory(world: World, admitted: list[int]):
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.gm_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world), cookie))
        await shown(first.text, aldara)
        await first.close()
        forged = Browser(stream, request(stream_path(world), cookie[:-1] + ("x" if cookie[-1] != "x" else "y")))
        await shown(forged.text, "event: end\ndata: session")
        assert admitted == [world.campaign_a.pk] * 2
        return [forged.task]

    run(steps)


@pytest.mark.parametrize("what", ["a change of its campaign", "its session ended", "its account changed"])
def test_what_could_have_ended_it_sends_it_back_through_django(world: World, admitted: list[int], what: str):
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    client = Client()
    client.force_login(world.player_a)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    path = stream_path(world) + "?tab=tab-one-1234"

    def happen() -> None:
        if what == "a change of its campaign":
            actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
        elif what == "its session ended":
            client.logout()
        else:
            world.player_a.set_password("another-password-entirely")  # type: ignore[attr-defined]
            world.player_a.save()  # type: ignore[attr-defined]

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(path, cookie))
        await shown(first.text, aldara)
        await first.close()
        assert live.hub.memory.remembered
        heard = live.hub.changes_heard
        await asyncio.to_thread(on_a_thread, happen)
        for _ in range(500):
            if not live.hub.memory.remembered:
                break
            await asyncio.sleep(0.01)
        assert not live.hub.memory.remembered, "what happened was never heard"
        again = Browser(stream, request(path, cookie))
        if what == "a change of its campaign":
            assert live.hub.changes_heard == heard + 1
            await shown(again.text, "Aldara")
        else:
            await shown(again.text, "event: end\ndata: session")
        assert admitted == [world.campaign_a.pk] * 2
        return [again.task]

    run(steps)


def test_a_change_forgets_its_campaigns_streams_remembered_and_only_theirs(world: World, admitted: list[int]):
    """Each change looks at its own campaign's streams remembered, not at every one of the process's (a thousand
    browsers that came and went would otherwise cost every change of every campaign)."""
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    in_b = f"/campaigns/{world.campaign_b.pk}/stream/"
    player, gm_a, gm_b = cookie_of(world.player_a), cookie_of(world.gm_a), cookie_of(world.gm_b)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        staying = Browser(stream, request(stream_path(world), gm_a))  # the process keeps listening meanwhile
        mine = Browser(stream, request(stream_path(world), player))
        other = Browser(stream, request(in_b, gm_b))
        await shown(staying.text, aldara)
        await shown(mine.text, aldara)
        await shown(other.text, world.char_b.name)
        await mine.close()
        await other.close()
        assert set(live.hub.memory.remembered_in) == {world.campaign_a.pk, world.campaign_b.pk}
        heard = live.hub.changes_heard
        damage = actions.apply_damage
        await asyncio.to_thread(
            on_a_thread, lambda: damage(world.campaign_a, [world.char_a1], Attack(1), by=world.gm_a)
        )
        for _ in range(500):
            if live.hub.changes_heard > heard:
                break
            await asyncio.sleep(0.01)
        assert set(live.hub.memory.remembered_in) == {world.campaign_b.pk}
        assert [kept.watcher.campaign_id for each in live.hub.memory.remembered.values() for kept in each] == [
            world.campaign_b.pk
        ]
        back = Browser(stream, request(in_b, gm_b))
        await shown(back.text, world.char_b.name)
        assert sorted(admitted) == sorted([world.campaign_a.pk] * 2 + [world.campaign_b.pk])  # B's from memory
        assert not live.hub.memory.remembered and not live.hub.memory.remembered_in[world.campaign_b.pk]
        return [staying.task, back.task]

    run(steps)


def test_a_player_no_longer_in_play_is_not_let_back_from_memory(world: World, admitted: list[int]):
    """Removed while its stream was closed: the change is heard, the comeback asks Django, which ends it."""
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.player_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world), cookie))
        await shown(first.text, aldara)
        await first.close()
        await asyncio.to_thread(
            on_a_thread, lambda: actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a)
        )
        for _ in range(500):  # heard (after its commit, in moments): a connect before that is let back, and told
            if live.hub.changes_heard == 1:
                break
            await asyncio.sleep(0.01)
        again = Browser(stream, request(stream_path(world), cookie))
        await shown(again.text, "event: end\ndata: gone")
        assert admitted == [world.campaign_a.pk] * 2  # the first connect, and this one
        return [again.task]

    run(steps)


def test_one_told_its_stream_ends_is_not_remembered(world: World, admitted: list[int]):
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.player_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world), cookie))
        await shown(first.text, aldara)
        await asyncio.to_thread(
            on_a_thread, lambda: actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a)
        )
        await shown(first.text, "event: end\ndata: gone")
        await first.task
        assert not live.hub.memory.remembered
        return []

    run(steps)


def test_a_remembered_stream_comes_back_only_while_its_time_lasts(world: World, admitted, monkeypatch):
    monkeypatch.setattr(memory, "REMEMBER_SECONDS", 0.0)
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.gm_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        first = Browser(stream, request(stream_path(world), cookie))
        await shown(first.text, aldara)
        back = await closed_and_back(first, stream, aldara)
        assert admitted == [world.campaign_a.pk] * 2
        return [back.task]

    run(steps)


def test_comebacks_keep_to_the_per_account_cap(world: World, admitted: list[int], settings):
    settings.STREAMS_PER_USER = 2
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.gm_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        tabs = [Browser(stream, request(stream_path(world) + f"?tab=tab-{n}-12345678", cookie)) for n in range(2)]
        for tab in tabs:
            await shown(tab.text, aldara)
        await tabs[0].close()
        third = Browser(
            stream, request(stream_path(world) + "?tab=tab-2-12345678", cookie)
        )  # takes the closed one's place
        await shown(third.text, aldara)
        again = Browser(stream, tabs[0].scope)
        for _ in range(200):
            if again.status is not None:
                break
            await asyncio.sleep(0.01)
        assert again.status == 429  # remembered, but the account holds two streams already: Django says so
        return [tabs[1].task, third.task, again.task]

    run(steps)


def test_one_told_its_stream_ends_but_closed_before_it_read_it_is_not_remembered(world: World, admitted: list[int]):
    """The end was in its queue, not yet sent, when the browser left: it is not let back from memory."""
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.player_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        stream = app()
        connected = Browser(stream, request(stream_path(world), cookie))
        await shown(connected.text, aldara)
        first = await closed_and_back(connected, stream, aldara)  # from memory
        first.reading.clear()
        await asyncio.to_thread(
            on_a_thread,
            lambda: actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a),
        )
        await asyncio.to_thread(
            on_a_thread, lambda: actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a)
        )
        for _ in range(500):
            if live.hub.changes_heard == 2 and not live.hub.memory.remembered:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the removal drawn and told
        await first.close()
        assert "gone" not in first.received, first.received
        assert not live.hub.memory.remembered
        again = Browser(stream, request(stream_path(world), cookie))
        await shown(again.text, "event: end\ndata: gone")
        assert admitted == [world.campaign_a.pk] * 2  # the first connect, and this one
        return [again.task]

    run(steps)


def test_a_stream_through_django_ends_when_its_browser_leaves_while_the_server_waits_to_send(world: World):
    """A browser that stopped reading (a frozen tab, a slow phone) holds the server's next send; when it then leaves,
    its stream ends at once (play.live.connects.stream's finally: the watcher forgotten, what it showed marked), not
    whenever the garbage collector reaches what Django left of it."""
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    cookie = cookie_of(world.player_a)

    async def steps(_handler: StreamHandler) -> list[asyncio.Task[None]]:
        browser = Browser(app(), request(stream_path(world), cookie))
        await shown(browser.text, aldara)
        browser.reading.clear()
        await asyncio.to_thread(
            on_a_thread,
            lambda: actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a),
        )
        for _ in range(500):
            if live.hub.changes_heard == 1:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # the change's message on its way: the server waits for the browser to take it
        await browser.close()
        for _ in range(200):
            if world.campaign_a.pk not in live.hub.watchers:
                break
            await asyncio.sleep(0.01)
        assert world.campaign_a.pk not in live.hub.watchers
        return []

    gc.disable()  # what the collector would end by chance, some time later, does not count
    try:
        run(steps)
    finally:
        gc.enable()
