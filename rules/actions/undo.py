"""Undo (docs/rules.md §7.10): the latest event not yet undone is undone, and only that one."""

from __future__ import annotations

import logging
from dataclasses import replace

from django.db import DataError, IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event
from rules import engine, events, mapping
from rules.actions import checks, co_gms, diseases, game_sessions, npcs, sheet  # noqa: F401 - each registers its undoers
from rules.actions.core import (
    UNDOERS,
    ActionError,
    Actor,
    Loaded,
    Outcome,
    finish,
    holds,
    load,
    lock_campaign,
    right_to_undo,
    user_of,
)
from rules.events import EventKind
from rules.models import Disease

logger = logging.getLogger(__name__)


@transaction.atomic
def undo(campaign: Campaign | int, *, by: Actor, event: Event | int | None = None) -> Outcome:
    """Undo the latest event not yet undone: each character's state from before it, the clock, and what else it did.

    `event` names the event the GM saw on the undo button: if it is no longer the latest (a second tab or a double
    submit undid it already), nothing happens and the GM is told. The event stays in the log, marked undone; the undo
    itself is logged too and is not undoable.
    """
    campaign = lock_campaign(campaign, by)
    latest = (
        campaign.events.select_for_update().filter(undone=False).exclude(action=EventKind.UNDO).order_by("-id").first()
    )
    if latest is None:
        raise ActionError(_("No hay nada que deshacer."), "event")
    expected = event.pk if isinstance(event, Event) else event
    if expected is not None and latest.pk != expected:
        raise ActionError(_("Ese cambio ya se deshizo o ya no es el último: mira el registro."), "event")
    if not holds(campaign, by, right_to_undo(latest.action)):
        # Undo takes the rights of what it undoes: a co-GM does not undo the owner's naming or removal of co-GMs.
        raise ActionError(_("Ese cambio solo puede deshacerlo quien creó la campaña."), "event")
    try:
        # No savepoint of its own (two more queries an undo): a failure in here marks this whole undo for rollback,
        # which raising ActionError out of it then does, and no query runs in between.
        with transaction.atomic(savepoint=False):
            return _undo(campaign, latest, by)
    # A damaged entry: one rules.events refuses, or one whose states the database refuses to store (a CHECK
    # constraint: a wound larger than its row, a disease's numbers that do not fit its category).
    except (events.DamagedEntry, IntegrityError, DataError) as error:
        logger.exception("undo of event %s of campaign %s failed: its log entry is damaged", latest.pk, campaign.pk)
        message = _("Este cambio no se puede deshacer: su registro está incompleto o dañado.")
        raise ActionError(message, "event") from error


def _undo(campaign: Campaign, latest: Event, by: Actor) -> Outcome:
    payload = events.payload_of(latest)
    results = [(loaded, _health_before(latest, loaded)) for loaded in load(campaign, _restored(latest), removed=True)]
    # An illness that becomes a row again needs its disease: checked now, as the foreign key would be at the commit.
    needed = {
        mapping.disease_id(new) for loaded, health in results for new in health.illnesses[len(loaded.illnesses) :]
    }
    if needed and Disease.objects.filter(pk__in=needed).count() != len(needed):
        raise events.DamagedEntry("before", f"an illness of a disease that does not exist: {sorted(needed)}")
    undoer = UNDOERS.get(type(payload))
    if undoer is not None:
        undoer(campaign, latest, payload)
    if payload.answered_call is not None:
        checks.reopen_checks(campaign, latest)  # it answered a called check: that check waits for its die again
    latest.undone, latest.undone_at = True, timezone.now()
    latest.undone_by = user_of(by)
    latest.save(update_fields=["undone", "undone_at", "undone_by"])
    # What was undone travels with the undo, so the log can name it ("Deshecho: Exposición a Peste").
    undone = events.Undone(details=events.stored(payload), characters=list(latest.characters))
    details = events.Undo(event=latest.pk, action=EventKind(latest.action), undone=undone)
    return finish(campaign, by, results, details, clock_after=latest.clock_before, characters=latest.characters)


def _restored(event: Event) -> list[int]:
    if not all(isinstance(pk, str) and pk.isascii() and pk.isdigit() for pk in event.before):
        raise events.DamagedEntry("before", "states are keyed by character id")
    return sorted(int(pk) for pk in event.before)


def _health_before(event: Event, loaded: Loaded) -> engine.Health:
    try:
        before = mapping.from_json(event.before[str(loaded.character.pk)])
    except (KeyError, TypeError, ValueError) as error:  # what from_json raises on a state no action wrote
        raise events.DamagedEntry(f"before.{loaded.character.pk}", str(error)) from error
    if event.action == EventKind.CHARACTER_EDITED:
        return before  # its CON comes back with it
    return replace(before, constitution=loaded.character.constitution)
