"""Co-GMs (issue 25 part 3): the owner's link "como co-narrador", joining, removal, each logged with who acted and
undoable; what a co-GM may and may not do; refusals in words; the same claim or removal sent at once."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from campaigns import access
from campaigns.models import Campaign, Event, Invitation, Membership, Role
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.helpers import World, client_for, make_user, reload, run_at_once


def link_of(world: World) -> Invitation:
    outcome = actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a)
    assert outcome.event is not None and outcome.event.actor == world.gm_a
    return Invitation.objects.get(pk=outcome.event.details["invitation"])


def role_of(world: World, user) -> str | None:
    return Membership.objects.filter(campaign=world.campaign_a, user=user).values_list("role", flat=True).first()


# --- the actions and their undo ---------------------------------------------------------------------------------------


def test_a_stranger_joins_through_the_link_and_an_undo_takes_them_out(world: World):
    link = link_of(world)
    assert link.role == Role.GM and link.character is None
    assert actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a).event is None  # one pending link
    joined = actions.claim_invitation(link.token, world.outsider).event
    assert joined is not None and joined.actor == world.outsider and joined.action == "co_gm_joined"
    assert access.is_gm(world.outsider, world.campaign_a) and not access.is_owner(world.outsider, world.campaign_a)
    assert access.campaign_for_gm(world.outsider, world.campaign_a.pk) == world.campaign_a
    actions.undo(world.campaign_a, by=world.gm_a, event=joined)
    assert role_of(world, world.outsider) is None and not access.is_gm(world.outsider, world.campaign_a)
    assert reload_link(link).pending  # the link works again


def reload_link(link: Invitation) -> Invitation:
    return Invitation.objects.get(pk=link.pk)


def test_a_player_made_co_gm_and_removed_goes_on_playing_and_the_undo_brings_them_back(world: World):
    actions.claim_invitation(link_of(world).token, world.player_a)
    assert role_of(world, world.player_a) == Role.GM
    removed = actions.remove_co_gm(world.campaign_a, world.player_a, by=world.gm_a).event
    assert removed is not None and removed.details["stays_player"] is True
    assert role_of(world, world.player_a) == Role.PLAYER and not access.is_gm(world.player_a, world.campaign_a)
    assert reload(world.char_a1).player == world.player_a  # still plays Aldara
    actions.undo(world.campaign_a, by=world.gm_a, event=removed)
    assert role_of(world, world.player_a) == Role.GM


def test_a_co_gm_who_plays_nothing_leaves_the_campaign_when_removed_and_comes_back_with_the_undo(world: World):
    removed = actions.remove_co_gm(world.campaign_a, world.co_gm, by=world.gm_a).event
    assert removed is not None and role_of(world, world.co_gm) is None
    assert not access.campaigns_of(world.co_gm).exists()
    actions.undo(world.campaign_a, by=world.gm_a, event=removed)
    assert role_of(world, world.co_gm) == Role.GM


def test_a_revoked_link_is_undone_back_to_pending(world: World):
    link = link_of(world)
    revoked = actions.revoke_co_gm_invitation(world.campaign_a, link, by=world.gm_a).event
    assert revoked is not None and not reload_link(link).pending
    with pytest.raises(actions.ActionError, match="ya no está pendiente"):
        actions.claim_invitation(link.token, world.outsider)
    actions.undo(world.campaign_a, by=world.gm_a, event=revoked)
    assert reload_link(link).pending
    undone = actions.undo(world.campaign_a, by=world.gm_a).event  # the link's creation: the link goes
    assert undone is not None and not Invitation.objects.filter(pk=link.pk).exists()


@pytest.mark.parametrize(
    ("who", "words"),
    [("gm_a", "Esta campaña es tuya"), ("co_gm", "Ya eres co-narrador")],
)
def test_the_owner_and_a_co_gm_cannot_claim_the_link_and_nothing_changes(world: World, who: str, words: str):
    link = link_of(world)
    before = Event.objects.count()
    with pytest.raises(actions.ActionError, match=words):
        actions.claim_invitation(link.token, getattr(world, who))
    assert Event.objects.count() == before and reload_link(link).pending


def test_only_the_owner_names_or_removes_co_gms(world: World):
    link = link_of(world)
    before = Event.objects.count()
    for attempt in (
        lambda: actions.create_co_gm_invitation(world.campaign_a, by=world.co_gm),
        lambda: actions.revoke_co_gm_invitation(world.campaign_a, link, by=world.co_gm),
        lambda: actions.remove_co_gm(world.campaign_a, world.co_gm, by=world.co_gm),
        lambda: actions.edit_campaign(world.campaign_a, gm=world.co_gm, by=world.co_gm),
    ):
        with pytest.raises(actions.ActionError, match="Solo quien creó la campaña"):
            attempt()
    assert Event.objects.count() == before and role_of(world, world.co_gm) == Role.GM


def test_removing_someone_who_is_not_a_co_gm_is_refused_in_words(world: World):
    with pytest.raises(actions.ActionError, match="ya no es co-narradora"):
        actions.remove_co_gm(world.campaign_a, world.player_a, by=world.gm_a)


def test_a_co_gm_acts_at_the_table_and_undoes_the_owners_change_and_the_log_names_each(world: World):
    damage = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    co_gm = client_for(world.co_gm)
    response = co_gm.post(reverse("undo", args=[world.campaign_a.pk]), {"event": damage.pk})
    assert response.status_code == 302 and reload(world.char_a1).pg == 80
    url = reverse("damage", args=[world.campaign_a.pk])
    co_gm.post(url, {"kind": "attack", "characters": [world.char_a1.pk], "amount": "3"})
    assert reload(world.char_a1).pg == 77
    log = co_gm.get(reverse("campaign_log", args=[world.campaign_a.pk])).content.decode()
    assert "· co_gm" in log and "· gm_a" in log


# --- the pages --------------------------------------------------------------------------------------------------------


def test_the_owner_invites_a_co_gm_who_accepts_and_is_then_removed_through_the_pages(world: World):
    owner = client_for(world.gm_a)
    page = reverse("co_gms", args=[world.campaign_a.pk])
    assert "Invitar a un co-narrador" in owner.get(page).content.decode()
    owner.post(reverse("co_gm_invite", args=[world.campaign_a.pk]))
    link = Invitation.objects.get(campaign=world.campaign_a, role=Role.GM)
    shown = owner.get(page).content.decode()
    assert f"/invite/{link.token}/" in shown and "<svg" in shown and "Quitar" in shown
    newcomer = client_for(world.outsider)
    invite = reverse("invitation", args=[link.token])
    assert "como co-narrador" in newcomer.get(invite).content.decode()
    response = newcomer.post(invite, follow=True)
    assert "Ahora eres co-narrador" in response.content.decode()
    assert "co-narrador, con gm_a" in newcomer.get(reverse("home")).content.decode()
    assert "Ya eres co-narrador" in newcomer.get(invite).content.decode()  # claiming twice: said, nothing more
    again = newcomer.post(invite, follow=True).content.decode()
    assert "Ya eres co-narrador" in again
    assert Event.objects.filter(action="co_gm_joined").count() == 1
    listed = newcomer.get(page).content.decode()
    assert "outsider" in listed and "Quitar" not in listed and "Invitar a un co-narrador" not in listed
    owner.post(reverse("co_gm_remove", args=[world.campaign_a.pk, world.outsider.pk]))
    assert newcomer.get(reverse("campaign", args=[world.campaign_a.pk])).status_code == 404
    assert newcomer.get(page).status_code == 404


def test_a_co_gm_sees_no_export_or_delete_and_gets_404_there_changing_nothing(world: World):
    co_gm = client_for(world.co_gm)
    table = co_gm.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Co-narradores" in table and "Exportar" not in table and "Borrar campaña" not in table
    assert "Exportar" in client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    before = Event.objects.count()
    response = co_gm.post(reverse("campaign_delete", args=[world.campaign_a.pk]), {"name": "A"})
    assert response.status_code == 404 and Campaign.objects.filter(pk=world.campaign_a.pk).exists()
    assert co_gm.post(reverse("co_gm_remove", args=[world.campaign_a.pk, world.co_gm.pk])).status_code == 404
    assert Event.objects.count() == before and role_of(world, world.co_gm) == Role.GM


def test_a_revoked_links_page_is_404(world: World):
    link = link_of(world)
    client_for(world.gm_a).post(reverse("co_gm_revoke", args=[world.campaign_a.pk, link.pk]))
    assert client_for(world.outsider).get(reverse("invitation", args=[link.token])).status_code == 404
    assert client_for(world.outsider).post(reverse("invitation", args=[link.token])).status_code == 404
    assert role_of(world, world.outsider) is None


def test_a_character_link_cannot_revoke_a_co_gm_link_nor_the_other_way(world: World):
    link = link_of(world)
    owner = client_for(world.gm_a)
    owner.post(reverse("invitation_revoke", args=[world.campaign_a.pk, link.pk]))
    owner.post(reverse("co_gm_revoke", args=[world.campaign_a.pk, world.invite_a.pk]))
    assert reload_link(link).pending and reload_link(world.invite_a).pending


# --- at once: real concurrent connections -----------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_claims_of_one_link_at_once_make_one_co_gm_and_the_other_is_told(world: World):
    link = link_of(world)
    claimers = [make_user("eva"), make_user("fran")]
    answers: list[str] = []

    def claim(user: User) -> None:
        response = client_for(user).post(reverse("invitation", args=[link.token]), follow=True)
        answers.append(f"{response.status_code} {response.content.decode()}")

    errors = run_at_once([lambda user=user: claim(user) for user in claimers])
    assert not errors and len(answers) == 2
    assert sum("Ahora eres co-narrador" in text for text in answers) == 1
    assert sum(text.startswith("404") or "ya no está pendiente" in text for text in answers) == 1
    assert Membership.objects.filter(campaign=world.campaign_a, role=Role.GM).count() == 2  # co_gm and one more
    assert Event.objects.filter(action="co_gm_joined").count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_same_removal_at_once_is_logged_once_and_each_copy_is_answered(world: World):
    url = reverse("co_gm_remove", args=[world.campaign_a.pk, world.co_gm.pk])
    answers: list[str] = []

    def remove(client: Client) -> None:
        response = client.post(url, follow=True)
        answers.append(response.content.decode())

    clients = [client_for(world.gm_a) for _ in range(3)]
    errors = run_at_once([lambda client=client: remove(client) for client in clients])
    assert not errors and len(answers) == 3
    assert sum("ya no es co-narrador." in text for text in answers) == 1
    assert sum("ya no es co-narradora de esta campaña" in text for text in answers) == 2
    assert Event.objects.filter(action="co_gm_removed").count() == 1 and role_of(world, world.co_gm) is None


def test_the_co_gms_character_is_theirs_to_play_while_they_narrate(world: World):
    Character.objects.filter(pk=world.npc_a.pk).update(player=world.co_gm)
    assert access.is_gm(world.co_gm, world.campaign_a)
    response = client_for(world.co_gm).get(reverse("campaign", args=[world.campaign_a.pk]))
    assert "Borin" in response.content.decode()  # the whole table, not a player's page


def test_a_co_gm_the_admin_makes_owner_is_listed_once_as_the_owner(world: World):
    actions.edit_campaign(world.campaign_a, gm=world.co_gm, by=None)  # the site admin's change
    page = client_for(world.co_gm).get(reverse("co_gms", args=[world.campaign_a.pk])).content.decode()
    assert "<strong>co_gm</strong>" in page and f'id="co-gm-{world.co_gm.pk}"' not in page
    assert "Invitar a un co-narrador" in page
    assert client_for(world.gm_a).get(reverse("co_gms", args=[world.campaign_a.pk])).status_code == 404
