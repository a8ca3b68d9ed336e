"""The characters of a campaign and who plays them: adding, editing and removing a character, the invitation links
that hand one to a player, and the campaign's own name and GM. Each is logged and undoable like any rules action."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.access import Right
from campaigns.models import Campaign, Event, Invitation, Membership, PartyView, Role
from characters.models import SHEET_RANGES, Character
from rules import engine, events, mapping
from rules.actions import co_gms
from rules.actions.core import (
    ActionError,
    Actor,
    Outcome,
    checked_name,
    finish,
    holds,
    ids,
    lock_campaign,
    locked,
    log,
    undoes,
)
from rules.models import CalledCheck, CallStatus

NAME_LENGTH = 100
NOTES_LENGTH = 5000


@dataclass(frozen=True)
class Sheet:
    """A character's sheet as the GM writes it: what docs/rules.md §1 needs, a weight, notes, its player, what the
    other players see of it (empty: what the campaign says) and whether it rests while time runs between sessions."""

    name: str
    constitution: int
    jump: int = 0
    heal_wounds: int = 0
    weight_kg: int = 70
    notes: str = ""
    player_id: int | None = None
    party_view: str = ""
    rests_between_sessions: bool = True

    @classmethod
    def of(cls, character: Character) -> Sheet:
        return cls(**{name: getattr(character, name) for name in SHEET_FIELDS})


SHEET_FIELDS = tuple(field.name for field in fields(Sheet))
# What a character's own party view may be: empty for the campaign's, or one of its own (campaigns.models.PartyView).
CHARACTER_PARTY_VIEWS = ("", *PartyView.values)


def checked_sheet(campaign: Campaign, sheet: Sheet, player_now: int | None = None) -> Sheet:
    """The same ranges the forms show (docs/rules.md §§1 and 7.11), for any caller: a form, the admin, a script."""
    name = checked_name(sheet.name, NAME_LENGTH)
    if len(sheet.notes) > NOTES_LENGTH or "\x00" in sheet.notes:
        raise ActionError(_("Las notas pueden tener como mucho %(max)s caracteres.") % {"max": NOTES_LENGTH}, "notes")
    for field, (low, high) in SHEET_RANGES.items():
        if not low <= getattr(sheet, field) <= high:
            message = _("Debe estar entre %(low)s y %(high)s.") % {"low": low, "high": high}
            raise ActionError(message, field)
    if sheet.party_view not in CHARACTER_PARTY_VIEWS:
        message = _("Elige qué ven los demás jugadores: lo que diga la campaña, sus PG exactos, una palabra o nada.")
        raise ActionError(message, "party_view")
    player = sheet.player_id
    if player is not None and player != player_now and not campaign.memberships.filter(user_id=player).exists():
        raise ActionError(_("Ese jugador no juega en esta campaña: invítalo con un enlace."), "player")
    return Sheet(**{**{f: getattr(sheet, f) for f in SHEET_FIELDS}, "name": name})


def revoke_pending(character: Character) -> list[int]:
    """Cancel the character's pending invitation links (it now has a player, or it left): returns their ids."""
    pending = list(
        Invitation.objects.select_for_update().pending().filter(character=character).values_list("pk", flat=True)
    )
    Invitation.objects.filter(pk__in=pending).update(revoked_at=timezone.now())
    return pending


def _player_name(user_id: int | None) -> str:
    if user_id is None:
        return ""
    return User.objects.filter(pk=user_id).values_list("username", flat=True).first() or f"#{user_id}"


# --- characters ------------------------------------------------------------------------------------------------------


@transaction.atomic
def add_character(campaign: Campaign | int, sheet: Sheet, *, by: Actor) -> Outcome:
    """A new character joins the campaign, unhurt."""
    campaign = lock_campaign(campaign, by)
    sheet = checked_sheet(campaign, sheet)
    if Character.objects.filter(campaign=campaign).count() >= settings.CHARACTERS_PER_CAMPAIGN:
        raise ActionError(
            _("La campaña ya tiene %(count)s personajes, el máximo de este sitio: retira alguno para añadir otro.")
            % {"count": settings.CHARACTERS_PER_CAMPAIGN}
        )
    character = Character(campaign=campaign, **{name: getattr(sheet, name) for name in SHEET_FIELDS})
    character.pg = engine.max_pg(sheet.constitution)
    character.save()
    health = engine.Health(sheet.constitution, now=campaign.clock)
    payload = events.CharacterAdded(name=character.name, player=_player_name(sheet.player_id))
    event = log(
        campaign,
        by,
        payload,
        [character.pk],
        after={str(character.pk): mapping.to_json(health)},
    )
    return Outcome(event, [character])


