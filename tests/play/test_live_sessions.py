"""A live stream ends with its session (issue 23): a password changed elsewhere or an account made inactive ends the
streams of every session that no longer signs the account in, within seconds, in every process; a reconnect is told
its session ended, as for a visitor who is not signed in. The session that changed its own password keeps its
streams (Django gives it the new hash right after the change). What no signal tells (a bulk update, a session row
deleted) ends the stream too, at the next sweep."""

from importlib import import_module

import httpx
import pytest
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from rules import actions
from rules.damage import Gas
from tests.helpers import World, notify_listener
from tests.play.streams import Listener, pg_text, stream_path

pytestmark = pytest.mark.django_db(transaction=True)


def opened(server: str, world: World, user) -> Listener:
    listener = Listener(server, stream_path(world), user)
    listener.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
    return listener


def assert_session_ended(listener: Listener) -> None:
    assert listener.ended.wait(15), "the stream is still open"
    assert listener.received[-1] == ("end", "session"), listener.raw[-2:]


def reconnect(server: str, world: World, listener: Listener) -> str:
    """The same browser (its session cookie) opening the stream again."""
    with httpx.Client(base_url=server, cookies=dict(listener.client.cookies), timeout=10) as client:
        return client.get(stream_path(world)).text


def change_password(user) -> None:
    user.set_password("a-new-pass-phrase")
    user.save()  # as the admin's "change password" form does


def make_inactive(user) -> None:
    user.is_active = False
    user.save()


@pytest.mark.parametrize("change, changed", [(change_password, "gm_a"), (make_inactive, "player_a")])
def test_an_account_changed_elsewhere_loses_its_streams_and_no_one_else_does(world: World, server, change, changed):
    gm, player = opened(server, world, world.gm_a), opened(server, world, world.player_a)
    ending, going_on = (gm, player) if changed == "gm_a" else (player, gm)
    try:
        change(getattr(world, changed))
        assert_session_ended(ending)
        assert reconnect(server, world, ending) == "event: end\ndata: session\n\n"
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_a)
        going_on.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))  # another account's stream goes on
        assert not going_on.ended.is_set()
    finally:
        gm.close()
        player.close()


def test_the_session_that_changed_its_own_password_keeps_its_stream(world: World, server):
    mine, other = opened(server, world, world.gm_a), opened(server, world, world.gm_a)
    try:
        world.gm_a.set_password("a-new-pass-phrase")
        world.gm_a.save()
        # What django.contrib.auth.update_session_auth_hash does for the session that made the change.
        session = import_module(settings.SESSION_ENGINE).SessionStore(mine.client.cookies["sessionid"])
        session[HASH_SESSION_KEY] = world.gm_a.get_session_auth_hash()
        session.save()
        assert_session_ended(other)
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_a)
        mine.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        assert not mine.ended.is_set()
    finally:
        mine.close()
        other.close()


def test_a_login_does_not_touch_anyones_streams(world: World, server):
    gm = opened(server, world, world.gm_a)
    try:
        with notify_listener() as listener:
            Client().force_login(world.gm_a)  # a login saves the account's last_login: no account change
            assert list(listener.notifies(timeout=1)) == []
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=3), by=world.gm_a)
        gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        assert not gm.ended.is_set()
    finally:
        gm.close()


def deactivated_in_bulk(user, session_key: str) -> None:
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)  # no save, no signal


def session_row_deleted(user, session_key: str) -> None:
    Session.objects.filter(session_key=session_key).delete()  # as a hand in the database would


@pytest.mark.parametrize("change", [deactivated_in_bulk, session_row_deleted])
def test_what_no_signal_tells_still_ends_the_stream_within_15_seconds(world: World, server, change):
    """Each process asks again of all its streams' sessions every SESSION_SWEEP_SECONDS (Hub.sweep)."""
    player, gm = opened(server, world, world.player_a), opened(server, world, world.gm_a)
    try:
        change(world.player_a, player.client.cookies["sessionid"])
        assert_session_ended(player)
        assert reconnect(server, world, player) == "event: end\ndata: session\n\n"
        assert not gm.ended.is_set()
    finally:
        gm.close()
        player.close()
