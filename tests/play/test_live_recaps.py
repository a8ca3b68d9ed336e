"""Issue 25, game sessions live: the GM's session control reaches every tab of the GM and no player; a shared recap's
link reaches each player's page at once and goes when the share is undone; a player's stream never names a companion
kept secret, sessions or not."""

import pytest

from rules import actions
from rules.damage import Attack
from tests.helpers import World
from tests.play.streams import Listener, pg_text, stream_path

pytestmark = pytest.mark.django_db(transaction=True)


def test_sessions_reach_the_gm_and_shared_recaps_the_players(world: World, server):
    a, gm = world.campaign_a, world.gm_a
    actions.edit_character(a, world.npc_a, actions.Sheet("Tomás", 5, party_view="hidden"), by=gm)
    table = Listener(server, stream_path(world), gm)
    player = Listener(server, stream_path(world), world.player_a)
    try:
        table.wait_for_region("game-session", "Empezar la sesión 1")
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        seen = len(player.received)
        actions.start_session(a, by=gm)
        table.wait_for_region("game-session", "Sesión 1 en juego")
        actions.apply_damage(a, [world.char_a1, world.npc_a], Attack(amount=3), by=gm)
        actions.end_session(a, by=gm)
        table.wait_for_region("game-session", "Empezar la sesión 2")
        actions.share_recap(a, 1, by=gm)
        link = f"/campaigns/{a.pk}/sessions/1/"
        assert link in player.wait_for_region("recaps", "Resúmenes de sesión", after=seen)
        shared = len(player.received)
        actions.undo(a, by=gm)  # the share taken back: the link goes
        assert link not in player.wait_for_region("recaps", after=shared)
        player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        assert not any("game-session" in text for text in player.raw)
        assert not any("Tomás" in text for text in player.raw)
    finally:
        table.close()
        player.close()
