"""Co-GMs live (issue 25 part 3): a co-GM watches the same table as the owner, drawn once for every GM; a removed
co-GM's open streams end at the next change and cannot come back, and the undo of the removal lets them in again."""

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from campaigns import access
from rules import actions
from rules.damage import Attack, Gas
from rules.notify import Change
from tests.helpers import World
from tests.play.streams import Listener, ended_at_once, pg_text, stream_path


def assert_ended(listener: Listener, why: str = "gone") -> None:
    assert listener.ended.wait(15), "the stream is still open"
    assert listener.received[-1] == ("end", why), listener.raw[-2:]


@pytest.mark.django_db(transaction=True)
def test_a_removed_co_gms_streams_end_and_the_undo_lets_them_back(world: World, server):
    co_gm = Listener(server, stream_path(world), world.co_gm)
    co_sheet = Listener(server, stream_path(world, sheet=world.char_a1), world.co_gm)
    owner = Listener(server, stream_path(world), world.gm_a)
    try:
        co_gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        co_sheet.wait_for_region("sheet", pg_text(80, 80))
        owner.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        # What the co-GM does reaches the owner, named as theirs in the log.
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=1), by=world.co_gm)
        owner.wait_for_region(f"card-{world.char_a1.pk}", pg_text(79, 80))
        owner.wait_for_region("log-entries", "· co_gm")
        co_gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(79, 80))
        removal = actions.remove_co_gm(world.campaign_a, world.co_gm, by=world.gm_a).event
        assert_ended(co_gm)
        assert_ended(co_sheet)
        received = len(co_gm.raw)
        # The barrier: a later change reaches the owner, nothing more reaches the removed co-GM.
        actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=2), by=world.gm_a)
        owner.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
        assert len(co_gm.raw) == received and not any(pg_text(77, 80) in text for text in co_gm.raw)
        assert ended_at_once(server, stream_path(world), world.co_gm) == "gone"
        assert not owner.ended.is_set()
    finally:
        for listener in (co_gm, co_sheet, owner):
            listener.close()
    actions.undo(world.campaign_a, by=world.gm_a)  # the last damage
    actions.undo(world.campaign_a, by=world.gm_a, event=removal)  # the removal: the co-GM is back
    back = Listener(server, stream_path(world), world.co_gm)
    try:
        back.wait_for_region(f"card-{world.char_a1.pk}", pg_text(79, 80))
    finally:
        back.close()
    assert access.is_gm(world.co_gm, world.campaign_a)


@pytest.mark.django_db(transaction=True)
def test_a_player_removed_as_co_gm_watches_again_as_the_player_they_are(world: World, server):
    actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a)
    actions.claim_invitation(world.campaign_a.invitations.get(role="gm").token, world.player_a)
    as_gm = Listener(server, stream_path(world), world.player_a)
    try:
        as_gm.wait_for_region(f"card-{world.char_a2.pk}", pg_text(120, 120))  # the whole table: Borin too
        actions.remove_co_gm(world.campaign_a, world.player_a, by=world.gm_a)
        assert_ended(as_gm, "role")  # still a player here: the table ends saying so (issue 48)
    finally:
        as_gm.close()
    as_player = Listener(server, stream_path(world), world.player_a)
    try:
        text = as_player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        assert f"card-{world.char_a2.pk}" not in text  # a player's page: their own card only
    finally:
        as_player.close()


def test_every_gm_is_drawn_once_for_a_change(world: World, monkeypatch):
    """docs/architecture.md principle 3: a change costs the same however many watch. The owner's and a co-GM's tables
    are one drawing; the co-GM costs one query more (whether they are still a co-GM), not a second drawing."""
    from play.screens import answers, streamed
    from play.screens.drawing import view_of

    draws: list[object] = []
    real = answers.draw

    def counted(*args):
        draws.append(args)
        return real(*args)

    monkeypatch.setattr(answers, "draw", counted)
    monkeypatch.setattr(connections["default"], "close", lambda: None)  # draw_change gives a worker's connection back

    def seen(user, sheet: int | None = None) -> answers.Seen:
        return answers.Seen(view_of(access.audience_of(user, world.campaign_a), sheet), "http://mesa", "es")

    def cost(views: set) -> tuple[int, dict]:
        draws.clear()
        event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=1), by=world.gm_a).event
        with CaptureQueriesContext(connection) as queries:
            drawn = streamed.draw_change(Change(world.campaign_a.pk, None, event.pk), views)
        return len(queries), drawn

    alone, _ = cost({seen(world.gm_a)})
    assert len(draws) == 1
    together, drawn = cost({seen(world.gm_a), seen(world.co_gm)})
    assert len(draws) == 1 and together <= alone + 1, (alone, together)
    assert drawn[seen(world.gm_a)] == drawn[seen(world.co_gm)] and "Aldara" in drawn[seen(world.co_gm)]
    cost({seen(world.gm_a, world.char_a1.pk), seen(world.co_gm, world.char_a1.pk)})
    assert len(draws) == 1  # their sheets too
    cost({seen(world.gm_a), seen(world.player_a)})
    assert len(draws) == 2  # a player sees other things: a drawing of their own