@transaction.atomic
def edit_character(campaign: Campaign | int, character: Character | int, sheet: Sheet, *, by: Actor) -> Outcome:
    """Change a character's sheet. Only the fields that differ are written, re-read under the campaign lock; a new
    CON moves max PG and keeps the damage (docs/rules.md §7.9), and one that brings PG to 0 kills now. Giving the
    character a player cancels its pending invitation links."""
    campaign, [loaded] = locked(campaign, ids([character]), by)
    row = loaded.character
    sheet = checked_sheet(campaign, sheet, player_now=row.player_id)
    before = Sheet.of(row)
    changes = {name: (getattr(before, name), getattr(sheet, name)) for name in SHEET_FIELDS}
    changes = {name: pair for name, pair in changes.items() if pair[0] != pair[1]}
    if not changes:
        return Outcome(None, [row])
    health = engine.change_constitution(loaded.health, sheet.constitution)
    for name, (_old, new_value) in changes.items():
        setattr(row, name, new_value)
    # The new PG goes in the same write as the new CON: the database never sees PG above 10 × CON.
    row.pg, row.died_at = health.pg, health.died_at
    row.save(update_fields=[*changes, "pg", "died_at"])
    revoked = revoke_pending(row) if sheet.player_id is not None and "player_id" in changes else []
    payload = events.CharacterEdited(name=row.name, changes=events.SheetChanges(**changes), revoked=list(revoked))
    if "player_id" in changes:
        old, new = changes["player_id"]
        payload.players = (_player_name(old), _player_name(new))
    return finish(campaign, by, [(loaded, health)], payload)


@transaction.atomic
def remove_character(campaign: Campaign | int, character: Character | int, *, by: Actor) -> Outcome:
    """Take a character out of the campaign. Its row, wounds, illnesses and log entries stay (the log keeps its name)
    and an undo brings it back; its pending invitation links and the checks it still owes are cancelled."""
    campaign, [loaded] = locked(campaign, ids([character]), by)
    row = loaded.character
    revoked = revoke_pending(row)
    owed = CalledCheck.objects.select_for_update().filter(character=row, status=CallStatus.PENDING).order_by("id")
    cancelled = list(owed.values_list("pk", flat=True))
    row.removed = True
    row.save(update_fields=["removed"])
    payload = events.CharacterRemoved(name=row.name, revoked=list(revoked), cancelled=cancelled)
    event = log(campaign, by, payload, [row.pk])
    CalledCheck.objects.filter(pk__in=cancelled).update(status=CallStatus.CANCELLED, closed=event)
    return Outcome(event, [row])


# --- invitations -----------------------------------------------------------------------------------------------------


@transaction.atomic
def create_invitation(campaign: Campaign | int, character: Character | int, *, by: Actor) -> Outcome:
    """A link for a player to claim a character that has none. A character has at most one pending link."""
    campaign, [loaded] = locked(campaign, ids([character]), by)
    row = loaded.character
    if row.player_id is not None:
        raise ActionError(_("%(name)s ya tiene jugador: no necesita invitación.") % {"name": row.name}, "character")
    if Invitation.objects.pending().filter(character=row).exists():
        return Outcome(None, [row])  # its pending link is already on the table
    invitation = Invitation.objects.create(campaign=campaign, character=row)
    event = log(campaign, by, events.InvitationCreated(name=row.name, invitation=invitation.pk), [row.pk])
    return Outcome(event, [row])


