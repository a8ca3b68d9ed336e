import pytest
from django.urls import reverse

from campaigns.access import campaigns_of
from campaigns.models import Event, Invitation, Membership
from characters.models import Character
from tests.helpers import HTMX, World, client_for
from tests.regions import element_by_id, region_ids


def invitation_url(invite: Invitation) -> str:
    return reverse("invitation", kwargs={"token": invite.token})


def invite_url(world: World, character: Character) -> str:
    return reverse("character_invite", kwargs={"campaign_id": world.campaign_a.pk, "character_id": character.pk})


def test_the_gm_invites_a_player_for_a_character(world: World):
    eira = Character.objects.create(campaign=world.campaign_a, name="Eira", constitution=9)
    response = client_for(world.gm_a).post(invite_url(world, eira))
    assert response.status_code == 302
    invite = Invitation.objects.get(character=eira)
    assert (invite.campaign, invite.claimed_by, invite.revoked_at) == (world.campaign_a, None, None)
    assert client_for(world.outsider).get(invitation_url(invite)).status_code == 200  # the link works
    event = Event.objects.get(campaign=world.campaign_a)
    assert (event.action, event.characters, event.details["invitation"]) == ("invitation_created", [eira.pk], invite.pk)


def test_an_invitation_made_from_the_table_shows_on_its_card_at_once(world: World):
    """With htmx, the answer is the regions the invitation touched: the character's card with its link, the log's
    entry and the undo button, each once; the words, and the keyboard in the link (its Copy button next)."""
    eira = Character.objects.create(campaign=world.campaign_a, name="Eira", constitution=9)
    response = client_for(world.gm_a).post(invite_url(world, eira), **HTMX)
    assert response.status_code == 200 and response["X-Regions"] == "1" and response["HX-Reswap"] == "none"
    invite = Invitation.objects.get(character=eira)
    html = response.content.decode()
    touched = [f"card-{eira.pk}", f"card-actions-{eira.pk}", "undo-button", "log-entries"]
    assert sorted(region_ids(html)) == sorted([*touched, "announce", "said"])
    actions = element_by_id(html, f"card-actions-{eira.pk}").html
    assert f"http://testserver{invitation_url(invite)}" in actions and revoke_url(world, invite) in actions
    assert "Invitación creada" in element_by_id(html, "said").inner
    assert response["X-Focus"] == f"invitation-{eira.pk}"
    assert f'id="invitation-{eira.pk}"' in actions
    assert f"character-{world.npc_a.pk}" not in html and "Tomás" not in html  # another card: not drawn again
    # A second one keeps the one pending link, and says so.
    again = client_for(world.gm_a).post(invite_url(world, eira), **HTMX)
    assert "ya tiene un enlace de invitación pendiente" in element_by_id(again.content.decode(), "said").inner
    assert Invitation.objects.filter(character=eira).count() == 1


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


# --- links that must no longer hand a character over (issue 9) -------------------------------------------------------


def invitations_state() -> list[tuple]:
    return list(Invitation.objects.order_by("pk").values_list("pk", "claimed_by", "revoked_at"))


def state() -> tuple:
    return (
        invitations_state(),
        list(Character.everyone.order_by("pk").values_list("pk", "player")),
        list(Membership.objects.order_by("pk").values_list("campaign", "user")),
    )


def assert_gone_for(user, invite: Invitation) -> None:
    """GET and POST of the link answer 404, and the POST changes nothing."""
    before = state()
    client = client_for(user)
    assert client.get(invitation_url(invite)).status_code == 404
    assert client.post(invitation_url(invite)).status_code == 404
    assert state() == before


def edit_url(world: World, character: Character) -> str:
    return reverse("character_edit", kwargs={"campaign_id": world.campaign_a.pk, "character_id": character.pk})


def test_assigning_a_player_cancels_the_pending_link(world: World):
    sheet = {"name": "Tomás", "constitution": "5", "jump": "0", "heal_wounds": "0", "weight_kg": "70", "notes": ""}
    response = client_for(world.gm_a).post(edit_url(world, world.npc_a), {**sheet, "player": world.player_a2.pk})
    assert response.status_code == 302
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is not None
    assert_gone_for(world.outsider, world.invite_a)
    world.npc_a.refresh_from_db()
    assert world.npc_a.player == world.player_a2
    assert not Membership.objects.filter(campaign=world.campaign_a, user=world.outsider).exists()


def revoke_url(world: World, invite: Invitation) -> str:
    return reverse("invitation_revoke", kwargs={"campaign_id": world.campaign_a.pk, "invitation_id": invite.pk})


