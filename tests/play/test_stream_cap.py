"""One account's streams are capped (STREAMS_PER_USER) by a count taken and a place held in one step: many connects
at once get exactly the cap, the rest a 429 saying why, and none a 503 (issue 23)."""

import asyncio

import httpx
import pytest

from tests.helpers import World, on_a_thread
from tests.play.streams import session_cookies, stream_path
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)
CAP, AT_ONCE = 5, 30


async def open_at_once(base: str, path: str, cookies: dict[str, str]) -> list[int]:
    """AT_ONCE streams opened together, each held open until every one has its answer; their statuses."""
    everyone_answered = asyncio.Event()
    statuses: list[int] = []

    async def one(client: httpx.AsyncClient) -> None:
        async with client.stream("GET", path) as response:
            statuses.append(response.status_code)
            if len(statuses) == AT_ONCE:
                everyone_answered.set()
            await asyncio.wait_for(everyone_answered.wait(), 60)

    limits = httpx.Limits(max_connections=AT_ONCE + 5)
    async with httpx.AsyncClient(base_url=base, cookies=cookies, timeout=60, limits=limits) as client:
        await asyncio.gather(*(one(client) for _ in range(AT_ONCE)))
    return statuses


def test_many_streams_at_once_by_one_account_get_the_cap_exactly(world: World):
    cookies = session_cookies(world.gm_a)
    with asgi_server(STREAMS_PER_USER=str(CAP)) as base:
        # On a thread of its own: the full suite runs this after the browser tests, whose event loop is on this one.
        statuses = on_a_thread(lambda: asyncio.run(open_at_once(base, stream_path(world), cookies)))
        assert sorted(statuses) == [200] * CAP + [429] * (AT_ONCE - CAP), statuses
        # Every place is given back when they close: the cap is whole again.
        again = on_a_thread(lambda: asyncio.run(open_at_once(base, stream_path(world), cookies)))
        assert sorted(again) == [200] * CAP + [429] * (AT_ONCE - CAP), again
