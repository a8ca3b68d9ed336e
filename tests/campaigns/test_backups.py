"""Issue 11, export, import, delete: a campaign as one versioned JSON document and back, refused whole when the file is
bad; deleting a campaign (its GM after typing its name, or a site admin); and the per-account cap on campaigns."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from campaigns import access
from campaigns.models import Campaign, Event, Invitation, Membership
from characters.models import Character
from rules import actions, engine, queries
from rules.damage import Attack, Fall, Gas
from rules.models import Disease, Illness, Wound
from tests.helpers import (
    HTMX,
    World,
    client_for,
    log_mismatches,
    make_user,
    notify_listener,
    plague,
    run_at_once,
    streamed,
)

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
    }


def named(campaign: Campaign, name: str) -> Character:
    return Character.everyone.get(campaign=campaign, name=name)


def long_history() -> Campaign:
    """The demo campaign after months of play: illnesses of the rules' and of the campaign's own diseases, weekly
    losses, care and medicine, a death, undone events, a disease whose adding was undone after someone caught it, a
    removed character, edited sheets, a claimed invitation and years on the clock."""
    call_command("load_demo")
    campaign = Campaign.objects.get(name=DEMO)
    gm = campaign.gm
    aldara, borin, sibila, tomas = (named(campaign, n) for n in ("Aldara", "Borin", "Sibila", "Hermano Tomás"))
    swamp = actions.add_disease(campaign, actions.DiseaseSheet("Fiebre del pantano", "serious", -3, 2), by=gm)
    swamp_fever = Disease.objects.get(campaign=campaign, name="Fiebre del pantano")
    actions.add_disease(campaign, actions.DiseaseSheet("Tos de la cripta", "common", -1), by=gm)
    actions.retire_disease(campaign, Disease.objects.get(name="Tos de la cripta"), by=gm)
    actions.edit_disease(campaign, swamp_fever, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 2), by=gm)
    actions.expose(campaign, [aldara], plague(), by=gm, dice_by_character={aldara.pk: 1})
    actions.expose(campaign, [borin, sibila], swamp_fever, by=gm, dice_by_character={borin.pk: 1, sibila.pk: 12})
    actions.advance_clock(campaign, 3 * engine.WEEK, by=gm, not_resting=[borin])
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
    actions.remove_character(campaign, tomas, by=gm)
    actions.edit_campaign(campaign, name="La Cripta de Hielo (II)", gm=gm, party_view="exact", by=gm)
    actions.advance_clock(campaign, 2 * engine.YEAR + 5 * engine.DAY + 17, by=gm)
    del swamp
    return Campaign.objects.get(pk=campaign.pk)


def through_json(document: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(document))


def credited(document: dict[str, Any], gm: Any) -> dict[str, Any]:
    """The document as an import by `gm` keeps it: accounts do not travel, so only the events done (or undone) under
    the GM's own username stay theirs, and every other one is nobody's."""
    document = copy.deepcopy(document)
    for event in document["events"]:
        for field in ("actor", "undone_by"):
            if event[field] != gm.username:
                event[field] = None
    return document


def upload(document: dict[str, Any] | bytes, name: str = "copia.json") -> dict[str, SimpleUploadedFile]:
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return {"file": SimpleUploadedFile(name, data, content_type="application/json")}


# --- the round trip --------------------------------------------------------------------------------------------------


def test_export_import_export_gives_the_same_document(db):
    campaign = long_history()
    first = through_json(actions.export_campaign(campaign))
    assert first["format"] == "12plus-campaign" and first["version"] == 1
    assert first["missing"]["disease"], "the log names a disease that is gone"
    assert any(c["removed"] for c in first["characters"]) and any(c["died_at"] for c in first["characters"])
    assert {d["scope"] for d in first["diseases"]} == {"campaign", "builtin"}
    restored = actions.import_campaign(first, campaign.gm)
    assert restored.pk != campaign.pk
    second = through_json(actions.export_campaign(restored))
    assert second == credited(first, campaign.gm)
    assert [e["actor"] for e in first["events"] if e["actor"] not in ("narrador", None)] == ["carla"]  # her claim
    assert log_mismatches(restored) == []
    third = actions.import_campaign(second, campaign.gm)
    assert through_json(actions.export_campaign(third)) == second


def test_the_party_views_travel(db):
    """The campaign's party view and each character's own go with the campaign; a document from before they existed
    imports with the defaults (a word for everyone)."""
    campaign = long_history()
    document = through_json(actions.export_campaign(campaign))
    assert document["campaign"]["party_view"] == "exact"
    views = {c["name"]: c["party_view"] for c in document["characters"]}
    assert views == {"Aldara": "", "Borin": "hidden", "Sibila": "", "Hermano Tomás": ""}
    restored = actions.import_campaign(document, campaign.gm)
    assert restored.party_view == "exact" and named(restored, "Borin").party_view == "hidden"
    edit = restored.events.filter(action="campaign_edited").latest("id")
    assert edit.details["changes"]["party_view"] == ["band", "exact"]
    older = copy.deepcopy(document)
    del older["campaign"]["party_view"]
    for character in older["characters"]:
        del character["party_view"]
    restored = actions.import_campaign(older, campaign.gm)
    assert restored.party_view == "band"
    assert set(Character.everyone.filter(campaign=restored).values_list("party_view", flat=True)) == {""}


def test_accounts_do_not_travel(db):
    """Events are credited to the importing GM when they bear the GM's own username, and to nobody otherwise: never
    to an account of this site that happens to have the name written in the file."""
    campaign = long_history()
    document = through_json(actions.export_campaign(campaign))
    for event in document["events"]:
        event["actor"] = "admin"  # the demo's site admin has this name here
    document["events"][0]["actor"] = "importadora"
    importer = make_user("importadora")
    restored = actions.import_campaign(document, importer)
    actors = list(restored.events.order_by("id").values_list("actor", flat=True))
    assert actors[0] == importer.pk and not any(actors[1:])
    assert not restored.events.exclude(undone_by=None).exists()
    assert not Event.objects.filter(campaign=restored, actor__username="admin").exists()


def test_the_document_holds_no_ids_of_this_site(db):
    campaign = long_history()
    document = actions.export_campaign(campaign)
    ids = {str(pk) for pk in Character.everyone.filter(campaign=campaign).values_list("pk", flat=True)}
    for event in document["events"]:
        assert not set(event["before"]) & ids and not set(event["after"]) & ids
        assert all(isinstance(key, str) and key.startswith("c") for key in event["characters"])
        if event["action"] == "undo":
            assert event["details"]["event"].startswith("e")
        if event["action"] == "character_edited" and "player_id" in event["details"]["changes"]:
            assert event["details"]["changes"]["player_id"] == [None, None]
    wounds = [w for c in document["characters"] for w in c["wounds"]]
    assert any(w["illness_key"] for w in wounds)
    assert all(w["illness_key"] == "" or w["illness_key"].startswith("disease:d") for w in wounds)
    illnesses = [i for c in document["characters"] for i in c["illnesses"]]
    assert illnesses and all(i["disease"].startswith("d") for i in illnesses)


def test_the_gm_downloads_and_imports_through_the_pages(db):
    campaign = long_history()
    gm = client_for(campaign.gm)
    response = gm.get(reverse("campaign_export", args=[campaign.pk]))
    assert response.status_code == 200
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="la-cripta-de-hielo-ii-') and disposition.endswith('.json"')
    document = json.loads(response.content)
    stranger = make_user("forastera")
    response = client_for(stranger).post(reverse("campaign_import"), upload(response.content))
    restored = Campaign.objects.get(gm=stranger)
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=[restored.pk])
    assert restored.name == campaign.name and restored.clock == campaign.clock
    assert not restored.memberships.exists() and not restored.invitations.exists()
    assert not Character.everyone.filter(campaign=restored).exclude(player=None).exists()
    again = client_for(stranger).get(reverse("campaign_export", args=[restored.pk]))
    assert json.loads(again.content) == credited(document, stranger)
    table = client_for(stranger).get(reverse("campaign", args=[restored.pk]))
    assert table.status_code == 200 and "Sibila" in table.content.decode()


def test_the_pages_link_to_export_import_and_delete(db):
    campaign = long_history()
    home = client_for(campaign.gm).get(reverse("home")).content.decode()
    assert reverse("campaign_import") in home
    table = client_for(campaign.gm).get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert reverse("campaign_export", args=[campaign.pk]) in table
    assert reverse("campaign_delete", args=[campaign.pk]) in table
    page = client_for(campaign.gm).get(reverse("campaign_import")).content.decode()
    assert "Los jugadores" in page and 'enctype="multipart/form-data"' in page


def test_an_imported_campaign_plays_on(db):
    campaign = long_history()
    restored = actions.import_campaign(through_json(actions.export_campaign(campaign)), campaign.gm)
    gm = restored.gm
    aldara, borin = named(restored, "Aldara"), named(restored, "Borin")
    actions.apply_damage(restored, [aldara, borin], Attack(amount=5), by=gm)
    actions.advance_clock(restored, 2 * engine.DAY, by=gm)
    actions.expose(restored, [borin], Disease.objects.get(campaign=restored, name="Fiebre del pantano"), by=gm)
    actions.undo(restored, by=gm)
    actions.undo(restored, by=gm)
    actions.undo(restored, by=gm)
    assert log_mismatches(restored) == []
    # Undo goes on into the imported history: the advance, the campaign's rename, the removal of Tomás…
    actions.undo(restored, by=gm)
    actions.undo(restored, by=gm)
    actions.undo(restored, by=gm)
    restored.refresh_from_db()
    assert restored.name == DEMO and named(restored, "Hermano Tomás").removed is False
    assert restored.party_view == "band" and named(restored, "Borin").party_view == "hidden"
    assert log_mismatches(restored) == []
    assert client_for(gm).get(reverse("campaign", args=[restored.pk])).status_code == 200


def test_an_imported_campaign_undoes_its_whole_history_but_the_claim(db):
    """Every event down to the claimed invitation, whose link stayed on the other site, undoes on the new one."""
    campaign = long_history()
    restored = actions.import_campaign(through_json(actions.export_campaign(campaign)), campaign.gm)
    claim = restored.events.get(action="invitation_claimed")
    while (latest := queries.latest_undoable(restored)) is not None and latest.pk != claim.pk:
        actions.undo(restored, by=restored.gm)
    assert log_mismatches(restored) == []


def test_undoing_a_claim_of_an_imported_campaign(db):
    world_gm = make_user("gm")
    campaign = actions.create_campaign("Reclamo", world_gm)
    sibila = actions.add_character(campaign, actions.Sheet("Sibila", 6), by=world_gm).characters[0]
    actions.create_invitation(campaign, sibila, by=world_gm)
    actions.claim_invitation(Invitation.objects.get(character=sibila).token, make_user("carla"))
    restored = actions.import_campaign(through_json(actions.export_campaign(campaign)), world_gm)
    actions.undo(restored, by=world_gm)
    claim = restored.events.get(action="invitation_claimed")
    assert claim.undone and claim.undone_by == world_gm
    assert restored.events.filter(action="undo", details__event=claim.pk).exists()
    assert log_mismatches(restored) == []


# --- refusals ---------------------------------------------------------------------------------------------------------


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


TAMPERED: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "another version": changed(lambda d: d.update(version=2)),
    "another format": changed(lambda d: d.update(format="otra-cosa")),
    "no characters": changed(lambda d: d.pop("characters")),
    "no campaign": changed(lambda d: d.pop("campaign")),
    "characters not a list": changed(lambda d: d.update(characters={"c1": {}})),
    "a CON as text": changed(lambda d: alive(d).update(constitution="8")),
    "a CON out of range": changed(lambda d: alive(d).update(constitution=31)),
    "a skill out of range": changed(lambda d: alive(d).update(jump=-1)),
    "a weight of 0": changed(lambda d: alive(d).update(weight_kg=0)),
    "a PG the wounds do not give": changed(lambda d: alive(d).update(pg=alive(d)["pg"] + 1)),
    "dead with PG": changed(lambda d: alive(d).update(died_at=0)),
    "a bool as a number": changed(lambda d: alive(d).update(removed=1)),
    "a negative clock": changed(lambda d: d["campaign"].update(clock=-1)),
    "a clock past bigint": changed(lambda d: d["campaign"].update(clock=2**63)),
    "a float clock": changed(lambda d: d["campaign"].update(clock=1.5)),
    "a NUL in a name": changed(lambda d: alive(d).update(name="Ald\x00ara")),
    "a NUL deep in the log": changed(lambda d: first_event(d, "damage")["details"].update(kind="at\x00tack")),
    "a lone surrogate": changed(lambda d: d["campaign"].update(name="La \ud800 Cripta")),
    "an empty name": changed(lambda d: d["campaign"].update(name="   ")),
    "a huge name": changed(lambda d: d["campaign"].update(name="x" * 101)),
    "huge notes": changed(lambda d: alive(d).update(notes="n" * 5001)),
    "a huge string in the log": changed(lambda d: first_event(d, "damage")["details"].update(x="y" * 20_000)),
    "a wound healing more than it took": changed(
        lambda d: next(c for c in d["characters"] if c["wounds"])["wounds"][0].update(remaining=10**6)
    ),
    "a wound of an unknown kind": changed(
        lambda d: next(c for c in d["characters"] if c["wounds"])["wounds"][0].update(kind="bite")
    ),
    "an illness of a disease not in the file": changed(
        lambda d: next(c for c in d["characters"] if c["illnesses"])["illnesses"][0].update(disease="d999")
    ),
    "a disease with a positive penalty": changed(lambda d: d["diseases"][0].update(penalty=1)),
    "a common disease losing PG": changed(
        lambda d: next(x for x in d["diseases"] if x["category"] == "common").update(pg_per_week=3)
    ),
    "a rules disease this site lacks": changed(
        lambda d: next(x for x in d["diseases"] if x["scope"] == "builtin").update(name="Viruela")
    ),
    "two characters with one key": changed(lambda d: d["characters"][1].update(key=d["characters"][0]["key"])),
    "an event about a character not in the file": changed(lambda d: d["events"][0].update(characters=["c999"])),
    "a state of a character not in the file": changed(
        lambda d: first_event(d, "damage")["after"].update(c999=next(iter(first_event(d, "damage")["after"].values())))
    ),
    "a roll of a character not in the file": changed(
        lambda d: next(e for e in d["events"] if e["details"].get("rolls"))["details"]["rolls"][0].update(
            character="c999"
        )
    ),
    "an undo of an event not in the file": changed(lambda d: first_event(d, "undo")["details"].update(event="e999")),
    "an account id": changed(lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(gm_id=[1, 2])),
    "an unknown party view": changed(lambda d: d["campaign"].update(party_view="everything")),
    "no party view for the campaign": changed(lambda d: d["campaign"].update(party_view="")),
    "a character's unknown party view": changed(lambda d: alive(d).update(party_view="secret")),
    "a party view that is no text": changed(lambda d: alive(d).update(party_view=None)),
    "a campaign edit back to an unknown party view": changed(
        lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(party_view=["todo", "exact"])
    ),
    "a campaign edit back to no party view": changed(
        lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(party_view=["", "exact"])
    ),
    "a sheet edit back to an unknown party view": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(party_view=[["band"], "hidden"])
    ),
    "an unknown event kind": changed(lambda d: d["events"][0].update(action="resurrect")),
    "an advance without its duration": changed(lambda d: first_event(d, "advance")["details"].pop("seconds")),
    "a state with CON 0": changed(
        lambda d: next(iter(first_event(d, "damage")["after"].values())).update(constitution=0)
    ),
    "a state with a negative wound": changed(
        lambda d: next(iter(first_event(d, "damage")["after"].values()))["wounds"][0].update(amount=-5)
    ),
    "a state that is a list": changed(lambda d: first_event(d, "damage").update(before=[1, 2])),
    "an undo putting back CON 99": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(constitution=[99, 6])
    ),
    "a date without a zone": changed(lambda d: d["events"][0].update(created="2025-01-01T10:00:00")),
    "not a date": changed(lambda d: d["events"][0].update(created="ayer")),
    "a missing key that is also a row": changed(lambda d: d["missing"]["disease"].append("d1")),
    "deep nesting": changed(lambda d: d["events"][0]["details"].update(x=json.loads("[" * 40 + "]" * 40))),
    # What an undo or a log entry reads, each as its action writes it (an undo of these would fail, a page break).
    "a sheet edit changing a disease's field": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(penalty=[-1, -2])
    ),
    "a disease edit changing a CON": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(constitution=[5, 6])
    ),
    "a disease edit back to numbers that do not fit": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(category=["common", "serious"])
    ),
    "a disease edit back to a positive penalty": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(penalty=[3, -2])
    ),
    "a disease edit back to an untrimmed name": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(name=[" Fiebre ", "Fiebre del pantano"])
    ),
    "a campaign edit without its changes": changed(
        lambda d: first_event(d, "campaign_edited")["details"].pop("changes")
    ),
    "a sheet edit about no character": changed(lambda d: first_event(d, "character_edited").update(characters=[])),
    "a sheet edit whose CON its states do not show": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(constitution=[1, 6])
    ),
    "a state with a wound larger than its row": changed(
        lambda d: a_state_with_wounds(d)["wounds"][0].update(amount=999)
    ),
    "a state with an illness of a gone disease": changed(
        lambda d: next(iter(d["events"][-1]["before"].values()))["illnesses"].append(dict(GONE_ILLNESS))
    ),
    "an invitation event without its link": changed(
        lambda d: first_event(d, "invitation_claimed")["details"].pop("invitation")
    ),
    "damage dice that are not an object": changed(lambda d: first_event(d, "damage")["details"].update(dice=5)),
    "a fall without its difficulty": changed(lambda d: last_event(d, "damage")["details"].update(height_m=3)),
    "a roll's penalty named by a number": changed(
        lambda d: first_event(d, "expose")["details"]["rolls"][0].update(penalties=[[1, -2]])
    ),
    "a roll without its character": changed(lambda d: first_event(d, "expose")["details"]["rolls"][0].pop("character")),
    "a loss without its PG": changed(lambda d: first_event(d, "damage")["details"].update(pg={})),
    "an own disease with the name of a rules one": changed(
        lambda d: next(x for x in d["diseases"] if x["scope"] == "campaign" and not x["retired"]).update(name="gripe")
    ),
}


@pytest.fixture
def exported(db) -> dict[str, Any]:
    return through_json(actions.export_campaign(long_history()))


@pytest.mark.parametrize("tamper", TAMPERED.values(), ids=TAMPERED.keys())
def test_a_tampered_document_is_refused_and_nothing_is_written(exported, tamper):
    importer = make_user("importadora")
    document = tamper(exported)
    before = rows()
    response = client_for(importer).post(reverse("campaign_import"), upload(document))
    assert response.status_code == 400, response.content.decode()[:500]
    assert rows() == before
    page = response.content.decode()
    assert 'class="errorlist' in page and ("no es v" in page or "copia" in page or "12Plus" in page)
    with pytest.raises(actions.ActionError):
        actions.import_campaign(document, importer)
    assert rows() == before


BAD_FILES: dict[str, bytes] = {
    "not JSON": b"esto no es JSON",
    "not UTF-8": b'{"format": "12plus-campaign", "name": "\xff\xfe"}',
    "NaN": b'{"format": "12plus-campaign", "version": NaN}',
    "a list": b"[1, 2, 3]",
    "empty": b"",
    "too deep for the parser": b"[" * 100_000 + b"]" * 100_000,
    "over 5 MB": b'{"format": "12plus-campaign", "x": "' + b"a" * (5 * 1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("data", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_file_that_is_no_document_is_refused(db, data: bytes):
    importer = make_user("importadora")
    before = rows()
    response = client_for(importer).post(reverse("campaign_import"), upload(data))
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert rows() == before


def test_the_messages_say_where_the_problem_is(exported):
    document = TAMPERED["a CON out of range"](exported)
    with pytest.raises(actions.ActionError) as refused:
        actions.import_campaign(document, make_user("importadora"))
    assert refused.value.message == (
        "La copia no es válida: $.characters[0].constitution: debe ser un número entero entre 1 y 30."
    )
    with pytest.raises(actions.ActionError) as refused:
        actions.import_campaign(TAMPERED["another version"](exported), make_user("otra"))
    assert "versión 2" in refused.value.message


def test_an_import_respects_the_caps(exported, settings):
    importer = make_user("importadora")
    settings.CHARACTERS_PER_CAMPAIGN = 2
    before = rows()
    with pytest.raises(actions.ActionError, match="personajes en juego"):
        actions.import_campaign(exported, importer)
    settings.CHARACTERS_PER_CAMPAIGN = 60
    settings.CAMPAIGNS_PER_USER = 1
    actions.create_campaign("Otra", importer)
    before = rows()
    with pytest.raises(actions.ActionError, match="Ya llevas 1 campañas"):
        actions.import_campaign(exported, importer)
    assert rows() == before


# --- an imported log the checks missed: its undo and its entries fail soft -------------------------------------------


def everything(campaign: Campaign) -> tuple:
    """All that an undo may write in a campaign: equal before and after means nothing was written."""
    return (
        list(Campaign.objects.filter(pk=campaign.pk).values()),
        list(Character.everyone.filter(campaign=campaign).order_by("id").values()),
        list(Wound.objects.filter(character__campaign=campaign).order_by("id").values()),
        list(Illness.objects.filter(character__campaign=campaign).order_by("id").values()),
        list(Event.objects.filter(campaign=campaign).order_by("id").values()),
        list(Disease.objects.filter(campaign=campaign).order_by("id").values()),
    )


def small_imported(last: str = "") -> tuple[Campaign, Character]:
    """An imported campaign: Aldara falls (a roll), meets a disease (another roll) and is hurt again; then `last`
    ("edit" her sheet, "disease": edit the disease) is its latest event. Ana plays Aldara on this site."""
    Disease.objects.ensure_builtin()
    gm = make_user("gm")
    source = actions.create_campaign("Pequeña", gm)
    aldara = actions.add_character(source, actions.Sheet("Aldara", 8), by=gm).characters[0]
    actions.add_disease(source, actions.DiseaseSheet("Fiebre azul", "serious", -2, 2), by=gm)
    fever = Disease.objects.get(campaign=source)
    actions.apply_damage(source, [aldara], Fall(height_m=4, dice={aldara.pk: 5}), by=gm)
    actions.expose(source, [aldara], fever, by=gm, dice_by_character={aldara.pk: 12})
    actions.apply_damage(source, [aldara], Attack(amount=3), by=gm)
    if last == "edit":
        actions.edit_character(source, aldara, actions.Sheet("Aldara", 8, jump=2), by=gm)
    if last == "disease":
        actions.edit_disease(source, fever, actions.DiseaseSheet("Fiebre azul", "serious", -3, 2), by=gm)
    restored = actions.import_campaign(through_json(actions.export_campaign(source)), gm)
    ana = make_user("ana")
    Membership.objects.create(campaign=restored, user=ana)
    Character.everyone.filter(campaign=restored).update(player=ana)
    return restored, named(restored, "Aldara")


def state_before(event: Event) -> dict[str, Any]:
    return next(iter(event.before.values()))


# What the import refuses, written into the log afterwards (a database restored by hand, an older import): by the
# event it damages, the latest one.
DAMAGED_UNDOS: dict[str, tuple[str, Callable[[Event], object]]] = {
    "a sheet edit of a disease's field": ("edit", lambda e: e.details["changes"].update(penalty=[-1, -2])),
    "a sheet edit without its changes": ("edit", lambda e: e.details.pop("changes")),
    "a sheet edit about no character": ("edit", lambda e: e.characters.clear()),
    "a disease edit back to a category its numbers do not fit": (
        "disease",
        lambda e: e.details["changes"].update(category=["common", "serious"]),
    ),
    "a state with a wound larger than its row": ("", lambda e: state_before(e)["wounds"][0].update(amount=999)),
    "a state with an illness of no disease": (
        "",
        lambda e: state_before(e)["illnesses"].append({**GONE_ILLNESS, "key": "disease:-5"}),
    ),
    "a state that is not one": ("", lambda e: state_before(e).pop("wounds")),
}


@pytest.mark.parametrize("case", DAMAGED_UNDOS.values(), ids=DAMAGED_UNDOS.keys())
def test_an_undo_of_a_damaged_entry_says_so_and_writes_nothing(db, caplog, case):
    last, damage = case
    restored, _aldara = small_imported(last)
    event = queries.latest_undoable(restored)
    assert event is not None
    damage(event)
    event.save(update_fields=["details", "characters", "before"])
    before = everything(restored)
    gm = client_for(restored.gm)
    with caplog.at_level(logging.ERROR, logger="rules.actions.undo"):
        response = gm.post(reverse("undo", args=[restored.pk]), {"event": event.pk}, follow=True)
    assert response.status_code == 200
    assert "su registro está incompleto o dañado" in response.content.decode()
    assert everything(restored) == before
    [record] = [r for r in caplog.records if r.name == "rules.actions.undo"]
    assert record.levelno == logging.ERROR and record.exc_info is not None  # the bug stays visible in the log
    response = gm.post(reverse("undo", args=[restored.pk]), {"event": event.pk}, **HTMX)
    assert response.status_code == 200 and "su registro está incompleto o dañado" in response.content.decode()
    with pytest.raises(actions.ActionError) as refused:
        actions.undo(restored, by=restored.gm)
    assert refused.value.field == "event"
    assert everything(restored) == before


# What the import refuses in a log entry, written into the log afterwards: by the kind of the event it damages.
DAMAGED_ENTRIES: dict[str, tuple[str, Callable[[dict[str, Any]], object]]] = {
    "damage dice that are not an object": ("damage", lambda d: d.update(dice=5)),
    "a fall without its difficulty": ("damage", lambda d: d.pop("difficulty", None) if "height_m" in d else None),
    "a roll's penalty named by a number": ("expose", lambda d: d["rolls"][0].update(penalties=[[1, -2]])),
    "a loss of a character its PG lacks": ("damage", lambda d: d.update(pg={})),
}


@pytest.mark.parametrize("case", DAMAGED_ENTRIES.values(), ids=DAMAGED_ENTRIES.keys())
def test_a_damaged_log_entry_shows_as_unreadable_and_the_pages_work(db, caplog, case):
    kind, damage = case
    restored, aldara = small_imported()
    for event in restored.events.filter(action=kind):
        damage(event.details)
        event.save(update_fields=["details"])
    with caplog.at_level(logging.WARNING, logger="play.log"):
        table = client_for(restored.gm).get(reverse("campaign", args=[restored.pk]))
    assert table.status_code == 200
    assert "(registro importado ilegible)" in table.content.decode()
    assert any(r.name == "play.log" and r.exc_info for r in caplog.records)
    assert "Aldara" in table.content.decode()  # the rest of the log and the cards are there
    sheet = client_for(aldara.player).get(reverse("character", args=[restored.pk, aldara.pk]))
    assert sheet.status_code == 200 and "(registro importado ilegible)" in sheet.content.decode()


# --- who may ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["player_a", "outsider", "gm_b"])
def test_only_the_gm_exports_or_deletes(world: World, who: str):
    client = client_for(getattr(world, who))
    campaign = world.campaign_a
    assert client.get(reverse("campaign_export", args=[campaign.pk])).status_code == 404
    assert client.get(reverse("campaign_delete", args=[campaign.pk])).status_code == 404
    response = client.post(reverse("campaign_delete", args=[campaign.pk]), {"name": campaign.name})
    assert response.status_code == 404
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_an_anonymous_visitor_is_sent_to_log_in(world: World):
    client = client_for(None)
    for url in (
        reverse("campaign_export", args=[world.campaign_a.pk]),
        reverse("campaign_import"),
        reverse("campaign_delete", args=[world.campaign_a.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# --- deleting --------------------------------------------------------------------------------------------------------


def owned_by(campaign_id: int) -> dict[str, int]:
    return {
        "campaign": Campaign.objects.filter(pk=campaign_id).count(),
        "characters": Character.everyone.filter(campaign_id=campaign_id).count(),
        "wounds": Wound.objects.filter(character__campaign_id=campaign_id).count(),
        "illnesses": Illness.objects.filter(character__campaign_id=campaign_id).count(),
        "events": Event.objects.filter(campaign_id=campaign_id).count(),
        "diseases": Disease.objects.filter(campaign_id=campaign_id).count(),
        "memberships": Membership.objects.filter(campaign_id=campaign_id).count(),
        "invitations": Invitation.objects.filter(campaign_id=campaign_id).count(),
    }


def test_delete_needs_the_exact_name(db):
    campaign = long_history()
    url = reverse("campaign_delete", args=[campaign.pk])
    gm = client_for(campaign.gm)
    page = gm.get(url)
    assert page.status_code == 200 and campaign.name in page.content.decode()
    before = rows()
    for typed in ("", "la cripta de hielo (ii)", "La Cripta de Hielo", campaign.name + "x"):
        response = gm.post(url, {"name": typed})
        assert response.status_code == 400
        assert rows() == before
    assert "Escribe el nombre exacto" in gm.post(url, {"name": "otra"}).content.decode()
    with pytest.raises(actions.ActionError):
        actions.delete_campaign(campaign, by=campaign.gm, typed_name="La Cripta")
    assert rows() == before


def test_delete_removes_everything_of_the_campaign_and_nothing_else(db, world: World):
    campaign = long_history()
    assert all(owned_by(campaign.pk).values()), owned_by(campaign.pk)
    other = owned_by(world.campaign_a.pk)
    builtin = Disease.objects.filter(campaign=None).count()
    response = client_for(campaign.gm).post(
        reverse("campaign_delete", args=[campaign.pk]), {"name": f"  {campaign.name} "}, follow=True
    )
    assert response.redirect_chain == [(reverse("home"), 302)]
    assert "borrada" in response.content.decode()
    assert not any(owned_by(campaign.pk).values())
    assert owned_by(world.campaign_a.pk) == other
    assert Disease.objects.filter(campaign=None).count() == builtin
    assert get_user_model().objects.filter(username__in=["narrador", "ana", "carla"]).count() == 3


@pytest.fixture
def admin_client(db):
    admin = get_user_model().objects.create_superuser("root", password="pw")
    return client_for(admin)


def test_the_admin_deletes_a_campaign_with_a_history(admin_client):
    campaign = long_history()
    url = f"/admin/campaigns/campaign/{campaign.pk}/delete/"
    page = admin_client.get(url)
    assert page.status_code == 200
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert not any(owned_by(campaign.pk).values())


def test_the_admin_deletes_several_campaigns_at_once(admin_client, world: World):
    campaign = long_history()
    ids = [campaign.pk, world.campaign_a.pk]
    data = {"action": "delete_selected", "_selected_action": ids, "post": "yes"}
    response = admin_client.post("/admin/campaigns/campaign/", data)
    assert response.status_code == 302
    assert not any(owned_by(campaign.pk).values()) and not any(owned_by(world.campaign_a.pk).values())
    assert Campaign.objects.filter(pk=world.campaign_b.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_deleting_ends_the_live_streams_of_the_campaign():
    Disease.objects.ensure_builtin()
    gm, player = make_user("gm"), make_user("player")
    campaign = actions.create_campaign("Efímera", gm)
    Membership.objects.create(campaign=campaign, user=player)
    aldara = actions.add_character(campaign, actions.Sheet("Aldara", 8, player_id=player.pk), by=gm).characters[0]
    table, sheet = access.table_of(campaign), access.audience_of(player, campaign)
    screens = [(table, None), (table, aldara.pk), (sheet, None), (sheet, aldara.pk)]
    assert all(streamed(audience, sheet=pk) for audience, pk in screens)
    with notify_listener() as listener:
        actions.delete_campaign(campaign, by=gm, typed_name="Efímera")
        notices = [json.loads(n.payload) for n in listener.notifies(timeout=2, stop_after=1)]
    assert notices == [{"campaign": campaign.pk, "characters": None}]
    assert not access.still_sees(table) and not access.still_sees(sheet)
    assert all(streamed(audience, sheet=pk) is None for audience, pk in screens)  # each stream's end


# --- creating, and the cap -------------------------------------------------------------------------------------------


def test_create_campaign_checks_the_name(db):
    gm = make_user("gm")
    assert actions.create_campaign("  La Cripta  ", gm).name == "La Cripta"
    for name in ("", "   ", "x" * 101, "a\x00b"):
        with pytest.raises(actions.ActionError):
            actions.create_campaign(name, gm)
    assert Campaign.objects.filter(gm=gm).count() == 1


def test_the_cap_on_campaigns_holds_and_says_so(db, settings):
    settings.CAMPAIGNS_PER_USER = 2
    gm = make_user("gm")
    client = client_for(gm)
    url = reverse("campaign_create")
    assert client.post(url, {"name": "Una"}).status_code == 302
    assert client.post(url, {"name": "Dos"}).status_code == 302
    response = client.post(url, {"name": "Tres"})
    assert response.status_code == 400
    assert "Ya llevas 2 campañas" in response.content.decode()
    assert Campaign.objects.filter(gm=gm).count() == 2
    actions.delete_campaign(Campaign.objects.get(name="Una"), by=gm, typed_name="Una")
    assert client.post(url, {"name": "Tres"}).status_code == 302
    assert client_for(make_user("otro")).post(url, {"name": "Suya"}).status_code == 302  # the cap is per account


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("n", range(3))
def test_two_creations_at_the_cap_cannot_both_pass(settings, n: int):
    settings.CAMPAIGNS_PER_USER = 3
    gm = make_user(f"gm{n}")
    actions.create_campaign("Una", gm)
    actions.create_campaign("Dos", gm)
    errors = run_at_once([lambda: actions.create_campaign("Tres", gm), lambda: actions.create_campaign("Cuatro", gm)])
    assert len(errors) == 1 and isinstance(errors[0], actions.ActionError), errors
    assert Campaign.objects.filter(gm=gm).count() == 3


@pytest.mark.django_db(transaction=True)
def test_two_imports_at_the_cap_cannot_both_pass(settings):
    Disease.objects.ensure_builtin()
    settings.CAMPAIGNS_PER_USER = 2
    gm = make_user("gm")
    source = actions.create_campaign("Fuente", gm)
    actions.add_character(source, actions.Sheet("Aldara", 8), by=gm)
    document = through_json(actions.export_campaign(source))
    errors = run_at_once([lambda: actions.import_campaign(document, gm), lambda: actions.import_campaign(document, gm)])
    assert len(errors) == 1 and isinstance(errors[0], actions.ActionError), errors
    assert Campaign.objects.filter(gm=gm).count() == 2
