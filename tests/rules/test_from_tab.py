"""An action taken from a browser tab (rules.actions.FromTab: what a screen's htmx request passes) holds exactly the
rights of its account, no more and no fewer: the tab only names who gets the change in an answer. Three callers once
asked the rights of the tab itself, which no tab holds, and refused the owner (mypy found them): undo, the handing over
of a campaign and the answer to a called check."""

import pytest
from django.urls import reverse

from campaigns.models import Event
from characters.models import Character
from rules import actions
from rules.actions import Call, FromTab
from rules.damage import Attack
from rules.models import CalledCheck, CheckKind
from tests.helpers import HTMX, World, client_for

pytestmark = pytest.mark.django_db

TAB = "a1b2c3d4e5f6a1b2c3d4e5f6"


def test_the_owner_from_a_tab_undoes_an_owner_only_event_and_a_co_gm_from_a_tab_is_refused(world: World):
    link = actions.create_co_gm_invitation(world.campaign_a, by=FromTab(world.gm_a, TAB)).event
    assert link is not None and link.actor_id == world.gm_a.pk  # logged as the account, not as the tab
    with pytest.raises(actions.ActionError, match="quien creó la campaña"):
        actions.undo(world.campaign_a, by=FromTab(world.co_gm, TAB), event=link.pk)
    assert not Event.objects.get(pk=link.pk).undone
    actions.undo(world.campaign_a, by=FromTab(world.gm_a, TAB), event=link.pk)
    undone = Event.objects.get(pk=link.pk)
    assert undone.undone and undone.undone_by_id == world.gm_a.pk


def test_an_owner_only_undo_posted_from_a_co_gms_tab_is_refused_and_from_the_owners_is_done(world: World):
    link = actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a).event
    assert link is not None
    url = reverse("undo", args=[world.campaign_a.pk])
    data = {"event": str(link.pk)}
    refused = client_for(world.co_gm).post(url, data, **HTMX, HTTP_X_TAB=TAB)
    assert refused.status_code == 200 and "solo puede deshacerlo quien creó la campaña" in refused.content.decode()
    assert not Event.objects.get(pk=link.pk).undone
    done = client_for(world.gm_a).post(url, data, **HTMX, HTTP_X_TAB=TAB)
    assert done.status_code == 200 and done["X-Regions"] == "1"
    assert Event.objects.get(pk=link.pk).undone


def test_only_the_owner_from_a_tab_hands_the_campaign_over(world: World):
    with pytest.raises(actions.ActionError, match="Solo quien creó la campaña"):
        actions.edit_campaign(world.campaign_a, gm=world.co_gm, by=FromTab(world.co_gm, TAB))
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.gm_id == world.gm_a.pk
    actions.edit_campaign(world.campaign_a, gm=world.co_gm, by=FromTab(world.gm_a, TAB))
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.gm_id == world.co_gm.pk


def test_a_called_check_is_answered_from_its_players_tab_and_refused_from_anothers(world: World):
    actions.call_check(
        world.campaign_a, [world.char_a1], Call(CheckKind.FALL, height_m=10, difficulty=15), by=world.gm_a
    )
    check = CalledCheck.objects.get(character=world.char_a1)
    with pytest.raises(actions.ActionError, match="Solo su jugador o el narrador"):
        actions.answer_check(world.campaign_a, check, by=FromTab(world.player_a2, TAB), die=10)
    outcome = actions.answer_check(world.campaign_a, check, by=FromTab(world.player_a, TAB), die=10)
    assert outcome.event is not None and outcome.event.actor_id == world.player_a.pk
    assert outcome.event.details["call"]["by"] == world.player_a.username


def test_a_player_from_a_tab_holds_no_table_right(world: World):
    with pytest.raises(actions.ActionError):
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=FromTab(world.player_a, TAB))
    assert Character.objects.get(pk=world.char_a1.pk).pg == world.char_a1.pg