@transaction.atomic
def revoke_invitation(campaign: Campaign | int, invitation: Invitation | int, *, by: Actor) -> Outcome:
    """Cancel a pending link: whoever opens it afterwards finds nothing."""
    campaign = lock_campaign(campaign, by)
    invitation_id = invitation if isinstance(invitation, int) else invitation.pk
    links = campaign.invitations.select_for_update(of=("self",)).filter(pk=invitation_id, role=Role.PLAYER)
    found = links.select_related("character").first()
    if found is None or found.character is None or not found.pending:  # a co-GM link is rules.actions.co_gms'
        raise ActionError(_("Esa invitación ya no está pendiente."), "invitation")
    found.revoked_at = timezone.now()
    found.save(update_fields=["revoked_at"])
    payload = events.InvitationRevoked(name=found.character.name, invitation=found.pk)
    event = log(campaign, by, payload, [found.character.pk])
    return Outcome(event, [found.character])


class InvitationGone(ActionError):
    """The link was claimed, revoked or never existed: it hands over nothing (pages answer 404)."""


@transaction.atomic
def claim_invitation(token: str, user: User) -> Outcome:
    """A player claims the character of a pending link: they join the campaign and play it. A co-GM link (no
    character) makes its claimer a co-GM instead (rules.actions.co_gms)."""
    campaign_id = Invitation.objects.filter(token=token).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise InvitationGone(_("Esa invitación no existe."))
    campaign = lock_campaign(campaign_id, None)  # claiming asks no right: the pending link is the right
    invitation = Invitation.objects.get(token=token)
    if campaign.gm_id == user.pk and invitation.character_id is None:
        raise ActionError(_("Esta campaña es tuya: no puedes ser co-narrador de ella."))
    if campaign.gm_id == user.pk:
        raise ActionError(_("Eres el narrador de esta campaña: no puedes reclamar un personaje."))
    if invitation.character_id is None:
        return co_gms.join_as_co_gm(campaign, invitation, user)  # a link "como co-narrador"
    character = Character.objects.select_for_update().filter(pk=invitation.character_id).first()
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if not invitation.pending or character is None or character.player_id is not None:
        raise InvitationGone(_("Esa invitación ya no está pendiente."))
    _membership, joined = Membership.objects.get_or_create(campaign=campaign, user=user)
    invitation.claimed_by, invitation.claimed_at = user, timezone.now()
    invitation.save(update_fields=["claimed_by", "claimed_at"])
    character.player = user
    character.save(update_fields=["player"])
    payload = events.InvitationClaimed(
        name=character.name, player=user.username, invitation=invitation.pk, joined=joined
    )
    event = log(campaign, user, payload, [character.pk])
    return Outcome(event, [character])


# --- the campaign itself ---------------------------------------------------------------------------------------------


@transaction.atomic
def edit_campaign(
    campaign: Campaign | int,
    *,
    by: Actor,
    name: str | None = None,
    gm: User | None = None,
    party_view: str | None = None,
) -> Outcome:
    """Rename a campaign or give it another GM (a site admin's change), or choose what each player sees of the other
    players' characters (`party_view`, a PartyView): logged and undoable like the rest. None leaves a field as it is
    under the lock (the GM's party view control changes nothing else, even beside an admin's rename)."""
    if party_view is not None and party_view not in PartyView.values:
        message = _("Elige qué ven los demás jugadores: sus PG exactos, una palabra o nada.")
        raise ActionError(message, "party_view")
    campaign = lock_campaign(campaign, by)
    name = campaign.name if name is None else checked_name(name, NAME_LENGTH)
    gm = campaign.gm if gm is None else gm
    handed_over = gm.pk != campaign.gm_id
    if handed_over and not holds(campaign, by, Right.OWNER):
        raise ActionError(_("Solo quien creó la campaña puede dársela a otro narrador."), "gm")
    party_view = campaign.party_view if party_view is None else party_view
    pairs: dict[str, tuple[Any, Any]] = {
        "name": (campaign.name, name),
        "gm_id": (campaign.gm_id, gm.pk),
        "party_view": (campaign.party_view, party_view),
    }
    changes = {field: pair for field, pair in pairs.items() if pair[0] != pair[1]}
    if not changes:
        return Outcome(None, [])
    campaign.name, campaign.gm, campaign.party_view = name, gm, party_view
    campaign.save(update_fields=["name", "gm", "party_view"])
    payload = events.CampaignEdited(changes=events.CampaignChanges(**changes))
    if "gm_id" in changes:
        old, new = changes["gm_id"]
        payload.gms = (_player_name(old), _player_name(new))
    return Outcome(log(campaign, by, payload, []), [])


