"""A character taken out of the campaign owes no check any more (issue 23): the removal calls off its pending checks,
the GM's list of calls no longer offers "Anotar" for it, and an undo of the removal calls them again."""

from django.urls import reverse

from rules import actions
from rules.actions import Call
from rules.models import CalledCheck, CheckKind
from tests.helpers import World, client_for
from tests.regions import element_by_id

FALL = Call(CheckKind.FALL, height_m=10, difficulty=15)


def table(world: World) -> str:
    return client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()


def test_a_removal_calls_off_the_characters_checks_and_undo_calls_them_again(world: World):
    called = actions.call_check(world.campaign_a, [world.char_a1, world.char_a2], FALL, by=world.gm_a).event
    aldara = CalledCheck.objects.get(called=called, character=world.char_a1)
    removal = actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a).event
    aldara.refresh_from_db()
    assert (aldara.status, aldara.closed) == ("cancelled", removal)
    assert CalledCheck.objects.get(called=called, character=world.char_a2).status == "pending"  # Borin still owes
    calls = element_by_id(table(world), "calls").html
    assert f'id="answer-table-{aldara.pk}"' not in calls and 'Aldara:</strong> <span class="muted">anulada' in calls
    assert "Anular la tirada de Borin" in calls  # Borin's still waits for its die
    actions.undo(world.campaign_a, by=world.gm_a)
    aldara.refresh_from_db()
    assert (aldara.status, aldara.closed) == ("pending", None)
    assert f'id="answer-table-{aldara.pk}"' in element_by_id(table(world), "calls").html


def test_a_removal_with_nothing_owed_calls_nothing_off(world: World):
    called = actions.call_check(world.campaign_a, [world.char_a2], FALL, by=world.gm_a).event
    removal = actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a).event
    assert removal.details["cancelled"] == []
    assert CalledCheck.objects.get(called=called).status == "pending"
