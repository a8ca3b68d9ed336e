"""A campaign's co-GMs: the owner's invitation link "como co-narrador" (made, revoked), someone joining through it,
and the owner removing a co-GM. A co-GM is a Membership with the role "gm" (campaigns.access says what they may do).
Each is logged, names who acted and is undoable like any rules action; every refusal is said in words."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.access import Right
from campaigns.models import Campaign, Event, Invitation, Membership, Role
from characters.models import Character
from rules import events
from rules.actions.core import ActionError, Actor, Outcome, lock_campaign, log, undoes


@transaction.atomic
def create_co_gm_invitation(campaign: Campaign | int, *, by: Actor) -> Outcome:
    """A link to join the campaign as co-GM. There is at most one pending: asking again shows the same one."""
    campaign = lock_campaign(campaign, by, Right.OWNER)
    if campaign.invitations.pending().filter(role=Role.GM).exists():
        return Outcome(None, [])
    invitation = Invitation.objects.create(campaign=campaign, character=None, role=Role.GM)
    return Outcome(log(campaign, by, events.CoGmLink(invitation=invitation.pk), []), [])


@transaction.atomic
def revoke_co_gm_invitation(campaign: Campaign | int, invitation: Invitation | int, *, by: Actor) -> Outcome:
    """Cancel a pending co-GM link: whoever opens it afterwards finds nothing."""
    campaign = lock_campaign(campaign, by, Right.OWNER)
    invitation_id = invitation if isinstance(invitation, int) else invitation.pk
    found = campaign.invitations.select_for_update().filter(pk=invitation_id, role=Role.GM).first()
    if found is None or not found.pending:
        raise ActionError(_("Esa invitación ya no está pendiente."), "invitation")
    found.revoked_at = timezone.now()
    found.save(update_fields=["revoked_at"])
    return Outcome(log(campaign, by, events.CoGmLink(invitation=found.pk, revoked=True), []), [])


def join_as_co_gm(campaign: Campaign, invitation: Invitation, user: User) -> Outcome:
    """`user` claims a pending co-GM link (rules.actions.sheet.claim_invitation calls this under the campaign lock):
    they become co-GM; a player of the campaign stays the player of their characters too."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    membership = Membership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    if membership is not None and membership.role == Role.GM:
        raise ActionError(_("Ya eres co-narrador de esta campaña."))
    if not invitation.pending:
        raise ActionError(_("Esa invitación ya no está pendiente: pide otra a quien creó la campaña."))
    was_player = membership is not None
    if membership is None:
        Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
    else:
        membership.role = Role.GM
        membership.save(update_fields=["role"])
    invitation.claimed_by, invitation.claimed_at = user, timezone.now()
    invitation.save(update_fields=["claimed_by", "claimed_at"])
    payload = events.CoGmJoined(user=user.pk, name=user.username, invitation=invitation.pk, was_player=was_player)
    return Outcome(log(campaign, user, payload, []), [])


@transaction.atomic
def remove_co_gm(campaign: Campaign | int, user: User | int, *, by: Actor) -> Outcome:
    """The owner removes a co-GM: their open table and sheets end their streams. One who plays characters here goes
    on playing them as a player; anyone else leaves the campaign."""
    campaign = lock_campaign(campaign, by, Right.OWNER)
    user_id = user if isinstance(user, int) else user.pk
    membership = (
        Membership.objects.select_for_update().select_related("user").filter(campaign=campaign, user_id=user_id).first()
    )
    if membership is None or membership.role != Role.GM:
        raise ActionError(_("Esa persona ya no es co-narradora de esta campaña."), "user")
    stays_player = Character.objects.filter(campaign=campaign, player_id=user_id).exists()
    if stays_player:
        membership.role = Role.PLAYER
        membership.save(update_fields=["role"])
    else:
        membership.delete()
    payload = events.CoGmRemoved(user=user_id, name=membership.user.username, stays_player=stays_player)
    return Outcome(log(campaign, by, payload, []), [])


# --- undoing them (rules.actions.undo) --------------------------------------------------------------------------------
# Only the owner names or removes co-GMs, so only the owner undoes any of it: undoing a link, a join or a removal names
# or removes a co-GM too (a co-GM who joined is removed by undoing the join).


def _make(campaign: Campaign, user_id: int | None, role: Role | None) -> None:
    """Make this account a member with this role, or (None) no member; an account deleted since is left alone."""
    if user_id is None or user_id == campaign.gm_id or not User.objects.filter(pk=user_id).exists():
        return  # an imported campaign (accounts do not travel), an account deleted since, or the owner now
    if role is None:
        campaign.memberships.filter(user_id=user_id).delete()
    else:
        campaign.memberships.update_or_create(user_id=user_id, defaults={"role": role})


@undoes(events.CoGmLink, Right.OWNER)
def undo_co_gm_link(campaign: Campaign, event: Event, payload: events.CoGmLink) -> None:
    links = campaign.invitations.filter(pk=payload.invitation or 0, role=Role.GM, claimed_by=None)
    if payload.revoked:
        links.update(revoked_at=None)
    else:
        links.delete()


@undoes(events.CoGmJoined, Right.OWNER)
def undo_co_gm_joined(campaign: Campaign, event: Event, payload: events.CoGmJoined) -> None:
    _make(campaign, payload.user, Role.PLAYER if payload.was_player else None)
    campaign.invitations.filter(pk=payload.invitation or 0, role=Role.GM).update(claimed_by=None, claimed_at=None)


@undoes(events.CoGmRemoved, Right.OWNER)
def undo_co_gm_removed(campaign: Campaign, event: Event, payload: events.CoGmRemoved) -> None:
    _make(campaign, payload.user, Role.GM)
