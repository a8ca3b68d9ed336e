"""Live updates through real server processes, real LISTEN/NOTIFY and real SSE clients: one stream per screen (the
GM's table, a player's page, a character's sheet), whose first message is the whole screen and each later one the
regions a change touched (play.screens), and whose last one says why it ends."""

import asyncio
import re
import socket
import threading
import time
from collections import Counter

import httpx
import pytest
from django.db import connection
from django.test import Client
from httpx_sse import connect_sse

from campaigns import access
from characters.models import Character
from play.screens import SCREENS, Screen
from rules import actions
from rules.damage import Attack, Gas
from tests.helpers import World, element_by_id, elements_of, region_ids, streamed
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)

TAB = "a1b2c3d4e5f6a1b2c3d4e5f6"  # a browser tab's id, as static/js/screen.js makes one
OTHER_TAB = "0f1e2d3c4b5a0f1e2d3c4b5a"


@pytest.fixture
def server():
    with asgi_server() as base:
        yield base


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
        self.client = httpx.Client(base_url=base, cookies=session_cookies(user), timeout=httpx.Timeout(5, read=60))
        self.thread = threading.Thread(target=self.run, args=(path,), daemon=True)
        self.thread.start()

    def run(self, path: str) -> None:
        try:
            with connect_sse(self.client, "GET", path) as source:
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


def test_a_change_reaches_a_connected_client(world: World, server):
    gm = Listener(server, stream_path(world), world.gm_a)
    try:
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))  # the whole screen comes first
        gm.wait_for_region("clock", "Día 1, 00:00")
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(68, 80))
        gm.wait_for_region("log-entries", "Aldara pierde 12 PG")
        actions.advance_clock(world.campaign_a, 86400, by=world.gm_a)
        gm.wait_for_region("clock", "Día 2, 00:00")
        assert gm.status == 200 and not any(event == "end" for event, _data in gm.received)
    finally:
        gm.close()


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
    assert response.status_code == 200 and response.headers["X-Regions"] == "1"
    return response


def test_a_post_to_one_process_reaches_a_client_of_another(world: World):
    with asgi_server() as first, asgi_server() as second:
        player = Listener(second, stream_path(world), world.player_a)
        sheet = Listener(second, stream_path(world, sheet=world.char_a1), world.player_a)
        try:
            player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
            sheet.wait_for_region("sheet", pg_text(80, 80))
            with httpx.Client(base_url=first, cookies=session_cookies(world.gm_a)) as gm:
                post_damage(gm, first, world, turns=5)
            player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80))
            sheet.wait_for_region("sheet", pg_text(75, 80))
            sheet.wait_for_region("sheet-log", "Aldara pierde 5 PG")
        finally:
            player.close()
            sheet.close()


def test_a_change_reaches_every_tab_but_the_one_that_made_it(world: World, server):
    """The tab that acted has the change in the answer to its request: its own stream (its tab id) leaves it out,
    while the same person's other tabs, and everyone else, get it from theirs."""
    acting = Listener(server, stream_path(world, tab=TAB), world.gm_a)
    other = Listener(server, stream_path(world, tab=OTHER_TAB), world.gm_a)
    sheet = Listener(server, stream_path(world, sheet=world.char_a1, tab=OTHER_TAB[::-1]), world.gm_a)
    player = Listener(server, stream_path(world), world.player_a)
    listeners = (acting, other, sheet, player)
    try:
        for listener in listeners:
            listener.wait_for("change", pg_text(80, 80))
        with httpx.Client(base_url=server, cookies=session_cookies(world.gm_a)) as gm:
            answer = post_damage(gm, server, world, turns=5, tab=TAB)
        assert pg_text(75, 80) in element_by_id(answer.text, f"card-{world.char_a1.pk}").html  # the acting tab's
        other.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80))
        sheet.wait_for_region("sheet", pg_text(75, 80))
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80))
        # The barrier: a later change made by nobody's tab reaches every stream. Changes reach a stream in the order
        # they were committed: once this one has arrived, the one before it would have too.
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_a)
        for listener in listeners:
            listener.wait_for_region(f"card-{world.char_a1.pk}" if listener is not sheet else "sheet", pg_text(72, 80))
        assert not any(pg_text(75, 80) in message for message in acting.changes())
        assert len(acting.changes()) == 2  # the whole screen, then the barrier
    finally:
        for listener in listeners:
            listener.close()


