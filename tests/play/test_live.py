"""Live updates through real server processes, real LISTEN/NOTIFY and real SSE clients."""

import asyncio
import re
import socket
import threading
import time

import httpx
import pytest
from django.db import connection
from django.test import Client
from httpx_sse import connect_sse

from characters.models import Character
from rules import actions
from rules.damage import Attack, Gas
from tests.helpers import World
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server():
    with asgi_server() as base:
        yield base


def session_cookies(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


class Listener:
    """An SSE client on its own thread; events land in a queue so a test can wait for them with a deadline."""

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

    def close(self) -> None:
        self.client.close()


def pg_text(pg: int, max_pg: int) -> str:
    return f'<strong class="pg-value">{pg}</strong> / {max_pg}'


def stream_path(world: World) -> str:
    return f"/campaigns/{world.campaign_a.pk}/stream/"


def test_a_change_reaches_a_connected_client(world: World, server):
    gm = Listener(server, stream_path(world), world.gm_a)
    try:
        gm.wait_for("cards", pg_text(80, 80))  # the current state comes first
        gm.wait_for("clock", "Día 1, 00:00")
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
        gm.wait_for("cards", pg_text(68, 80))
        gm.wait_for("log", "Aldara pierde 12 PG")
        actions.advance_clock(world.campaign_a, 86400, by=world.gm_a)
        gm.wait_for("clock", "Día 2, 00:00")
    finally:
        gm.close()


def test_a_post_to_one_process_reaches_a_client_of_another(world: World):
    with asgi_server() as first, asgi_server() as second:
        player = Listener(second, stream_path(world), world.player_a)
        try:
            player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(80, 80))
            with httpx.Client(base_url=first, cookies=session_cookies(world.gm_a)) as gm:
                page = gm.get(f"/campaigns/{world.campaign_a.pk}/")
                token = re.search(r'"X-CSRFToken": "([^"]+)"', page.text).group(1)
                response = gm.post(
                    f"/campaigns/{world.campaign_a.pk}/act/damage/",
                    data={"kind": "gas", "turns": "5", "characters": world.char_a1.pk},
                    headers={"X-CSRFToken": token, "HX-Request": "true", "Referer": first + "/"},
                )
                assert response.status_code == 200
            player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(75, 80))
        finally:
            player.close()


def test_a_player_stream_carries_only_their_own_character(world: World, server):
    player = Listener(server, stream_path(world), world.player_a)
    try:
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(80, 80))
        # A change to the player's character and to others at once: the player sees their own part of it…
        actions.apply_damage(
            world.campaign_a, [world.char_a1, world.char_a2, world.npc_a], Attack(amount=3), by=world.gm_a
        )
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(77, 80))
        # …then a change to the others only, which must not reach the player at all.
        actions.apply_damage(world.campaign_a, [world.char_a2, world.npc_a], Attack(amount=4), by=world.gm_a)
        # The barrier: a later change the player does see. Changes reach a stream in the order they were committed, so
        # once this one has arrived, everything sent for the ones before it has arrived too.
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(75, 80))
        # The others' cards, sheets and actions never come; they are only companions, as a word (the campaign's
        # party view: tests/play/test_party.py tries them all).
        everything = "\n".join(raw for raw in player.raw if not raw.startswith("party\n"))
        others = (world.char_a2, world.npc_a)
        assert not any(f'id="character-{c.pk}"' in everything or f"sheet-{c.pk}" in everything for c in others)
        assert "Borin" not in everything and "Tomás" not in everything and "/act/" not in everything
        party = player.wait_for("party", "Herido")
        assert "Borin" in party and "Tomás" in party and "PG" not in party and "/act/" not in party
        assert not any(event == "log" for event, _data in player.received)  # the GM's log stays with the GM
    finally:
        player.close()


def test_outsiders_cannot_open_the_stream(world: World, server):
    for user in (world.gm_b, world.outsider):
        with httpx.Client(base_url=server, cookies=session_cookies(user)) as client:
            assert client.get(stream_path(world)).status_code == 404
    with httpx.Client(base_url=server) as anonymous:
        assert anonymous.get(stream_path(world)).status_code == 302


def test_the_stream_recovers_when_the_listener_connection_is_killed(world: World, server):
    gm = Listener(server, stream_path(world), world.gm_a)
    try:
        gm.wait_for("cards", pg_text(80, 80))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE query ILIKE 'LISTEN %%' AND pid <> pg_backend_pid()"
            )
            assert cursor.fetchone()[0] >= 1
        # A change made while the listener is down is not lost: the reconnect resends the current state.
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
        gm.wait_for("cards", pg_text(75, 80), timeout=20)
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
        gm.wait_for("cards", pg_text(70, 80), timeout=20)
    finally:
        gm.close()
    assert Character.objects.get(pk=world.char_a1.pk).pg == 70


