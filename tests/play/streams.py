"""Live-update test support: an SSE client on its own thread (Listener), a session's cookies for it, and the paths
and texts the stream tests look for."""

import re
import socket
import threading
import time

import httpx
from django.test import Client
from httpx_sse import connect_sse

from characters.models import Character
from tests.helpers import World
from tests.regions import elements_of


def session_cookies(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


class Listener:
    """An SSE client on its own thread; events land in a list so a test can wait for them with a deadline."""

    def __init__(self, base: str, path: str, user) -> None:
        self.received: list[tuple[str, str]] = []
        self.raw: list[str] = []
        self.status: int | None = None
        self.ended = threading.Event()  # set when the stream is over, whoever ended it
        self.response: httpx.Response | None = None
        self.client = httpx.Client(base_url=base, cookies=session_cookies(user), timeout=httpx.Timeout(5, read=60))
        self.thread = threading.Thread(target=self.run, args=(path,), daemon=True)
        self.thread.start()

    def run(self, path: str) -> None:
        try:
            with connect_sse(self.client, "GET", path) as source:
                self.response = source.response
                self.status = source.response.status_code
                for event in source.iter_sse():
                    self.raw.append(event.event + "\n" + event.data)
                    self.received.append((event.event, event.data))
        except Exception as error:  # closed by the test, or the server went away
            self.received.append(("error", str(error)))
        finally:
            self.ended.set()

    def wait_for(self, name: str, contains: str = "", timeout: float = 15) -> str:
        """Wait until some event received so far (or later) has this name and contains this text."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event, data in list(self.received):
                if event == name and contains in data:
                    return data
            time.sleep(0.05)
        raise AssertionError(f"no {name!r} event containing {contains!r} within {timeout}s; got {self.raw[-5:]}")

    def changes(self, after: int = 0) -> list[str]:
        """The messages of changes received so far (from the `after`-th event on)."""
        return [data for event, data in list(self.received)[after:] if event == "change"]

    def wait_for_region(self, region: str, contains: str = "", after: int = 0, timeout: float = 15) -> str:
        """Wait until a change (from the `after`-th event on) carries the element of this id, holding this text;
        return that element. A card's region comes inside the list of cards, in a whole screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.changes(after):
                for element in elements_of(message):
                    if element.id == region and contains in element.html:
                        return element.html
            time.sleep(0.05)
        raise AssertionError(f"no region {region!r} holding {contains!r} within {timeout}s; got {self.raw[-3:]}")

    def wait_for_message(self, contains: str, after: int = 0, timeout: float = 15) -> str:
        """Wait until a change (from the `after`-th event on) holds this text; return its message."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.changes(after):
                if contains in message:
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no change holding {contains!r} within {timeout}s; got {self.raw[-3:]}")

    def close(self) -> None:
        self.client.close()

    def leave(self) -> None:
        """The browser goes away, as a closed tab does: its connection is shut, and the server notices at once."""
        assert self.response is not None
        self.response.extensions["network_stream"].get_extra_info("socket").shutdown(socket.SHUT_RDWR)
        assert self.ended.wait(5)


def pg_text(pg: int, max_pg: int) -> str:
    return f'<strong class="pg-value">{pg}</strong> / {max_pg}'


def stream_path(world: World, sheet: Character | None = None, tab: str = "") -> str:
    query = "&".join(part for part in (f"sheet={sheet.pk}" if sheet else "", f"tab={tab}" if tab else "") if part)
    return f"/campaigns/{world.campaign_a.pk}/stream/" + (f"?{query}" if query else "")


def ended_at_once(base: str, path: str, user) -> str:
    """A stream that may not be watched answers 200 with one message, its end, saying why ("gone", "session"): the
    browser reads it and stops retrying. Returns why."""
    cookies = {} if user is None else session_cookies(user)
    with httpx.Client(base_url=base, cookies=cookies, timeout=10) as client:
        response = client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    found = re.fullmatch(r"event: end\ndata: (\w+)\n\n", response.text)
    assert found, response.text[:300]
    return found.group(1)


def csrf_of(client: httpx.Client, world: World) -> str:
    page = client.get(f"/campaigns/{world.campaign_a.pk}/")
    return re.search(r'"X-CSRFToken": "([^"]+)"', page.text).group(1)


def post_damage(client: httpx.Client, base: str, world: World, turns: int, tab: str = "") -> httpx.Response:
    """Gas on Aldara from the GM's table, as htmx sends it (with the tab's id, when given)."""
    headers = {"X-CSRFToken": csrf_of(client, world), "HX-Request": "true", "Referer": base + "/"}
    if tab:
        headers["X-Tab"] = tab
    data = {"kind": "gas", "turns": str(turns), "characters": world.char_a1.pk}
    response = client.post(f"/campaigns/{world.campaign_a.pk}/act/damage/", data=data, headers=headers)
    assert response.status_code == 200 and response.headers["X-Regions"] == "1", response.status_code
    return response


def screens_with(monkeypatch, **replaced) -> None:
    """The screens the live streams show (play.screens.streamed.SCREENS), with some of what the hub asks of them
    replaced (a drawing counted, say), for this test."""
    from dataclasses import replace

    from play.live.streams import Hub
    from play.screens.streamed import SCREENS

    monkeypatch.setattr(Hub, "screens", replace(SCREENS, **replaced))