def test_each_change_carries_each_region_it_touched_once(world: World, server):
    """A change's message holds each region it touched, once, and none it did not touch; a new log entry comes as
    that entry alone, not as the whole log."""
    a1 = world.char_a1.pk
    for _ in range(3):  # a log with entries already
        actions.advance_clock(world.campaign_a, 60, by=world.gm_a)
    table = Listener(server, stream_path(world), world.gm_a)
    sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.gm_a)
    page = Listener(server, stream_path(world), world.player_a)
    try:
        for listener in (table, sheet, page):
            listener.wait_for("change", pg_text(80, 80))
        first = {listener: len(listener.received) for listener in (table, sheet, page)}
        event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a).event
        message = table.wait_for_message(f'id="entry-{event.pk}"', after=first[table])
        assert Counter(region_ids(message)) == Counter(
            [f"card-{a1}", f"card-actions-{a1}", "undo-button", "log-entries"]
        )
        assert [e.id for e in elements_of(message) if e.id.startswith("entry-")] == [f"entry-{event.pk}"]
        assert "Aldara pierde 4 PG" in element_by_id(message, f"entry-{event.pk}").html
        assert pg_text(76, 80) in element_by_id(message, f"card-{a1}").html
        message = sheet.wait_for_message(f'id="entry-{event.pk}"', after=first[sheet])
        assert Counter(region_ids(message)) == Counter(["sheet", "sheet-log"])
        assert [e.id for e in elements_of(message) if e.id.startswith("entry-")] == [f"entry-{event.pk}"]
        message = page.wait_for_message(pg_text(76, 80), after=first[page])
        assert region_ids(message) == [f"card-{a1}"]  # not the GM's log, nor anything else
        # an undo: its own entry, and the entry it undid, marked undone; each once
        undo = actions.undo(world.campaign_a, by=world.gm_a).event
        message = table.wait_for_message(f'id="entry-{undo.pk}"', after=first[table])
        assert Counter(region_ids(message)) == Counter(
            [f"card-{a1}", f"card-actions-{a1}", "undo-button", "log-entries"]
        )
        entries = [e for e in elements_of(message) if e.id.startswith("entry-")]
        assert sorted(e.id for e in entries) == sorted([f"entry-{undo.pk}", f"entry-{event.pk}"])
        assert 'class="entry undone"' in element_by_id(message, f"entry-{event.pk}").html
        # the clock moved: every card shows the time since, so the card list comes keyed (a tab that missed a
        # character gets it too), each card's regions once inside it; the log's entry alone
        moved = actions.advance_clock(world.campaign_a, 3600, by=world.gm_a).event
        message = table.wait_for_message(f'id="entry-{moved.pk}"', after=first[table])
        assert Counter(region_ids(message)) == Counter(["clock", "cards", "undo-button", "log-entries"])
        listed = element_by_id(message, "cards").html
        for pk in (a1, world.char_a2.pk, world.npc_a.pk):
            for region in ("card", "card-actions"):
                assert listed.count(f'id="{region}-{pk}"') == 1
    finally:
        for listener in (table, sheet, page):
            listener.close()


def test_a_player_stream_carries_only_their_own_character(world: World, server):
    player = Listener(server, stream_path(world), world.player_a)
    try:
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        # A change to the player's character and to others at once: the player sees their own part of it…
        actions.apply_damage(
            world.campaign_a, [world.char_a1, world.char_a2, world.npc_a], Attack(amount=3), by=world.gm_a
        )
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        # …then a change to the others only, which must not reach the player at all.
        actions.apply_damage(world.campaign_a, [world.char_a2, world.npc_a], Attack(amount=4), by=world.gm_a)
        # The barrier: a later change the player does see. Changes reach a stream in the order they were committed, so
        # once this one has arrived, everything sent for the ones before it has arrived too.
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80))
        # The others' cards, sheets and actions never come; they are only companions, as a word (the campaign's
        # party view: tests/play/test_party.py tries them all).
        regions = [element for message in player.changes() for element in elements_of(message) if element.depth == 0]
        everything = "\n".join(element.html for element in regions if element.id != "party")
        others = (world.char_a2, world.npc_a)
        for other in others:
            assert f"character-{other.pk}" not in everything and f"card-{other.pk}" not in everything
            assert f"/characters/{other.pk}/" not in everything
        assert "Borin" not in everything and "Tomás" not in everything and "/act/" not in everything
        party = player.wait_for_region("party", "Herido")
        assert "Borin" in party and "Tomás" in party and "PG" not in party and "/act/" not in party
        assert not any(element.id in ("log-entries", "undo-button", "calls") for element in regions)  # the GM's
        page = {region.name for region in SCREENS[Screen.PAGE] if not region.per_card}
        assert {element.id for element in regions} <= {*page, f"card-{world.char_a1.pk}"}  # their page's, only
    finally:
        player.close()


