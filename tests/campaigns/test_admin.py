"""The admin changes a campaign through rules.actions (logged, undoable), and shows invitations read only."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Event, Invitation, Membership
from rules import actions
from tests.helpers import World, client_for


@pytest.fixture
def admin(db):
    return get_user_model().objects.create_superuser("root", password="pw")


@pytest.fixture
def admin_client(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def campaign_form(world: World, **changes) -> dict[str, object]:
    """The campaign's change form as the admin posts it, with its memberships inline unchanged."""
    members = list(Membership.objects.filter(campaign=world.campaign_a).order_by("pk"))
    data: dict[str, object] = {
        "name": world.campaign_a.name,
        "gm": world.campaign_a.gm_id,
        "party_view": world.campaign_a.party_view,
        "memberships-TOTAL_FORMS": len(members),
        "memberships-INITIAL_FORMS": len(members),
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
    }
    for index, member in enumerate(members):
        data[f"memberships-{index}-id"] = member.pk
        data[f"memberships-{index}-campaign"] = world.campaign_a.pk
        data[f"memberships-{index}-user"] = member.user_id
    return {**data, **changes}


def test_a_campaign_changed_in_the_admin_is_a_logged_undoable_edit(world: World, admin, admin_client):
    url = f"/admin/campaigns/campaign/{world.campaign_a.pk}/change/"
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(url, campaign_form(world, name="La Cripta", gm=world.gm_b.pk))
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    assert (campaign.name, campaign.gm) == ("La Cripta", world.gm_b)
    event = Event.objects.get(campaign=campaign)
    assert (event.action, event.actor) == ("campaign_edited", admin)
    assert event.details["changes"] == {"name": ["A", "La Cripta"], "gm_id": [world.gm_a.pk, world.gm_b.pk]}
    table = reverse("campaign", args=[campaign.pk])
    assert client_for(world.gm_a).get(table).status_code == 404  # no longer theirs
    assert "Deshacer: Campaña editada" in client_for(world.gm_b).get(table).content.decode()
    actions.undo(campaign, by=world.gm_b, event=event)
    campaign.refresh_from_db()
    assert (campaign.name, campaign.gm) == ("A", world.gm_a)


def test_the_party_view_changed_in_the_admin_is_a_logged_undoable_edit(world: World, admin, admin_client):
    url = f"/admin/campaigns/campaign/{world.campaign_a.pk}/change/"
    assert admin_client.post(url, campaign_form(world, party_view="hidden")).status_code == 302
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    assert campaign.party_view == "hidden"
    event = Event.objects.get(campaign=campaign)
    assert event.details["changes"] == {"party_view": ["band", "hidden"]}
    response = admin_client.post(url, campaign_form(world, party_view="todo"))
    assert response.status_code == 200 and "errorlist" in response.content.decode()  # the admin's own refusal
    assert Campaign.objects.get(pk=campaign.pk).party_view == "hidden" and Event.objects.count() == 1
    actions.undo(campaign, by=world.gm_a, event=event)
    assert Campaign.objects.get(pk=campaign.pk).party_view == "band"


def test_saving_an_unchanged_campaign_logs_nothing(world: World, admin_client):
    url = f"/admin/campaigns/campaign/{world.campaign_a.pk}/change/"
    assert admin_client.post(url, campaign_form(world)).status_code == 302
    assert not Event.objects.exists()


def test_invitations_are_read_only_in_the_admin(world: World, admin_client):
    url = f"/admin/campaigns/invitation/{world.invite_a.pk}/change/"
    assert admin_client.get(url).status_code == 200
    before = list(Invitation.objects.values())
    assert admin_client.post(url, {"claimed_by": world.outsider.pk}).status_code == 403
    assert (
        admin_client.post(f"/admin/campaigns/invitation/{world.invite_a.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert admin_client.get("/admin/campaigns/invitation/add/").status_code == 403
    assert list(Invitation.objects.values()) == before