# --- live access follows membership (issue 9) ------------------------------------------------------------------------


def stream_status(base: str, world: World, user) -> int:
    with (
        httpx.Client(base_url=base, cookies=session_cookies(user)) as client,
        client.stream("GET", stream_path(world)) as response,
    ):
        return response.status_code


def test_a_replaced_gm_stops_receiving_and_the_new_one_can_watch(world: World, server):
    old_gm = Listener(server, stream_path(world), world.gm_a)
    player = Listener(server, stream_path(world), world.player_a)
    try:
        old_gm.wait_for("cards", pg_text(80, 80))
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(80, 80))
        actions.edit_campaign(world.campaign_a, name="A", gm=world.gm_b, by=None)  # an admin's change
        assert old_gm.ended.wait(15), "the old GM's stream is still open"
        received = len(old_gm.raw)
        # A later change reaches those who may still watch (the barrier), and no more reaches the old GM.
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_b)
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(77, 80))
        assert len(old_gm.raw) == received and not any(pg_text(77, 80) in text for text in old_gm.raw)
        assert stream_status(server, world, world.gm_a) == 404  # nor can they come back
        new_gm = Listener(server, stream_path(world), world.gm_b)
        try:
            new_gm.wait_for("cards", pg_text(77, 80))
            new_gm.wait_for("log", "Campaña editada")
        finally:
            new_gm.close()
        assert not player.ended.is_set()  # the player is still a member with a character
    finally:
        old_gm.close()
        player.close()


def test_a_player_whose_only_character_is_given_to_nobody_stops_receiving(world: World, server):
    player = Listener(server, stream_path(world), world.player_a)
    other = Listener(server, stream_path(world), world.player_a2)
    try:
        player.wait_for(f"sheet-{world.char_a1.pk}", pg_text(80, 80))
        other.wait_for(f"sheet-{world.char_a2.pk}", pg_text(120, 120))
        sheet = actions.Sheet("Aldara", 8)  # no player: an NPC now
        actions.edit_character(world.campaign_a, world.char_a1, sheet, by=world.gm_a)
        assert player.ended.wait(15), "the player's stream is still open"
        received = len(player.raw)
        # The barrier: a change to both characters reaches the other player; nothing more reaches the first one.
        actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Gas(turns=2), by=world.gm_a)
        other.wait_for(f"sheet-{world.char_a2.pk}", pg_text(118, 120))
        assert len(player.raw) == received and not any(pg_text(78, 80) in text for text in player.raw)
        assert stream_status(server, world, world.player_a) == 404  # a member with no character here any more
        assert not other.ended.is_set()
    finally:
        player.close()
        other.close()


def test_a_player_who_claims_a_character_can_watch_it(world: World, server):
    assert stream_status(server, world, world.outsider) == 404
    actions.claim_invitation(world.invite_a.token, world.outsider)
    newcomer = Listener(server, stream_path(world), world.outsider)
    try:
        newcomer.wait_for(f"sheet-{world.npc_a.pk}", pg_text(50, 50))
        actions.undo(world.campaign_a, by=world.gm_a)  # the claim is undone: no longer a member
        assert newcomer.ended.wait(15), "the stream outlived the membership"
    finally:
        newcomer.close()