def test_the_gm_revokes_a_link_and_it_answers_404(world: World):
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert revoke_url(world, world.invite_a) in table and "Anular el enlace de Tomás" in table
    response = client_for(world.gm_a).post(revoke_url(world, world.invite_a), follow=True)
    assert response.status_code == 200 and "Enlace anulado" in response.content.decode()
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is not None and world.invite_a.claimed_by is None
    assert revoke_url(world, world.invite_a) not in response.content.decode()  # no longer listed
    assert_gone_for(world.outsider, world.invite_a)
    event = Event.objects.get(campaign=world.campaign_a)
    assert (event.action, event.characters) == ("invitation_revoked", [world.npc_a.pk])


def test_a_link_revoked_from_the_table_leaves_its_card_at_once(world: World):
    response = client_for(world.gm_a).post(revoke_url(world, world.invite_a), **HTMX)
    assert response.status_code == 200 and response["X-Regions"] == "1"
    html = response.content.decode()
    npc = world.npc_a.pk
    assert sorted(region_ids(html)) == sorted(
        [f"card-{npc}", f"card-actions-{npc}", "undo-button", "log-entries", "announce", "said"]
    )
    actions = element_by_id(html, f"card-actions-{npc}").html
    assert revoke_url(world, world.invite_a) not in actions and world.invite_a.token not in html
    assert invite_url(world, world.npc_a) in actions  # a new link may be made
    assert "Enlace anulado" in element_by_id(html, "said").inner and response["X-Focus"] == f"character-{npc}"
    world.invite_a.refresh_from_db()
    assert world.invite_a.revoked_at is not None
    # twice: said, nothing changed, no card drawn again
    before = (state(), Event.objects.count())
    again = client_for(world.gm_a).post(revoke_url(world, world.invite_a), **HTMX).content.decode()
    assert "Esa invitación ya no está pendiente." in element_by_id(again, "said").inner
    assert not any(region.startswith(("card-", "character-")) for region in region_ids(again))
    assert (state(), Event.objects.count()) == before


def test_revoking_a_link_twice_says_so_and_changes_nothing(world: World):
    client = client_for(world.gm_a)
    client.post(revoke_url(world, world.invite_a))
    before = (state(), Event.objects.count())
    response = client.post(revoke_url(world, world.invite_a), follow=True)
    assert "Esa invitación ya no está pendiente." in response.content.decode()
    assert (state(), Event.objects.count()) == before


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_only_the_gm_revokes(world: World, persona: str):
    before = state()
    assert client_for(getattr(world, persona)).post(revoke_url(world, world.invite_a)).status_code == 404
    assert client_for(getattr(world, persona)).get(revoke_url(world, world.invite_a)).status_code in (404, 405)
    assert state() == before


def test_another_campaigns_link_under_my_campaign_url_is_refused(world: World):
    foreign = Invitation.objects.create(campaign=world.campaign_b, character=world.char_b)
    before = state()
    client_for(world.gm_a).post(revoke_url(world, foreign))
    assert state() == before
    assert client_for(world.outsider).get(invitation_url(foreign)).status_code == 200  # still works for campaign B


def test_no_link_for_a_character_with_a_player(world: World):
    url = reverse("character_invite", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})
    before = state()
    response = client_for(world.gm_a).post(url, follow=True)
    assert "Aldara ya tiene jugador: no necesita invitación." in response.content.decode()
    assert state() == before and not Event.objects.exists()


def test_a_second_invite_keeps_the_one_pending_link(world: World):
    url = reverse("character_invite", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.npc_a.pk})
    response = client_for(world.gm_a).post(url, follow=True)
    assert "ya tiene un enlace de invitación pendiente" in response.content.decode()
    assert Invitation.objects.filter(character=world.npc_a).count() == 1 and not Event.objects.exists()


def test_the_claimer_may_reopen_their_link_but_no_one_else(world: World):
    client_for(world.outsider).post(invitation_url(world.invite_a))
    assert client_for(world.outsider).get(invitation_url(world.invite_a)).status_code == 200
    assert_gone_for(world.gm_b, world.invite_a)


def test_a_removed_characters_link_is_gone(world: World):
    client_for(world.gm_a).post(
        reverse("character_delete", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.npc_a.pk})
    )
    assert_gone_for(world.outsider, world.invite_a)


def test_undoing_a_claim_through_the_table(world: World):
    client_for(world.outsider).post(invitation_url(world.invite_a))
    claim = Event.objects.get(campaign=world.campaign_a)
    assert claim.action == "invitation_claimed"
    gm = client_for(world.gm_a)
    table = gm.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Deshacer: outsider juega con Tomás" in table
    gm.post(reverse("undo", args=[world.campaign_a.pk]), {"event": claim.pk})
    world.npc_a.refresh_from_db()
    world.invite_a.refresh_from_db()
    assert world.npc_a.player is None and world.invite_a.pending
    assert campaigns_of(world.outsider).count() == 0  # the claim made them a member; its undo does not keep it
    assert client_for(world.gm_b).get(invitation_url(world.invite_a)).status_code == 200  # pending again
