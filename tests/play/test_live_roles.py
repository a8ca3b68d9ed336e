"""Issue 48 (items 8 and 10): a screen drawn for one role ends, saying so, once its person holds the other. A player
made co-GM: their page's stream ends with "role" (a reload draws the table), and a stream asked for as a player's
page by a co-GM ends at once the same way. A removed co-GM's table ends with "gone", or "role" if they play here. An
action refused with 404 says what the account is at the campaign now (X-Standing), so the table gives the right reason.
"""

import pytest
from django.urls import reverse

from rules import actions
from tests.helpers import HTMX, World, client_for
from tests.play.streams import Listener, ended_at_once, pg_text, stream_path

pytestmark = pytest.mark.django_db(transaction=True)


def made_co_gm(world: World, user) -> None:
    actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a)
    actions.claim_invitation(world.campaign_a.invitations.get(role="gm", claimed_by=None).token, user)


def test_a_players_page_ends_saying_they_now_run_the_campaign(world: World, server):
    page = Listener(server, stream_path(world), world.player_a)
    sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.player_a)
    try:
        page.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        sheet.wait_for_region("sheet", pg_text(80, 80))
        made_co_gm(world, world.player_a)
        for listener in (page, sheet):
            assert listener.ended.wait(15), "the stream is still open"
            assert listener.received[-1] == ("end", "role"), listener.raw[-2:]
    finally:
        page.close()
        sheet.close()
    # A page drawn for the player that connects again (its stream's retry) is told at once, not sent the table.
    assert ended_at_once(server, stream_path(world) + "?as=player", world.player_a) == "role"
    as_gm = Listener(server, stream_path(world) + "?as=gm", world.player_a)
    try:
        as_gm.wait_for_region(f"card-{world.char_a2.pk}", pg_text(120, 120))  # the table: Borin too
    finally:
        as_gm.close()


def test_a_removed_co_gms_table_asked_again_is_told_why(world: World, server):
    made_co_gm(world, world.player_a)
    actions.remove_co_gm(world.campaign_a, world.player_a, by=world.gm_a)
    assert ended_at_once(server, stream_path(world) + "?as=gm", world.player_a) == "role"  # still plays Aldara
    actions.remove_co_gm(world.campaign_a, world.co_gm, by=world.gm_a)
    assert ended_at_once(server, stream_path(world) + "?as=gm", world.co_gm) == "gone"


@pytest.mark.django_db  # requests one after another on this thread: a browser test's event loop is not on it then
def test_a_refused_action_says_what_the_account_is_at_the_campaign_now(world: World):
    url = reverse("damage", args=[world.campaign_a.pk])
    blow = {"kind": "attack", "fields_for": "attack", "amount": "3", "characters": [world.char_a1.pk]}
    made_co_gm(world, world.player_a)
    actions.remove_co_gm(world.campaign_a, world.player_a, by=world.gm_a)
    actions.remove_co_gm(world.campaign_a, world.co_gm, by=world.gm_a)
    for user, standing in ((world.co_gm, "none"), (world.player_a, "player"), (world.outsider, "none")):
        response = client_for(user).post(url, blow, **HTMX)
        assert (response.status_code, response.headers.get("X-Standing")) == (404, standing), user
    # The GM's 404 about something gone (a character removed in another tab) says they still run it.
    response = client_for(world.gm_a).get(f"{url}?character=999999", **HTMX)
    assert (response.status_code, response.headers.get("X-Standing")) == (404, "gm")
    # A plain browser gets the site's own 404 page, as before.
    assert "X-Standing" not in client_for(world.co_gm).post(url, blow).headers
