"""A stream's first screen is drawn at the campaign's version its connect read, when this process heard no change of the
campaign between before that read and the stream's registration (play.live.streams.Hub.mark): not read a second time. A
change that commits while a stream connects reaches it all the same, whichever comes first. In this process, through the
handler streams take (config.stream_gate.StreamHandler)."""

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

from config.stream_gate import StreamHandler
from play.live import streams as live
from play.screens import streamed
from play.views import streams as stream_views
from rules import actions
from rules.damage import Attack
from tests.helpers import World, on_a_thread, reload
from tests.play.streams import pg_text, screens_with, session_cookies, stream_path

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def own_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "hub", live.Hub())


def cookie_of(user: Any) -> str:
    return f"sessionid={session_cookies(user)['sessionid']}"


def request(path: str, cookie: str, headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, Any]:
    """A stream's connect as the server hands it to the app (its ASGI scope)."""
    route, _, query = path.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": route,
        "raw_path": route.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode()), *(headers or [])],
        "client": ("127.0.0.1", 5555),
        "server": ("testserver", 80),
    }


def opened(app: StreamHandler, path: str, cookie: str, text: list[str]) -> "asyncio.Task[None]":
    """A browser's stream of `path` with this session `cookie`: what it receives lands in `text`."""
    scope = request(path, cookie)
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the browser stays until the test closes it
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            text.append(message.get("body", b"").decode())

    return asyncio.create_task(app(scope, receive, send))


async def shown(text: list[str], wanted: str) -> None:
    for _ in range(300):
        if wanted in "".join(text):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{wanted!r} never came; got {''.join(text)[-300:]!r}")


def counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    reads: list[int] = []
    real = streamed.campaign_version

    def counted(campaign_id: int) -> int | None:
        reads.append(campaign_id)
        return real(campaign_id)

    screens_with(monkeypatch, version=counted)
    return reads


