"""Live access follows membership (issue 9): who keeps receiving a campaign's changes, and who stops."""

import asyncio
import socket
import threading
import time

import httpx
import pytest

from campaigns import access
from rules import actions
from rules.damage import Attack, Gas
from tests.helpers import World, streamed
from tests.play.streams import Listener, ended_at_once, pg_text, screens_with, session_cookies, stream_path
from tests.regions import element_by_id, elements_of, region_ids
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)

TAB = "a1b2c3d4e5f6a1b2c3d4e5f6"  # a browser tab's id, as static/js/screen.js makes one
OTHER_TAB = "0f1e2d3c4b5a0f1e2d3c4b5a"


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
    from play.live import streams as live
    from play.screens import streamed as live_drawing
    from play.screens.answers import Seen
    from play.screens.drawing import view_of

    renders: list[tuple] = []  # the hub's drawings of a whole screen (none of these screens was drawn before)
    real = live_drawing.draw_state

    def counted(*args):
        renders.append(args)
        return real(*args)

    screens_with(monkeypatch, whole=counted)
    hub = live.Hub()

    def seen(user, sheet: int | None = None, language: str = "es") -> Seen:
        return Seen(view_of(access.audience_of(user, world.campaign_a), sheet), "http://mesa", language)

    async def storm(screen: Seen, count: int) -> list[bytes | None]:
        return await asyncio.gather(*(hub.state(screen) for _ in range(count)))

    states = in_own_loop(storm(seen(world.gm_a), 60))
    assert len(set(states)) == 1 and b"Aldara" in states[0]
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
