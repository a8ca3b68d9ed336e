"""The log in words for quick NPCs (rules.actions.npcs): several characters added or removed at once, and the
campaign's templates for them. Registered with play.log.story's `words`, as every kind is."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from play.log.story import Story, words
from rules import events


@words(events.CharactersAdded)
def characters_added(story: Story, payload: events.CharactersAdded) -> tuple[str, list[str]]:
    names = story.named(payload.added)
    return _("Añadir varios: %(names)s") % {"names": name_span(names)}, [", ".join(names)] if len(names) > 2 else []


@words(events.CharactersRemoved)
def characters_removed(story: Story, payload: events.CharactersRemoved) -> tuple[str, list[str]]:
    """A few named in the title; more counted there (the title is the undo button's words too), named in a line."""
    names = story.named(payload.removed)
    if len(names) <= TITLE_NAMES:
        return _("Retirados de la campaña: %(names)s") % {"names": ", ".join(names)}, []
    count = ngettext("%(count)s personaje", "%(count)s personajes", len(names)) % {"count": len(names)}
    return _("Retirados de la campaña: %(names)s") % {"names": count}, [", ".join(names)]


TITLE_NAMES = 4  # the most names a title lists


@words(events.TemplateChanged)
def template_changed(story: Story, payload: events.TemplateChanged) -> tuple[str, list[str]]:
    if payload.after is None:
        return _("Plantilla de PNJ borrada: %(name)s") % {"name": payload.before.name if payload.before else ""}, []
    if payload.before is None:
        return _("Plantilla de PNJ guardada: %(name)s") % {"name": payload.after.name}, []
    return _("Plantilla de PNJ cambiada: %(name)s") % {"name": payload.after.name}, []


def name_span(names: list[str]) -> str:
    """Numbered names in short: "Guardia 1…6" for Guardia 1 to Guardia 6; a few names, all of them."""
    if len(names) <= 2:
        return ", ".join(names)
    first, last = names[0], names[-1]
    head = first.rstrip("0123456789")
    if head and last.startswith(head) and last[len(head) :].isdigit() and first[len(head) :].isdigit():
        return f"{first}…{last[len(head) :]}"
    return f"{first}…{last}"