def test_whoever_may_not_watch_gets_a_stream_that_ends_at_once(world: World, server):
    for user in (world.gm_b, world.outsider):
        assert ended_at_once(server, stream_path(world), user) == "gone"
        assert ended_at_once(server, stream_path(world, sheet=world.char_a1), user) == "gone"
    assert ended_at_once(server, stream_path(world), None) == "session"  # not signed in
    # A sheet its reader may not see, in their own campaign or another: the same words, nothing more said of it.
    for sheet in (world.char_a2, world.npc_a, world.char_b):
        assert ended_at_once(server, stream_path(world, sheet=sheet), world.player_a) == "gone"
    assert ended_at_once(server, "/campaigns/999999/stream/", world.gm_a) == "gone"  # no such campaign


def test_the_stream_recovers_when_the_listener_connection_is_killed(world: World, server):
    gm = Listener(server, stream_path(world), world.gm_a)
    try:
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE query ILIKE 'LISTEN %%' AND pid <> pg_backend_pid()"
            )
            assert cursor.fetchone()[0] >= 1
        # A change made while the listener is down is not lost: the reconnect resends the current state.
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80), timeout=20)
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(70, 80), timeout=20)
    finally:
        gm.close()
    assert Character.objects.get(pk=world.char_a1.pk).pg == 70


# --- live access follows membership (issue 9) ------------------------------------------------------------------------


def assert_ended(listener: Listener, why: str = "gone") -> None:
    assert listener.ended.wait(15), "the stream is still open"
    assert listener.received[-1] == ("end", why), listener.raw[-2:]


def test_a_replaced_gm_stops_receiving_and_the_new_one_can_watch(world: World, server):
    old_gm = Listener(server, stream_path(world), world.gm_a)
    old_sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.gm_a)
    player = Listener(server, stream_path(world), world.player_a)
    try:
        old_gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        old_sheet.wait_for_region("sheet", pg_text(80, 80))
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        actions.edit_campaign(world.campaign_a, name="A", gm=world.gm_b, by=None)  # an admin's change
        assert_ended(old_gm)
        assert_ended(old_sheet)
        received = len(old_gm.raw)
        # A later change reaches those who may still watch (the barrier), and no more reaches the old GM.
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_b)
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        assert len(old_gm.raw) == received and not any(pg_text(77, 80) in text for text in old_gm.raw)
        assert ended_at_once(server, stream_path(world), world.gm_a) == "gone"  # nor can they come back
        new_gm = Listener(server, stream_path(world), world.gm_b)
        try:
            new_gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
            new_gm.wait_for_region("log-entries", "Campaña editada")
        finally:
            new_gm.close()
        assert not player.ended.is_set()  # the player is still a member with a character
    finally:
        old_gm.close()
        old_sheet.close()
        player.close()


def test_a_player_whose_only_character_is_given_to_nobody_stops_receiving(world: World, server):
    player = Listener(server, stream_path(world), world.player_a)
    sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.player_a)
    other = Listener(server, stream_path(world), world.player_a2)
    try:
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        sheet.wait_for_region("sheet", pg_text(80, 80))
        other.wait_for_region(f"card-{world.char_a2.pk}", pg_text(120, 120))
        sheet_of = actions.Sheet("Aldara", 8)  # no player: an NPC now
        actions.edit_character(world.campaign_a, world.char_a1, sheet_of, by=world.gm_a)
        assert_ended(player)
        assert_ended(sheet)
        received = len(player.raw)
        # The barrier: a change to both characters reaches the other player; nothing more reaches the first one.
        actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Gas(turns=2), by=world.gm_a)
        other.wait_for_region(f"card-{world.char_a2.pk}", pg_text(118, 120))
        assert len(player.raw) == received and not any(pg_text(78, 80) in text for text in player.raw)
        assert not any(pg_text(78, 80) in text for text in sheet.raw)
        # a member with no character here any more
        assert ended_at_once(server, stream_path(world), world.player_a) == "gone"
        assert ended_at_once(server, stream_path(world, sheet=world.char_a1), world.player_a) == "gone"
        assert not other.ended.is_set()
    finally:
        player.close()
        sheet.close()
        other.close()


