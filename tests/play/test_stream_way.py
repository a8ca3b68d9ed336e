"""The ways into Django under ASGI. A stream's connect takes its own (config.stream_gate): through STREAM_MIDDLEWARE
only, which is MIDDLEWARE's own entries in its order; what those give a stream still holds through a real server: the
session and the account, the language, the hosts allowed. Everything else passes through all of MIDDLEWARE, run on the
request's own thread (config.one_thread), not hopping to a thread and back for each middleware."""

import asyncio

import httpx
import pytest
from asgiref.sync import SyncToAsync
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.test import override_settings
from django.utils.module_loading import import_string

from config.stream_gate import StreamHandler
from tests.helpers import World, on_a_thread
from tests.play.streams import ended_at_once, session_cookies, stream_path

NEEDED = {
    "config.outage.OutageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
}


def test_a_streams_middleware_is_the_projects_own_in_its_order():
    assert set(settings.STREAM_MIDDLEWARE) >= NEEDED
    positions = [settings.MIDDLEWARE.index(path) for path in settings.STREAM_MIDDLEWARE]
    assert positions == sorted(positions)
    everything = list(settings.MIDDLEWARE)
    StreamHandler()
    assert everything == settings.MIDDLEWARE  # swapped for its loading only


def first_message(base: str, path: str, cookies: dict[str, str], **headers: str) -> tuple[int, str]:
    """The status of a stream's connect and what it sent up to its first message's end."""
    timeout = httpx.Timeout(5, read=30)
    with (
        httpx.Client(base_url=base, cookies=cookies, timeout=timeout) as client,
        client.stream("GET", path, headers=headers) as response,
    ):
        text = ""
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for chunk in response.iter_text():
                text += chunk
                if "event: " in text and text.endswith("\n\n"):
                    break
        else:
            text = response.read().decode()
        return response.status_code, text


@pytest.mark.django_db(transaction=True)
def test_a_stream_knows_who_asks_in_what_language_and_from_where(world: World, server: str):
    gm = session_cookies(world.gm_a)
    status, spanish = first_message(server, stream_path(world), gm)
    assert status == 200 and "event: change" in spanish and "Aldara" in spanish
    assert "Aún no ha pasado nada." in spanish
    status, english = first_message(server, stream_path(world), gm, **{"Accept-Language": "en"})
    assert status == 200 and "Nothing has happened yet." in english and "Aún" not in english
    # No session: the stream ends at once, saying so; another's sheet: the same words as a campaign not theirs.
    assert ended_at_once(server, stream_path(world), None) == "session"
    assert ended_at_once(server, stream_path(world, world.char_a2), world.player_a) == "gone"
    # A host not allowed (ALLOWED_HOSTS) is refused as Django refuses it, and no stream is opened.
    status, _ = first_message(server, stream_path(world), gm, Host="evil.example")
    assert status == 400
    # Pages still go through all of MIDDLEWARE: their security headers are there.
    with httpx.Client(base_url=server, cookies=gm, timeout=30) as client:
        page = client.get(f"/campaigns/{world.campaign_a.pk}/")
    assert page.status_code == 200
    assert "Content-Security-Policy" in page.headers and page.headers["X-Frame-Options"] == "DENY"


ONE_THREAD = "config.one_thread.OneThreadMiddleware"


def hops_for_a_page(handler: ASGIHandler, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times a request for a page (the login page, asked anonymously) hops from the event loop to a thread."""
    hops = [0]
    real = SyncToAsync.__call__

    async def counted(self: SyncToAsync, *args: object, **kwargs: object) -> object:
        hops[0] += 1
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)

    async def get() -> int:
        transport = httpx.ASGITransport(app=handler, client=("127.0.0.1", 5555))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return (await client.get("/accounts/login/")).status_code

    assert on_a_thread(lambda: asyncio.run(get())) == 200  # this thread may run Playwright's event loop
    monkeypatch.setattr(SyncToAsync, "__call__", real)
    return hops[0]


@pytest.mark.django_db(transaction=True)
def test_a_page_runs_its_middleware_on_one_thread(monkeypatch: pytest.MonkeyPatch):
    *others, last = settings.MIDDLEWARE
    assert last == ONE_THREAD and ONE_THREAD not in settings.STREAM_MIDDLEWARE
    one = import_string(ONE_THREAD)
    assert one.sync_capable and not one.async_capable
    one_thread = hops_for_a_page(ASGIHandler(), monkeypatch)
    with override_settings(MIDDLEWARE=others):  # what it saves: a hop for each hook of each middleware class
        hopping = hops_for_a_page(ASGIHandler(), monkeypatch)
    # Left (9 when written, against 22): the request's signals' receivers, the view, and the middleware in front of
    # servestatic's, which is async only (SecurityMiddleware: its two hooks), so the thread is entered inside it.
    assert hopping - one_thread >= 10, (one_thread, hopping)
