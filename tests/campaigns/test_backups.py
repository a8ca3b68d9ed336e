"""Issue 11, export, import, delete: a campaign as one versioned JSON document and back, refused whole when the file is
bad; deleting a campaign (its GM after typing its name, or a site admin); and the per-account cap on campaigns."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from campaigns import access
from campaigns.models import Campaign, Event, GameSession, Invitation, Membership
from characters.models import Character
from play.forms.campaigns import imported_name
from rules import actions, backup, engine, queries
from rules.damage import Attack
from rules.models import Disease, Illness, Wound
from tests.campaigns.documents import DEMO, long_history, named, rows, text, through_json, upload
from tests.helpers import (
    World,
    client_for,
    log_mismatches,
    make_user,
    notify_listener,
    run_at_once,
    streamed,
)

# --- the round trip --------------------------------------------------------------------------------------------------


def test_export_import_export_gives_the_same_document(db):
    campaign = long_history()
    first = through_json(backup.export_campaign(campaign))
    assert first["format"] == "12plus-campaign" and first["version"] == 1
    assert first["missing"]["disease"], "the log names a disease that is gone"
    assert any(c["removed"] for c in first["characters"]) and any(c["died_at"] for c in first["characters"])
    assert {d["scope"] for d in first["diseases"]} == {"campaign", "builtin"}
    restored = backup.import_campaign(first, campaign.gm)
    assert restored.pk != campaign.pk
    second = through_json(backup.export_campaign(restored))
    assert text(second) == text(first)  # from the first trip on, byte for byte
    assert [e["actor"] for e in first["events"] if e["actor"] not in ("narrador", None)] == ["carla"]  # her claim
    assert log_mismatches(restored) == []
    third = backup.import_campaign(second, campaign.gm)
    assert text(through_json(backup.export_campaign(third))) == text(first)


def test_the_party_views_travel(db):
    """The campaign's party view and each character's own go with the campaign; a document from before they existed
    imports with the defaults (a word for everyone)."""
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    assert document["campaign"]["party_view"] == "exact"
    views = {c["name"]: c["party_view"] for c in document["characters"]}
    assert views == {"Aldara": "", "Borin": "hidden", "Sibila": "", "Hermano Tomás": ""}
    restored = backup.import_campaign(document, campaign.gm)
    assert restored.party_view == "exact" and named(restored, "Borin").party_view == "hidden"
    edit = restored.events.filter(action="campaign_edited").latest("id")
    assert edit.details["changes"]["party_view"] == ["band", "exact"]
    # A campaign played before party views existed: no party view in its file, and none changed in its log.
    gm = make_user("antigua")
    source = actions.create_campaign("Antigua", gm)
    aldara = actions.add_character(source, actions.Sheet("Aldara", 8), by=gm).characters[0]
    actions.apply_damage(source, [aldara], Attack(amount=5), by=gm)
    older = through_json(backup.export_campaign(source))
    del older["campaign"]["party_view"]
    for character in older["characters"]:
        del character["party_view"]
    restored = backup.import_campaign(older, gm)
    assert restored.party_view == "band"
    assert set(Character.everyone.filter(campaign=restored).values_list("party_view", flat=True)) == {""}


def test_accounts_do_not_travel(db):
    """Events are credited to the importing GM when they bear the GM's own username, and to nobody otherwise: never
    to an account of this site that happens to have the name written in the file."""
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    for event in document["events"]:
        event["actor"] = "admin"  # the demo's site admin has this name here
    document["events"][0]["actor"] = "importadora"
    importer = make_user("importadora")
    restored = backup.import_campaign(document, importer)
    actors = list(restored.events.order_by("id").values_list("actor", flat=True))
    assert actors[0] == importer.pk and not any(actors[1:])
    assert not restored.events.exclude(undone_by=None).exists()
    assert not Event.objects.filter(campaign=restored, actor__username="admin").exists()


def test_the_document_holds_no_ids_of_this_site(db):
    campaign = long_history()
    document = backup.export_campaign(campaign)
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
    response_text = response.content.decode()
    stranger = make_user("forastera")
    response = client_for(stranger).post(reverse("campaign_import"), upload(response.content))
    restored = Campaign.objects.get(gm=stranger)
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=[restored.pk])
    # Named with the day it came in (issue 24), so that it is not taken for the campaign it was exported from.
    assert restored.name == imported_name(campaign.name, timezone.localdate()) and restored.clock == campaign.clock
    assert not restored.memberships.exists() and not restored.invitations.exists()
    assert not Character.everyone.filter(campaign=restored).exclude(player=None).exists()
    again = client_for(stranger).get(reverse("campaign_export", args=[restored.pk]))
    # Who did what, by name, though none of it was the importer; only the campaign's name is new.
    renamed = json.loads(again.content)
    assert renamed["campaign"].pop("name") == restored.name
    exported = json.loads(response_text)
    exported["campaign"].pop("name")
    assert renamed == exported
    assert not Event.objects.filter(campaign=restored).exclude(actor=None).exists()
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
    restored = backup.import_campaign(through_json(backup.export_campaign(campaign)), campaign.gm)
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
    restored = backup.import_campaign(through_json(backup.export_campaign(campaign)), campaign.gm)
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
    restored = backup.import_campaign(through_json(backup.export_campaign(campaign)), world_gm)
    actions.undo(restored, by=world_gm)
    claim = restored.events.get(action="invitation_claimed")
    assert claim.undone and claim.undone_by == world_gm
    assert restored.events.filter(action="undo", details__event=claim.pk).exists()
    assert log_mismatches(restored) == []


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
        "sessions": GameSession.objects.filter(campaign_id=campaign_id).count(),
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
    document = through_json(backup.export_campaign(source))
    errors = run_at_once([lambda: backup.import_campaign(document, gm), lambda: backup.import_campaign(document, gm)])
    assert len(errors) == 1 and isinstance(errors[0], actions.ActionError), errors
    assert Campaign.objects.filter(gm=gm).count() == 2