def test_a_player_who_claims_a_character_can_watch_it(world: World, server):
    assert ended_at_once(server, stream_path(world), world.outsider) == "gone"
    actions.claim_invitation(world.invite_a.token, world.outsider)
    newcomer = Listener(server, stream_path(world), world.outsider)
    try:
        newcomer.wait_for_region(f"card-{world.npc_a.pk}", pg_text(50, 50))
        actions.undo(world.campaign_a, by=world.gm_a)  # the claim is undone: no longer a member
        assert_ended(newcomer)
    finally:
        newcomer.close()


def test_deleting_a_campaign_ends_its_streams(world: World, server):
    gm = Listener(server, stream_path(world), world.gm_a)
    sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.gm_a)
    player = Listener(server, stream_path(world), world.player_a)
    try:
        for listener in (gm, sheet, player):
            listener.wait_for("change", pg_text(80, 80))
        actions.delete_campaign(world.campaign_a, by=world.gm_a, typed_name="A")
        for listener in (gm, sheet, player):
            assert_ended(listener)  # its last message: the campaign is gone
        for user in (world.gm_a, world.player_a):
            assert ended_at_once(server, stream_path(world), user) == "gone"  # and a new one ends at once
    finally:
        for listener in (gm, sheet, player):
            listener.close()


def open_raw_stream(base: str, path: str, user) -> socket.socket:
    """A stream on a bare socket, read until its first state arrived: closing the socket is a browser going away."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    cookie = session_cookies(user)["sessionid"]
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: sessionid={cookie}\r\n\r\n".encode())
    received = b""
    while b"event: change" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed: {received[:300]!r}"
        received += chunk
    return sock


def test_one_account_holds_at_most_streams_per_user_open_streams(world: World):
    with asgi_server(STREAMS_PER_USER="3") as base:
        # a table and a sheet: every screen's stream counts
        streams = [Listener(base, path, world.gm_a) for path in (stream_path(world), stream_path(world, world.char_a1))]
        raw = open_raw_stream(base, stream_path(world), world.gm_a)
        try:
            for listener in streams:
                listener.wait_for("change")
            with httpx.Client(base_url=base, cookies=session_cookies(world.gm_a), timeout=5) as client:
                refused = client.get(stream_path(world))
                assert refused.status_code == 429
                assert refused.headers["Retry-After"] == "30"
                assert "Demasiadas pantallas abiertas" in refused.text
            # another account is not affected
            player = Listener(base, stream_path(world), world.player_a)
            player.wait_for("change")
            player.close()
            # a browser going away makes room again
            raw.close()
            deadline = time.monotonic() + 10
            while True:
                with (
                    httpx.Client(base_url=base, cookies=session_cookies(world.gm_a)) as client,
                    client.stream("GET", stream_path(world)) as response,
                ):
                    if response.status_code != 429:
                        assert response.status_code == 200
                        break
                assert time.monotonic() < deadline, "the closed stream's place was never freed"
                time.sleep(0.2)
        finally:
            raw.close()
            for listener in streams:
                listener.close()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_the_stream_answers_only_get(world: World, server, method: str):
    with httpx.Client(base_url=server, cookies=session_cookies(world.gm_a), timeout=5) as client:
        client.get("/")  # the CSRF cookie: a forged request would stop at 403 before the method is looked at
        csrf = {"X-CSRFToken": client.cookies["csrftoken"]}
        assert client.request(method, stream_path(world), headers=csrf).status_code == 405


def in_own_loop(coroutine):
    """Run a coroutine on a thread of its own: this thread may already run Playwright's event loop."""
    result: list = []

    def run() -> None:
        try:
            result.append(("value", asyncio.run(coroutine)))
        except BaseException as error:
            result.append(("error", error))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    [(kind, value)] = result
    if kind == "error":
        raise value
    return value