def open_raw_stream(base: str, path: str, user) -> socket.socket:
    """A stream on a bare socket, read until its first state arrived: closing the socket is a browser going away."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    cookie = session_cookies(user)["sessionid"]
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: sessionid={cookie}\r\n\r\n".encode())
    received = b""
    while b"event: clock" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the stream closed: {received[:300]!r}"
        received += chunk
    return sock


def test_one_account_holds_at_most_streams_per_user_open_streams(world: World):
    with asgi_server(STREAMS_PER_USER="3") as base:
        streams = [Listener(base, stream_path(world), world.gm_a) for _ in range(2)]
        raw = open_raw_stream(base, stream_path(world), world.gm_a)
        try:
            for listener in streams:
                listener.wait_for("clock")
            with httpx.Client(base_url=base, cookies=session_cookies(world.gm_a), timeout=5) as client:
                refused = client.get(stream_path(world))
                assert refused.status_code == 429
                assert refused.headers["Retry-After"] == "30"
                assert "Demasiadas pantallas abiertas" in refused.text
            # another account is not affected
            player = Listener(base, stream_path(world), world.player_a)
            player.wait_for("clock")
            player.close()
            # a browser going away makes room again
            raw.close()
            deadline = time.monotonic() + 10
            while stream_status(base, world, world.gm_a) == 429:
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
    from campaigns import access
    from play import live

    renders: list[tuple] = []
    real = live.render_fragments

    def counted(*args):
        renders.append(args)
        return real(*args)

    monkeypatch.setattr(live, "render_fragments", counted)
    hub = live.Hub()
    gm = access.audience_of(world.gm_a, world.campaign_a)
    player = access.audience_of(world.player_a, world.campaign_a)

    async def storm(audience, count: int) -> list[str | None]:
        return await asyncio.gather(*(hub.state(audience, "http://mesa", "es") for _ in range(count)))

    states = in_own_loop(storm(gm, 60))
    assert len(set(states)) == 1 and "Aldara" in states[0]
    assert len(renders) == 1  # 60 browsers, one render
    in_own_loop(storm(gm, 5))
    assert len(renders) == 1  # still the same version: still shared
    in_own_loop(storm(player, 5))
    assert len(renders) == 2  # another audience sees other things: its own render
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    [after] = in_own_loop(storm(gm, 1))
    assert len(renders) == 3 and after != states[0]  # a new version is drawn anew
    assert in_own_loop(storm(access.audience_of(world.outsider, world.campaign_a), 1)) == [None]


def test_a_change_sends_only_the_cards_it_changed_unless_the_characters_shown_changed(world: World):
    from campaigns import access
    from play.live import Shown, render_fragments

    gm = access.audience_of(world.gm_a, world.campaign_a)
    everyone = Shown(frozenset({world.char_a1.pk, world.char_a2.pk, world.npc_a.pk}))
    text, shown = render_fragments(gm, "http://mesa", "es", (world.char_a1.pk,), everyone)
    assert shown == everyone
    assert f"event: card-{world.char_a1.pk}\n" in text and "event: cards\n" not in text
    assert f"event: card-{world.char_a2.pk}\n" not in text  # Borin did not change: not re-rendered, not re-sent
    assert "event: log\n" in text and "event: undo\n" in text and "event: clock\n" in text
    # a character the screens do not show yet (added elsewhere): every card, so that it appears
    text, shown = render_fragments(
        gm, "http://mesa", "es", (world.char_a1.pk,), Shown(everyone.cards - {world.npc_a.pk})
    )
    assert "event: cards\n" in text and "Tomás" in text and shown == everyone
    # a player's screens: only their own character, whatever changed
    player = access.audience_of(world.player_a, world.campaign_a)
    text, shown = render_fragments(
        player, "http://mesa", "es", (world.char_a1.pk, world.char_a2.pk), Shown(frozenset({world.char_a1.pk}))
    )
    assert shown.cards == {world.char_a1.pk} and f"event: card-{world.char_a1.pk}\n" in text
    events = text.split("\n\n")
    assert not any("Borin" in event for event in events if not event.startswith("event: party\n"))


def test_a_change_of_the_party_view_reaches_the_players_companions(world: World, server):
    """An edit of the campaign is an event about no character: each player's companions are drawn again all the
    same, as a word, as PG or not at all."""
    player = Listener(server, stream_path(world), world.player_a)

    def next_party(change) -> str:
        """The companions the player is sent after this change."""
        before = len(player.received)
        change()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            sent = [data for event, data in player.received[before:] if event == "party"]
            if sent:
                return sent[-1]
            time.sleep(0.05)
        raise AssertionError(f"no companions sent; got {player.raw[-3:]}")

    def view(party_view: str):
        return lambda: actions.edit_campaign(world.campaign_a, name="A", gm=world.gm_a, party_view=party_view, by=None)

    try:
        player.wait_for("party", "Borin")
        hurt = next_party(lambda: actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=20), by=None))
        assert "Borin" in hurt and "Herido" in hurt and "100" not in hurt
        exact = next_party(view("exact"))
        assert "PG 100/120" in exact and "Herido" not in exact
        hidden = next_party(view("hidden"))
        assert "Borin" not in hidden and "Tomás" not in hidden and "No ves a ningún otro personaje" in hidden
        assert "PG 100/120" in next_party(lambda: actions.undo(world.campaign_a, by=world.gm_a))
        assert not any(event == "party-view" for event, _data in player.received)  # the GM's control stays theirs
    finally:
        player.close()
