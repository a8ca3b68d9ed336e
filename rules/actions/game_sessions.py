"""Game sessions: the GM starts one ("Empezar la sesión 13"), ends it ("Terminar la sesión"), and shares its recap
with the players or takes it back. Each is a log entry that undo reverses; the campaign's lock makes two clicks at
once start one session, the second told so in words."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from campaigns import running_time
from campaigns.models import Campaign, Event, GameSession
from rules import events
from rules.actions.core import ActionError, Actor, Outcome, lock_campaign, log, undoes


def open_session(campaign: Campaign) -> GameSession | None:
    """The session being played now, if one is."""
    return campaign.game_sessions.filter(ended=None).first()


@transaction.atomic
def start_session(campaign: Campaign | int, *, by: Actor, number: int | None = None) -> Outcome:
    """Start the campaign's next session. `number` is the one the GM's button offered: if another tab started it (or
    another) meanwhile, nothing happens and the GM is told."""
    campaign = lock_campaign(campaign, by)
    playing = open_session(campaign)
    if playing is not None:
        message = _("La sesión %(number)s ya está empezada: termínala antes de empezar otra.")
        raise ActionError(message % {"number": playing.number}, "session")
    last = campaign.game_sessions.aggregate(last=Max("number"))["last"] or 0
    if number is not None and number != last + 1:
        raise ActionError(_("Esa sesión ya se empezó: mira el registro."), "session")
    if last >= settings.SESSIONS_PER_CAMPAIGN:
        message = _("La campaña ya ha jugado %(count)s sesiones, el máximo de este sitio.")
        raise ActionError(message % {"count": settings.SESSIONS_PER_CAMPAIGN}, "session")
    event = log(campaign, by, events.SessionStarted(number=last + 1), [])
    GameSession.objects.create(campaign=campaign, number=last + 1, started=event)
    return Outcome(event, [])


@transaction.atomic
def end_session(campaign: Campaign | int, *, by: Actor, number: int | None = None) -> Outcome:
    """End the session being played. `number`: the one the GM's button named (a second click ends nothing more)."""
    campaign = lock_campaign(campaign, by)
    playing = open_session(campaign)
    if playing is None or (number is not None and playing.number != number):
        raise ActionError(_("No hay ninguna sesión empezada que terminar."), "session")
    event = log(campaign, by, events.SessionEnded(number=playing.number), [])
    playing.ended = event
    playing.save(update_fields=["ended"])
    if campaign.runs and campaign.run_from is not None:
        # Time between sessions counts from the session's end (rules.actions.running_time): none ran while it was open.
        campaign.run_from = max(campaign.run_from, running_time.truncated(event.created))
        campaign.run_next = running_time.next_tick(campaign.run_hour, campaign.run_zone, campaign.run_from)
        campaign.save(update_fields=["run_from", "run_next"])
    return Outcome(event, [])


@transaction.atomic
def share_recap(campaign: Campaign | int, number: int, *, by: Actor, shared: bool = True) -> Outcome:
    """Show a session's recap to the players (`shared`), or no longer."""
    campaign = lock_campaign(campaign, by)
    session = campaign.game_sessions.filter(number=number).first()
    if session is None:
        raise ActionError(_("Esa sesión no existe."), "session")
    if session.shared == shared:
        message = _("Ese resumen ya está compartido.") if shared else _("Ese resumen no está compartido.")
        raise ActionError(message, "session")
    event = log(campaign, by, events.SessionShared(number=number, shared=shared), [])
    session.shared_at = event.created if shared else None
    session.save(update_fields=["shared_at"])
    return Outcome(event, [])


# --- undoing them (rules.actions.undo) -------------------------------------------------------------------------------


@undoes(events.SessionStarted)
def undo_session_started(campaign: Campaign, event: Event, payload: events.SessionStarted) -> None:
    """Before the start there was no such session (what happened in it was undone first)."""
    GameSession.objects.filter(campaign=campaign, started=event).delete()


@undoes(events.SessionEnded)
def undo_session_ended(campaign: Campaign, event: Event, payload: events.SessionEnded) -> None:
    """The session is being played again (no other was started since: that start was undone first)."""
    GameSession.objects.filter(campaign=campaign, ended=event).update(ended=None)


@undoes(events.SessionShared)
def undo_session_shared(campaign: Campaign, event: Event, payload: events.SessionShared) -> None:
    """Shared as it was before: taken back, or shown again (since when the entry before it says)."""
    again = None
    if not payload.shared:
        earlier = campaign.events.filter(action=events.EventKind.SESSION_SHARED, pk__lt=event.pk, undone=False)
        last_share = earlier.filter(details__number=payload.number, details__shared=True).order_by("-id").first()
        again = last_share.created if last_share is not None else event.created
    GameSession.objects.filter(campaign=campaign, number=payload.number).update(shared_at=again)
