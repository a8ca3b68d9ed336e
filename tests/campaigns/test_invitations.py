from django.urls import reverse

from campaigns.access import campaigns_of
from campaigns.models import Invitation, Membership
from tests.conftest import World, client_for


def test_gm_invites_and_a_new_player_signs_up_and_claims(world: World, client):
    client_for(world.gm_a).post(
        reverse("character_invite", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})
    )
    invite = Invitation.objects.get(character=world.char_a1)
    url = reverse("invitation", kwargs={"token": invite.token})

    response = client.get(url)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    response = client.post(
        reverse("signup"),
        {"username": "nueva", "password1": "una-clave-larga-42", "password2": "una-clave-larga-42", "next": url},
    )
    assert response.status_code == 302 and response.url == url
    assert client.get(url).status_code == 200
    response = client.post(url)
    assert response.status_code == 302
    world.char_a1.refresh_from_db()
    invite.refresh_from_db()
    assert world.char_a1.player.username == "nueva" and invite.claimed_by == world.char_a1.player
    assert Membership.objects.filter(campaign=world.campaign_a, user__username="nueva").exists()
    assert campaigns_of(world.char_a1.player).get() == world.campaign_a


def test_a_claimed_invitation_is_gone_for_others(world: World):
    url = reverse("invitation", kwargs={"token": world.invite_a.token})
    assert client_for(world.outsider).post(url).status_code == 302
    assert client_for(world.gm_b).get(url).status_code == 404
    assert client_for(world.gm_b).post(url).status_code == 404
    world.npc_a.refresh_from_db()
    assert world.npc_a.player == world.outsider


def test_unknown_token_is_404(world: World):
    assert client_for(world.outsider).get(reverse("invitation", kwargs={"token": "nope"})).status_code == 404


def test_the_gm_cannot_claim_their_own_character(world: World):
    url = reverse("invitation", kwargs={"token": world.invite_a.token})
    client_for(world.gm_a).post(url)
    world.npc_a.refresh_from_db()
    assert world.npc_a.player is None


def test_signup_closed_is_404(world: World, settings, client):
    settings.SIGNUP_OPEN = False
    assert client.get(reverse("signup")).status_code == 404