def run(steps: Callable[[StreamHandler], Any]) -> None:
    """Run `steps` on an event loop of its own thread, with a hub of its own; then close every stream it opened, the
    hub's listener, and the database connections its threads opened."""

    async def main() -> None:
        tasks = await steps(StreamHandler())
        tasks += [task for task in (live.hub.listener, live.hub.sweeper) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await sync_to_async(connections.close_all)()  # the thread the listener draws changes on

    on_a_thread(lambda: asyncio.run(main()))


def test_a_stream_connecting_while_nothing_changes_reads_the_version_once(world: World, monkeypatch):
    reads = counting_reads(monkeypatch)
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    gm_cookie, player_cookie = cookie_of(world.gm_a), cookie_of(world.player_a)

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        gm: list[str] = []
        first = opened(app, stream_path(world), gm_cookie, gm)
        await shown(gm, aldara)  # the first stream: the process was not listening yet, so it read the version
        player: list[str] = []
        second = opened(app, stream_path(world), player_cookie, player)
        await shown(player, aldara)
        return [first, second]

    run(steps)
    assert reads == [world.campaign_a.pk]


@pytest.mark.parametrize("heard", ["before the stream is registered", "after the stream is registered"])
def test_a_change_committed_while_a_stream_connects_reaches_it(world: World, monkeypatch, heard: str):
    """The change commits right after the connect read the campaign. Heard before the stream is registered, the mark
    has moved: the version is read again, and the first screen shows the change. Heard after (the listener held
    back until then), the first screen is drawn at the version read before it, and the change comes next."""
    reads = counting_reads(monkeypatch)
    gm_cookie, player_cookie = cookie_of(world.gm_a), cookie_of(world.player_a)
    real_admit, real_dispatch = stream_views.admit, live.hub.dispatch
    registered = asyncio.Event()
    hurt: list[str] = []

    def admit_then_hurt(request: Any, campaign_id: int) -> Any:
        admitted = real_admit(request, campaign_id)
        before = live.hub.changes_heard
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
        aldara = reload(world.char_a1)
        hurt.append(pg_text(aldara.pg, aldara.max_pg))
        deadline = time.monotonic() + 10
        while heard.startswith("before") and live.hub.changes_heard == before:
            assert time.monotonic() < deadline, "the change was never heard"
            time.sleep(0.01)  # until the process has heard it
        connections["default"].close()  # as admit leaves it: the stream holds no connection
        return admitted

    async def held_back(payload: str) -> None:
        await registered.wait()
        await real_dispatch(payload)

    async def steps(app: StreamHandler) -> tuple[list[asyncio.Task[None]], str]:
        gm: list[str] = []
        first = opened(app, stream_path(world), gm_cookie, gm)
        await shown(gm, "Aldara")  # the process listens now
        monkeypatch.setattr(stream_views, "admit", admit_then_hurt)
        if heard.startswith("after"):
            monkeypatch.setattr(live.hub, "dispatch", held_back)
        player: list[str] = []
        second = opened(app, stream_path(world), player_cookie, player)
        for _ in range(2000):
            if len(live.hub.watchers[world.campaign_a.pk]) == 2:
                break
            await asyncio.sleep(0.005)
        assert len(live.hub.watchers[world.campaign_a.pk]) == 2, "the player's stream was never registered"
        registered.set()
        await shown(player, "event: change")
        first_screen = "".join(player)
        await shown(player, hurt[0])
        await shown(gm, hurt[0])
        return [first, second], first_screen

    async def checked(app: StreamHandler) -> list[asyncio.Task[None]]:
        tasks, first_screen = await steps(app)
        if heard.startswith("before"):
            assert hurt[0] in first_screen
            assert reads == [world.campaign_a.pk] * 2  # the first stream's, and this one's again
        else:
            assert reads == [world.campaign_a.pk]  # the first stream's only
        return tasks

    run(checked)


def test_open_streams_hold_no_thread_each_and_changes_reach_them_after_the_first_has_ended(world: World, monkeypatch):
    """Django gives each request a thread of its own for as long as it lasts, and a stream lasts hours: a thousand
    open streams held a thousand threads, and a thousand ending at once (a reconnect storm) made the event loop start
    a thread to shut each down. Stream connects share STREAM_CONNECTS_AT_ONCE threads instead. The hub's listener,
    started by the first connect, does not depend on that connect's thread: once it has ended, a change still reaches
    the others, drawn by the listener (as a change made by another process is)."""
    cookies = [cookie_of(user) for user in (world.gm_a, world.player_a)]  # both see Aldara's PG
    aldara = pg_text(world.char_a1.pg, world.char_a1.max_pg)
    hurt = pg_text(world.char_a1.pg - 3, world.char_a1.max_pg)

    def threads() -> dict[int | None, str]:
        return {thread.ident: thread.name for thread in threading.enumerate()}

    async def steps(app: StreamHandler) -> list[asyncio.Task[None]]:
        before = threads()
        texts: list[list[str]] = [[] for _ in range(9)]
        tasks = [opened(app, stream_path(world), cookies[0], texts[0])]
        await shown(texts[0], aldara)  # the first: it starts the hub's listener
        tasks += [opened(app, stream_path(world), cookies[i % 2], text) for i, text in enumerate(texts) if i]
        for text in texts:
            await shown(text, aldara)
        new = [name for ident, name in threads().items() if ident not in before]
        # at most the threads kept for connects, and those the loop draws first screens on: not one per request
        assert len([name for name in new if name.startswith("stream-connect")]) <= settings.STREAM_CONNECTS_AT_ONCE
        assert [name for name in new if not name.startswith(("stream-connect", "asyncio"))] == []
        tasks[0].cancel()  # the first connect, which started the hub's listener, ends
        await asyncio.gather(tasks[0], return_exceptions=True)
        await asyncio.to_thread(
            on_a_thread,
            lambda: actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a),
        )
        for text in texts[1:]:
            await shown(text, hurt)
        assert live.hub.listened == 1  # as a change, not by a resync after the listener failed and reconnected
        return tasks[1:]

    run(steps)
