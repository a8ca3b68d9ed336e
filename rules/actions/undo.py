"""Undo (RULES.md section 7.10): the latest event not yet undone is undone, and only that one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from django.contrib.auth.models import User
from django.core.exceptions import ObjectDoesNotExist
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event, EventKind
from rules import engine, mapping
from rules.actions import checks, diseases, sheet
from rules.actions.core import ActionError, Actor, Loaded, Outcome, finish, load, lock_campaign
from rules.models import Disease

logger = logging.getLogger(__name__)

# What a log entry that is incomplete or damaged (an imported one: the import checks what it can) makes an undo raise.
DAMAGED = (IntegrityError, DataError, ObjectDoesNotExist, KeyError, ValueError, TypeError, LookupError)

# What an event changed besides health, put back after the health of before is restored.
UNDOERS: dict[str, Callable[[Campaign, Event], None]] = {
    EventKind.CHARACTER_ADDED: sheet.undo_character_added,
    EventKind.CHARACTER_EDITED: sheet.undo_character_edited,
    EventKind.CHARACTER_REMOVED: sheet.undo_character_removed,
    EventKind.INVITATION_CREATED: sheet.undo_invitation_created,
    EventKind.INVITATION_REVOKED: sheet.undo_invitation_revoked,
    EventKind.INVITATION_CLAIMED: sheet.undo_invitation_claimed,
    EventKind.CAMPAIGN_EDITED: sheet.undo_campaign_edited,
    EventKind.CHECK_CALLED: checks.undo_check_called,
    EventKind.CHECK_CANCELLED: checks.reopen_checks,
    EventKind.DISEASE_ADDED: diseases.undo_disease_added,
    EventKind.DISEASE_EDITED: diseases.undo_disease_edited,
    EventKind.DISEASE_RETIRED: diseases.undo_disease_retired,
    EventKind.DISEASE_RESTORED: diseases.undo_disease_restored,
}


@transaction.atomic
def undo(campaign: Campaign | int, *, by: Actor, event: Event | int | None = None) -> Outcome:
    """Undo the latest event not yet undone: each character's state from before it, the clock, and what else it did.

    `event` names the event the GM saw on the undo button: if it is no longer the latest (a second tab or a double
    submit undid it already), nothing happens and the GM is told. The event stays in the log, marked undone; the undo
    itself is logged too and is not undoable.
    """
    campaign = lock_campaign(campaign)
    latest = (
        campaign.events.select_for_update().filter(undone=False).exclude(action=EventKind.UNDO).order_by("-id").first()
    )
    if latest is None:
        raise ActionError(_("No hay nada que deshacer."), "event")
    expected = event.pk if isinstance(event, Event) else event
    if expected is not None and latest.pk != expected:
        raise ActionError(_("Ese cambio ya se deshizo o ya no es el último: mira el registro."), "event")
    try:
        # No savepoint of its own (two more queries an undo): a failure in here marks this whole undo for rollback,
        # which raising ActionError out of it then does, and no query runs in between.
        with transaction.atomic(savepoint=False):
            return _undo(campaign, latest, by)
    except DAMAGED as error:
        logger.exception("undo of event %s of campaign %s failed: its log entry is damaged", latest.pk, campaign.pk)
        message = _("Este cambio no se puede deshacer: su registro está incompleto o dañado.")
        raise ActionError(message, "event") from error


def _undo(campaign: Campaign, latest: Event, by: Actor) -> Outcome:
    results = [(loaded, _health_before(latest, loaded)) for loaded in load(campaign, _restored(latest), removed=True)]
    # An illness that becomes a row again needs its disease: checked now, as the foreign key would be at the commit.
    needed = {
        mapping.disease_id(new) for loaded, health in results for new in health.illnesses[len(loaded.illnesses) :]
    }
    if needed and Disease.objects.filter(pk__in=needed).count() != len(needed):
        raise LookupError(f"an illness of a disease that does not exist: {sorted(needed)}")
    undoer = UNDOERS.get(latest.action)
    if undoer is not None:
        undoer(campaign, latest)
    if "call" in latest.details:
        checks.reopen_checks(campaign, latest)  # it answered a called check: that check waits for its die again
    latest.undone, latest.undone_at = True, timezone.now()
    latest.undone_by = by if isinstance(by, User) else None
    latest.save(update_fields=["undone", "undone_at", "undone_by"])
    # What was undone travels with the undo, so the log can name it ("Deshecho: Exposición a Peste").
    details = {
        "event": latest.pk,
        "action": latest.action,
        "undone": {"details": latest.details, "characters": latest.characters},
    }
    return finish(
        campaign, EventKind.UNDO, by, results, details, clock_after=latest.clock_before, characters=latest.characters
    )


def _restored(event: Event) -> list[int]:
    return sorted(int(pk) for pk in event.before)


def _health_before(event: Event, loaded: Loaded) -> engine.Health:
    before = mapping.from_json(event.before[str(loaded.character.pk)])
    if event.action == EventKind.CHARACTER_EDITED:
        return before  # its CON comes back with it
    return replace(before, constitution=loaded.character.constitution)
