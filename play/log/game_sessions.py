"""The log in words for game sessions (rules.actions.game_sessions): started, ended, its recap shared or taken back.
Registered with play.log.story's `words`, as every kind is."""

from __future__ import annotations

from django.utils.translation import gettext as _

from play.log.story import Story, words
from rules import events


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
