"""Live updates through real server processes, real LISTEN/NOTIFY and real SSE clients: one stream per screen (the
GM's table, a player's page, a character's sheet), whose first message is the whole screen and each later one the
regions a change touched (play.screens), and whose last one says why it ends."""

import time
from collections import Counter

import httpx
import pytest
from django.db import connection

from campaigns.models import Event, Visit
from characters.models import Character
from play.screens.drawing import Screen
from play.screens.regions import SCREENS
from rules import actions
from rules.damage import Attack, Gas
from tests.helpers import World
from tests.play.streams import Listener, ended_at_once, pg_text, post_damage, session_cookies, stream_path
from tests.regions import element_by_id, elements_of, region_ids
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)

TAB = "a1b2c3d4e5f6a1b2c3d4e5f6"  # a browser tab's id, as static/js/screen.js makes one
OTHER_TAB = "0f1e2d3c4b5a0f1e2d3c4b5a"


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


def test_a_post_to_one_process_reaches_a_client_of_another(world: World, server):
    first = server
    with asgi_server() as second:  # a second process: the change must cross from one to the other
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


def test_the_tab_that_acted_counts_its_change_as_seen_with_another_tab_open(world: World, server):
    """The GM's own blow is no news at their next visit ("Desde tu última visita"): the tab that made it had it in its
    answer. A reload draws the new page before the old page's stream has ended (and marked what it showed): the blow
    is no news there either. When that stream ends, the account's mark moves past it, also while another tab of the
    same table is open (that tab's stream got the change, and the acting tab's left it out)."""
    table = f"/campaigns/{world.campaign_a.pk}/"
    with httpx.Client(base_url=server, cookies=session_cookies(world.gm_a)) as gm:
        assert "since-visit" not in gm.get(table).text  # the GM's first visit: their mark is made
        acting = Listener(server, stream_path(world, tab=TAB), world.gm_a)
        other = Listener(server, stream_path(world, tab=OTHER_TAB), world.gm_a)
        try:
            for listener in (acting, other):
                listener.wait_for("change", pg_text(80, 80))
            post_damage(gm, server, world, turns=5, tab=TAB)
            other.wait_for_region(f"card-{world.char_a1.pk}", pg_text(75, 80))
            event = Event.objects.latest("id").pk
            assert "since-visit" not in gm.get(table).text  # a reload, drawn while the old page's stream is open
            acting.leave()  # the acting tab's old page goes, while the other tab stays open
            for _ in range(100):  # real time, not campaign time: the server notices the closed stream within moments
                if Visit.objects.filter(user=world.gm_a, campaign=world.campaign_a, seen__gte=event).exists():
                    break
                time.sleep(0.1)
            else:
                raise AssertionError(f"the mark {Visit.objects.get(user=world.gm_a).seen} never reached {event}")
            assert "since-visit" not in gm.get(table).text
        finally:
            acting.close()
            other.close()


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
            # This test database's listeners only: another pytest worker's (its own database) goes on listening.
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE query ILIKE 'LISTEN %%' AND pid <> pg_backend_pid() AND datname = current_database()"
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