# --- undoing them (rules.actions.undo calls these after restoring the health in the event) ---------------------------


@undoes(events.CharacterAdded)
def undo_character_added(campaign: Campaign, event: Event, payload: events.CharacterAdded) -> None:
    Character.everyone.filter(pk__in=event.characters, campaign=campaign).update(removed=True)


@undoes(events.CharacterEdited)
def undo_character_edited(campaign: Campaign, event: Event, payload: events.CharacterEdited) -> None:
    found = list(Character.everyone.select_for_update().filter(pk__in=event.characters, campaign=campaign))
    if len(found) != 1 or str(found[0].pk) not in event.before:
        raise events.DamagedEntry("characters", "an edit is about one character of this campaign, with its state")
    [character] = found
    changes = events.changed(payload.changes)
    for name, (old, _new) in changes.items():
        setattr(character, name, old)
    if character.player_id is not None and not User.objects.filter(pk=character.player_id).exists():
        character.player_id = None  # that account has been deleted since
    # The PG of before goes in the same write as the CON of before: the database never sees PG above 10 × CON.
    health = mapping.from_json(event.before[str(character.pk)])
    character.pg, character.died_at = health.pg, health.died_at
    character.save(update_fields=[*changes, "pg", "died_at"])
    _restore_invitations(campaign, payload.revoked)


@undoes(events.CharacterRemoved)
def undo_character_removed(campaign: Campaign, event: Event, payload: events.CharacterRemoved) -> None:
    bring_back(campaign, event, payload.revoked, payload.cancelled)


def bring_back(campaign: Campaign, event: Event, revoked: list[int | None], cancelled: list[int]) -> None:
    """Undo a removal (of one character or several): back in play, with their links and the checks they owed."""
    Character.everyone.filter(pk__in=event.characters, campaign=campaign).update(removed=False)
    _restore_invitations(campaign, revoked)
    called_off = CalledCheck.objects.filter(campaign=campaign, pk__in=cancelled, closed=event)
    called_off.update(status=CallStatus.PENDING, closed=None)


def _restore_invitations(campaign: Campaign, invitation_ids: list[int | None]) -> None:
    ids = [pk for pk in invitation_ids if pk is not None]
    campaign.invitations.filter(pk__in=ids, claimed_by=None).update(revoked_at=None)


@undoes(events.InvitationCreated)
def undo_invitation_created(campaign: Campaign, event: Event, payload: events.InvitationCreated) -> None:
    if payload.invitation is not None:
        campaign.invitations.filter(pk=payload.invitation, claimed_by=None).delete()


@undoes(events.InvitationRevoked)
def undo_invitation_revoked(campaign: Campaign, event: Event, payload: events.InvitationRevoked) -> None:
    _restore_invitations(campaign, [payload.invitation])


@undoes(events.InvitationClaimed)
def undo_invitation_claimed(campaign: Campaign, event: Event, payload: events.InvitationClaimed) -> None:
    invitation = campaign.invitations.select_for_update().filter(pk=payload.invitation or 0).first()
    if invitation is None or invitation.character_id is None:
        return  # an imported campaign: its links and players stayed on the site it came from
    Character.everyone.filter(pk=invitation.character_id).update(player=None)
    if payload.joined and invitation.claimed_by_id is not None:
        campaign.memberships.filter(user_id=invitation.claimed_by_id).delete()
    invitation.claimed_by, invitation.claimed_at = None, None
    invitation.save(update_fields=["claimed_by", "claimed_at"])


@undoes(events.CampaignEdited)
def undo_campaign_edited(campaign: Campaign, event: Event, payload: events.CampaignEdited) -> None:
    changes = payload.changes
    if changes.name is not None:
        campaign.name = changes.name[0]
    old_gm = None if changes.gm_id is None else changes.gm_id[0]
    if old_gm is not None and User.objects.filter(pk=old_gm).exists():
        campaign.gm_id = old_gm
    if changes.party_view is not None:
        campaign.party_view = changes.party_view[0]
    campaign.save(update_fields=["name", "gm", "party_view"])
