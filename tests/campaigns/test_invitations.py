from django.urls import reverse

from campaigns.access import campaigns_of
from campaigns.models import Invitation, Membership
from tests.helpers import World, client_for


def invitation_url(invite: Invitation) -> str:
    return reverse("invitation", kwargs={"token": invite.token})


def test_the_gm_invites_a_player_for_a_character(world: World):
    url = reverse("character_invite", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})
    response = client_for(world.gm_a).post(url)
    assert response.status_code == 302
    invite = Invitation.objects.get(character=world.char_a1)
    assert (invite.campaign, invite.claimed_by) == (world.campaign_a, None)
    assert client_for(world.outsider).get(invitation_url(invite)).status_code == 200  # the link works


def test_an_anonymous_visitor_of_an_invitation_is_sent_to_log_in(world: World, client):
    response = client.get(invitation_url(world.invite_a))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_signing_up_from_an_invitation_comes_back_to_it(world: World, client):
    url = invitation_url(world.invite_a)
    response = client.post(
        reverse("signup"),
        {"username": "nueva", "password1": "una-clave-larga-42", "password2": "una-clave-larga-42", "next": url},
    )
    assert response.status_code == 302 and response.url == url
    assert client.get(url).status_code == 200


def test_claiming_an_invitation_makes_the_character_yours_and_you_a_member(world: World):
    client = client_for(world.outsider)
    response = client.post(invitation_url(world.invite_a))
    assert response.status_code == 302
    assert response.url == reverse("character", args=[world.campaign_a.pk, world.npc_a.pk])
    world.npc_a.refresh_from_db()
    world.invite_a.refresh_from_db()
    assert world.npc_a.player == world.outsider and world.invite_a.claimed_by == world.outsider
    assert Membership.objects.filter(campaign=world.campaign_a, user=world.outsider).exists()
    assert campaigns_of(world.outsider).get() == world.campaign_a


def test_a_claimed_invitation_is_gone_for_others(world: World):
    url = invitation_url(world.invite_a)
    assert client_for(world.outsider).post(url).status_code == 302
    assert client_for(world.gm_b).get(url).status_code == 404
    assert client_for(world.gm_b).post(url).status_code == 404
    world.npc_a.refresh_from_db()
    assert world.npc_a.player == world.outsider


def test_unknown_token_is_404(world: World):
    assert client_for(world.outsider).get(reverse("invitation", kwargs={"token": "nope"})).status_code == 404


def test_the_gm_cannot_claim_their_own_character(world: World):
    response = client_for(world.gm_a).post(invitation_url(world.invite_a))
    assert response.status_code == 302 and response.url == reverse("campaign", args=[world.campaign_a.pk])
    world.npc_a.refresh_from_db()
    world.invite_a.refresh_from_db()
    assert world.npc_a.player is None and world.invite_a.claimed_by is None


def test_signup_closed_is_404(world: World, settings, client):
    settings.SIGNUP_OPEN = False
    assert client.get(reverse("signup")).status_code == 404
