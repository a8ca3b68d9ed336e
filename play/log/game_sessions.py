"""The log in words for game sessions (rules.actions.game_sessions): started, ended, its recap shared or taken back;
and for the time that runs between them (rules.actions.running_time).
Registered with play.log.story's `words`, as every kind is."""

from __future__ import annotations

from django.utils.translation import gettext as _

from campaigns.clock import format_duration
from campaigns.running_time import said
from play.log.story import Story, words
from rules import engine, events


@words(events.SessionStarted)
def session_started(story: Story, payload: events.SessionStarted) -> tuple[str, list[str]]:
    return _("Empieza la sesión %(number)s") % {"number": payload.number}, []


@words(events.SessionEnded)
def session_ended(story: Story, payload: events.SessionEnded) -> tuple[str, list[str]]:
    return _("Termina la sesión %(number)s") % {"number": payload.number}, []


@words(events.SessionShared)
def session_shared(story: Story, payload: events.SessionShared) -> tuple[str, list[str]]:
    if payload.shared:
        return _("Resumen de la sesión %(number)s compartido con los jugadores") % {"number": payload.number}, []
    return _("Resumen de la sesión %(number)s retirado de los jugadores") % {"number": payload.number}, []


@words(events.RunningTimeSet)
def running_time_set(story: Story, payload: events.RunningTimeSet) -> tuple[str, list[str]]:
    after = payload.after
    if payload.stopped is not None:
        values = {"duration": format_duration(payload.stopped), "most": format_duration(engine.LIMITS["advance"][1])}
        title = _("El tiempo deja de correr entre sesiones")
        line = _("El paso pendiente (%(duration)s) pasa del máximo de un avance (%(most)s): elige un ritmo menor.")
        return title, [line % values]
    if not after.runs:
        return _("El tiempo deja de correr entre sesiones"), []
    schedule = said(after.rate, after.hour, after.zone)
    if not payload.before.runs:
        return _("El tiempo corre entre sesiones: %(schedule)s") % {"schedule": schedule}, []
    return _("El tiempo entre sesiones, ahora: %(schedule)s") % {"schedule": schedule}, []
