"""What the backup's tests share: a campaign with a long history, its document and changes to it, and the rows an
import may write (equal before and after: it wrote nothing)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from campaigns.models import Campaign, Event, GameSession, Invitation, Membership
from characters.models import Character
from rules import actions, backup, engine
from rules.damage import Attack, Gas
from rules.models import Disease, Illness, Wound
from tests.helpers import make_user, plague

DEMO = "La Cripta de Hielo"


def rows() -> dict[str, int]:
    """How many rows of each kind a campaign may own: equal before and after means nothing was written."""
    return {
        "campaigns": Campaign.objects.count(),
        "characters": Character.everyone.count(),
        "wounds": Wound.objects.count(),
        "illnesses": Illness.objects.count(),
        "events": Event.objects.count(),
        "diseases": Disease.objects.count(),
        "memberships": Membership.objects.count(),
        "invitations": Invitation.objects.count(),
        "sessions": GameSession.objects.count(),
    }


def named(campaign: Campaign, name: str) -> Character:
    return Character.everyone.get(campaign=campaign, name=name)


def long_history() -> Campaign:
    """The demo campaign after months of play: illnesses of the rules' and of the campaign's own diseases, weekly
    losses, care and medicine, a death, undone events, a disease whose adding was undone after someone caught it, a
    removed character, edited sheets, a claimed invitation, game sessions (one ended and shared, one open, a start
    undone) and years on the clock."""
    call_command("load_demo")
    campaign = Campaign.objects.get(name=DEMO)
    gm = campaign.gm
    aldara, borin, sibila, tomas = (named(campaign, n) for n in ("Aldara", "Borin", "Sibila", "Hermano Tomás"))
    actions.start_session(campaign, by=gm)  # game sessions: the first played, ended and its recap shared
    swamp = actions.add_disease(campaign, actions.DiseaseSheet("Fiebre del pantano", "serious", -3, 2), by=gm)
    swamp_fever = Disease.objects.get(campaign=campaign, name="Fiebre del pantano")
    actions.add_disease(campaign, actions.DiseaseSheet("Tos de la cripta", "common", -1), by=gm)
    actions.retire_disease(campaign, Disease.objects.get(name="Tos de la cripta"), by=gm)
    actions.edit_disease(campaign, swamp_fever, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 2), by=gm)
    actions.expose(campaign, [aldara], plague(), by=gm, dice_by_character={aldara.pk: 1})
    actions.expose(campaign, [borin, sibila], swamp_fever, by=gm, dice_by_character={borin.pk: 1, sibila.pk: 12})
    actions.advance_clock(campaign, 3 * engine.WEEK, by=gm, not_resting=[borin])
    actions.end_session(campaign, by=gm)
    actions.share_recap(campaign, 1, by=gm)
    aldara_plague = Illness.objects.get(character=aldara)
    actions.medicate(campaign, aldara, aldara_plague, by=gm)
    actions.treat_illness(campaign, aldara, aldara_plague, tomas, by=gm)
    # A disease caught and then undone twice over: the log still names it, and it is gone.
    actions.add_disease(campaign, actions.DiseaseSheet("Mal de altura", "common", -1), by=gm)
    height = Disease.objects.get(name="Mal de altura")
    actions.expose(campaign, [tomas], height, by=gm, dice_by_character={tomas.pk: 1})
    actions.undo(campaign, by=gm)
    actions.undo(campaign, by=gm)
    assert not Disease.objects.filter(name="Mal de altura").exists()
    carla = make_user("carla")
    actions.claim_invitation(Invitation.objects.get(character=sibila).token, carla)
    actions.edit_character(campaign, sibila, actions.Sheet("Sibila", 6, 4, 2, 55, "Tiene jugadora.", None), by=gm)
    hidden = actions.Sheet(**{**vars(actions.Sheet.of(named(campaign, "Borin"))), "party_view": "hidden"})
    actions.edit_character(campaign, borin, hidden, by=gm)  # his player alone sees him
    actions.apply_damage(campaign, [sibila], Attack(amount=1000), by=gm)  # dies
    actions.apply_damage(campaign, [aldara, borin], Gas(turns=2), by=gm)
    actions.undo(campaign, by=gm)
    actions.start_session(campaign, by=gm)
    actions.undo(campaign, by=gm)  # a start undone: session 2 is the next one again
    actions.start_session(campaign, by=gm)  # and still open at the end
    actions.share_recap(campaign, 2, by=gm)
    actions.share_recap(campaign, 2, by=gm, shared=False)
    actions.remove_character(campaign, tomas, by=gm)
    actions.edit_campaign(campaign, name="La Cripta de Hielo (II)", gm=gm, party_view="exact", by=gm)
    actions.advance_clock(campaign, 2 * engine.YEAR + 5 * engine.DAY + 17, by=gm)
    del swamp
    return Campaign.objects.get(pk=campaign.pk)


def through_json(document: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(document))


def text(document: dict[str, Any]) -> str:
    """The document as its file holds it (the export page's json.dumps)."""
    return json.dumps(document, ensure_ascii=False, indent=1)


def upload(document: dict[str, Any] | bytes, name: str = "copia.json") -> dict[str, SimpleUploadedFile]:
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return {"file": SimpleUploadedFile(name, data, content_type="application/json")}


def changed(change: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(document: dict[str, Any]) -> dict[str, Any]:
        document = copy.deepcopy(document)
        change(document)
        return document

    return apply


def first_event(document: dict[str, Any], action: str) -> dict[str, Any]:
    return next(e for e in document["events"] if e["action"] == action)


def last_event(document: dict[str, Any], action: str) -> dict[str, Any]:
    return next(e for e in reversed(document["events"]) if e["action"] == action)


def a_state_with_wounds(document: dict[str, Any]) -> dict[str, Any]:
    """A character's state before the latest event, one whose wounds are still rows when that event is undone."""
    return next(state for state in document["events"][-1]["before"].values() if state["wounds"])


GONE_ILLNESS = {
    "category": "common",
    "penalty": -1,
    "pg_per_week": 0,
    "treated": False,
    "medicated": False,
    "since": 0,
    "name": "Mal de altura",
    "key": "disease:d4",  # in the file's "missing": its adding was undone
    "cured_at": None,
    "weeks_charged": 0,
}


def alive(document: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in document["characters"] if c["died_at"] is None and not c["removed"])


def refusal(document: dict[str, Any], importer: Any = None) -> str:
    """The message an import of the document gives, after checking that it wrote nothing."""
    before = rows()
    importer = importer or get_user_model().objects.get_or_create(username="importadora")[0]
    with pytest.raises(actions.ActionError) as refused:
        backup.import_campaign(document, importer)
    assert rows() == before
    return refused.value.message


def campaign_gm(document: dict[str, Any]) -> Any:
    return get_user_model().objects.get(username=document["events"][0]["actor"])