def test_browsers_connecting_at_one_version_share_one_render_of_the_state(world: World, monkeypatch):
    from play import live
    from play.screens import view_of

    renders: list[tuple] = []
    real = live.draw

    def counted(*args):
        renders.append(args)
        return real(*args)

    monkeypatch.setattr(live, "draw", counted)
    hub = live.Hub()

    def seen(user, sheet: int | None = None, language: str = "es") -> live.Seen:
        return live.Seen(view_of(access.audience_of(user, world.campaign_a), sheet), "http://mesa", language)

    async def storm(screen: live.Seen, count: int) -> list[str | None]:
        return await asyncio.gather(*(hub.state(screen) for _ in range(count)))

    states = in_own_loop(storm(seen(world.gm_a), 60))
    assert len(set(states)) == 1 and "Aldara" in states[0]
    assert len(renders) == 1  # 60 browsers, one render
    in_own_loop(storm(seen(world.gm_a), 5))
    assert len(renders) == 1  # still the same version: still shared
    in_own_loop(storm(seen(world.player_a), 5))
    assert len(renders) == 2  # another audience sees other things: its own render
    in_own_loop(storm(seen(world.gm_a, world.char_a1.pk), 5))
    assert len(renders) == 3  # another screen of the same audience: its own render
    in_own_loop(storm(seen(world.gm_a, language="en"), 5))
    assert len(renders) == 4  # another language: its own render
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    [after] = in_own_loop(storm(seen(world.gm_a), 1))
    assert len(renders) == 5 and after != states[0]  # a new version is drawn anew
    assert in_own_loop(storm(seen(world.outsider), 1)) == [None]


def test_a_change_sends_only_the_cards_it_changed_unless_the_characters_shown_changed(world: World):
    gm = access.audience_of(world.gm_a, world.campaign_a)
    a1, a2, npc = world.char_a1.pk, world.char_a2.pk, world.npc_a.pk
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a).event
    text = streamed(gm, event=event)
    assert text is not None
    ids = region_ids(text)
    assert f"card-{a1}" in ids and f"card-actions-{a1}" in ids and "cards" not in ids
    assert f"card-{a2}" not in text and f"card-{npc}" not in text  # Borin did not change: not drawn, not sent
    assert "log-entries" in ids and "undo-button" in ids and "clock" not in ids  # the clock did not move
    # a character added: the list of cards, every card in it, and no card on its own besides
    added = actions.add_character(world.campaign_a, actions.Sheet("Eira", 9), by=world.gm_a)
    text = streamed(gm, event=added.event)
    assert text is not None
    ids = region_ids(text)
    assert "cards" in ids and not any(region.startswith("card-") for region in ids)
    cards = element_by_id(text, "cards").html
    eira = added.characters[0].pk
    assert all(f'id="card-{pk}"' in cards for pk in (a1, a2, npc, eira)) and "Eira" in cards
    assert "resting" in ids  # who rests: everyone in play
    # a player's page: only their own character, whatever changed
    player = access.audience_of(world.player_a, world.campaign_a)
    both = actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Gas(turns=1), by=world.gm_a).event
    text = streamed(player, event=both)
    assert text is not None and f"card-{a1}" in region_ids(text)
    assert not any("Borin" in element.html for element in elements_of(text) if element.id != "party")


def test_a_change_of_the_party_view_reaches_the_players_companions(world: World, server):
    """An edit of the campaign is an event about no character: each player's companions are drawn again all the
    same, as a word, as PG or not at all."""
    player = Listener(server, stream_path(world), world.player_a)

    def next_party(change) -> str:
        """The companions the player is sent after this change."""
        before = len(player.received)
        change()
        return player.wait_for_region("party", after=before)

    def view(party_view: str):
        return lambda: actions.edit_campaign(world.campaign_a, name="A", gm=world.gm_a, party_view=party_view, by=None)

    try:
        player.wait_for_region("party", "Borin")
        hurt = next_party(lambda: actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=20), by=None))
        assert "Borin" in hurt and "Herido" in hurt and "100" not in hurt
        exact = next_party(view("exact"))
        assert "PG 100/120" in exact and "Herido" not in exact
        hidden = next_party(view("hidden"))
        assert "Borin" not in hidden and "Tomás" not in hidden and "No ves a ningún otro personaje" in hidden
        assert "PG 100/120" in next_party(lambda: actions.undo(world.campaign_a, by=world.gm_a))
        # the GM's control stays theirs
        assert not any(element.id == "party-view" for message in player.changes() for element in elements_of(message))
    finally:
        player.close()
