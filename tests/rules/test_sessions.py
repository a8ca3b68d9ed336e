"""Game sessions (rules.actions.game_sessions): started, ended, their recap shared — each a log entry that undo
reverses; refusals in words that change nothing; two starts at once make one session."""

import pytest

from campaigns.models import Campaign, Event, GameSession
from rules import actions
from rules.damage import Attack
from rules.events import EventKind
from tests.helpers import World, refused, run_at_once


def sessions(world: World) -> list[tuple[int, bool, bool]]:
    """Each session of campaign A: its number, whether it is open, whether its recap is shared."""
    return [(s.number, s.open, s.shared) for s in GameSession.objects.filter(campaign=world.campaign_a)]


def test_start_end_and_start_again_number_the_sessions(world: World):
    a, gm = world.campaign_a, world.gm_a
    started = actions.start_session(a, by=gm).event
    assert started is not None and started.action == EventKind.SESSION_STARTED
    assert sessions(world) == [(1, True, False)]
    actions.apply_damage(a, [world.char_a1], Attack(amount=3), by=gm)
    ended = actions.end_session(a, by=gm, number=1).event
    assert ended is not None and ended.action == EventKind.SESSION_ENDED
    actions.start_session(a, by=gm, number=2)
    assert sessions(world) == [(1, False, False), (2, True, False)]
    first = GameSession.objects.get(campaign=a, number=1)
    assert (first.started_id, first.ended_id) == (started.pk, ended.pk)
    assert Event.objects.filter(campaign=a).count() == 4


def test_refusals_say_why_and_change_nothing(world: World):
    a, gm = world.campaign_a, world.gm_a
    assert "No hay ninguna sesión" in refused(world, lambda: actions.end_session(a, by=gm)).message
    actions.start_session(a, by=gm)
    assert "ya está empezada" in refused(world, lambda: actions.start_session(a, by=gm)).message
    assert "No hay ninguna sesión" in refused(world, lambda: actions.end_session(a, by=gm, number=2)).message
    actions.end_session(a, by=gm)
    assert "ya se empezó" in refused(world, lambda: actions.start_session(a, by=gm, number=1)).message
    assert "no existe" in refused(world, lambda: actions.share_recap(a, 7, by=gm)).message
    assert "no está compartido" in refused(world, lambda: actions.share_recap(a, 1, by=gm, shared=False)).message
    actions.share_recap(a, 1, by=gm)
    assert "ya está compartido" in refused(world, lambda: actions.share_recap(a, 1, by=gm)).message
    assert "no existe" in refused(world, lambda: actions.share_recap(world.campaign_b, 1, by=world.gm_b)).message


def test_each_is_undone_in_turn(world: World):
    a, gm = world.campaign_a, world.gm_a
    actions.start_session(a, by=gm)
    actions.end_session(a, by=gm)
    actions.share_recap(a, 1, by=gm)
    actions.share_recap(a, 1, by=gm, shared=False)
    assert sessions(world) == [(1, False, False)]
    actions.undo(a, by=gm)
    assert sessions(world) == [(1, False, True)]  # shared again
    actions.undo(a, by=gm)
    assert sessions(world) == [(1, False, False)]
    actions.undo(a, by=gm)
    assert sessions(world) == [(1, True, False)]  # being played again
    actions.undo(a, by=gm)
    assert sessions(world) == []
    actions.start_session(a, by=gm)
    assert sessions(world) == [(1, True, False)]  # its number is free again


def test_the_log_of_other_campaigns_is_its_own(world: World):
    actions.start_session(world.campaign_a, by=world.gm_a)
    actions.start_session(world.campaign_b, by=world.gm_b)
    assert GameSession.objects.filter(campaign=world.campaign_b, number=1).exists()
    assert sessions(world) == [(1, True, False)]


@pytest.mark.django_db(transaction=True)
def test_two_starts_at_once_make_one_session(world: World):
    campaign_id, gm = world.campaign_a.pk, world.gm_a
    errors = run_at_once([lambda: actions.start_session(campaign_id, by=gm, number=1) for _ in range(4)])
    assert len(errors) == 3 and all(isinstance(error, actions.ActionError) for error in errors)
    assert sessions(world) == [(1, True, False)]
    assert Event.objects.filter(campaign_id=campaign_id, action=EventKind.SESSION_STARTED).count() == 1
    assert Campaign.objects.get(pk=campaign_id).version == 1
