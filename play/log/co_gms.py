"""The log in words for a campaign's co-GMs (rules.actions.co_gms): the owner's link "como co-narrador", someone
joining through it, and the owner removing a co-GM. Registered with play.log.story's `words`, as every kind is."""

from __future__ import annotations

from django.utils.translation import gettext as _

from play.log.story import Story, words
from rules import events


@words(events.CoGmLink)
def co_gm_link(story: Story, payload: events.CoGmLink) -> tuple[str, list[str]]:
    if payload.revoked:
        return _("Enlace de co-narrador anulado"), []
    return _("Enlace de co-narrador creado"), []


@words(events.CoGmJoined)
def co_gm_joined(story: Story, payload: events.CoGmJoined) -> tuple[str, list[str]]:
    lines = [_("Sigue jugando con sus personajes.")] if payload.was_player else []
    return _("%(name)s se une como co-narrador") % {"name": payload.name}, lines


@words(events.CoGmRemoved)
def co_gm_removed(story: Story, payload: events.CoGmRemoved) -> tuple[str, list[str]]:
    lines = [_("Sigue jugando con sus personajes.")] if payload.stays_player else []
    return _("%(name)s ya no es co-narrador") % {"name": payload.name}, lines
