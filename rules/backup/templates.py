"""A document's quick NPCs' templates (rules.backup.schema.TemplateEntry): the ones its log makes. Each entry of kind
template_changed (rules.actions.npcs.save_template, delete_template) changes the template of its name from its
`before` to its `after`, and its undo changes it back; every value in it is one the "Añadir varios" form could have
saved (the schema's TemplateEntry, as the rows); and the document's own list is what the log leaves. One pass over the
log and one over the list, each a dictionary look-up: linear in the document."""

from __future__ import annotations

import msgspec
from django.conf import settings
from django.utils.translation import gettext as _

from rules import events
from rules.backup.limits import at_most
from rules.backup.read import invalid_by_schema, invalid_copy
from rules.backup.schema import Document, TemplateEntry
from rules.events import EventKind

assert set(TemplateEntry.__struct_fields__) == set(events.TemplateValues.__struct_fields__), "one template, two shapes"


def templates_of(document: Document, payloads: list[events.Payload]) -> dict[str, TemplateEntry]:
    """The templates the document's log leaves, by name; a change the actions could not have made, or a list that is
    not the log's, is refused where it is wrong."""
    kept: dict[str, TemplateEntry] = {}
    for index, payload in enumerate(payloads):
        at = f"$.events[{index}].details"
        if isinstance(payload, events.TemplateChanged):
            was, becomes = _change(at, payload)
        elif isinstance(payload, events.Undo) and payload.action == EventKind.TEMPLATE_CHANGED:
            at = f"{at}.undone.details"
            undone = payload.undone_payload()
            assert isinstance(undone, events.TemplateChanged)
            becomes, was = _change(at, undone)  # an undo changes it back
        else:
            continue
        name = (was or becomes or _never()).name
        if kept.get(name) != was:
            raise invalid_copy(at, _("no cuadra con las plantillas que deja el registro hasta ahí."))
        if becomes is None:
            del kept[name]
        else:
            if was is None and len(kept) >= settings.NPC_TEMPLATES_PER_CAMPAIGN:  # as save_template refuses it
                at_most(at, len(kept) + 1, settings.NPC_TEMPLATES_PER_CAMPAIGN)
            kept[name] = becomes
    listed: set[str] = set()
    for index, template in enumerate(document.templates):
        if template.name in listed:
            raise invalid_copy(f"$.templates[{index}].name", _("repite el nombre de otra plantilla."))
        listed.add(template.name)
        if kept.get(template.name) != template:
            raise invalid_copy(f"$.templates[{index}]", _("no es la plantilla que deja el registro."))
    if len(listed) != len(kept):
        raise invalid_copy("$.templates", _("no son las plantillas que deja el registro."))
    return kept


def _change(at: str, payload: events.TemplateChanged) -> tuple[TemplateEntry | None, TemplateEntry | None]:
    """A template before and after a change, each as the form saves one; a save keeps the name and changes a value."""
    before = None if payload.before is None else _template(f"{at}.before", payload.before)
    after = None if payload.after is None else _template(f"{at}.after", payload.after)
    if before is not None and after is not None:
        if before.name != after.name:
            raise invalid_copy(f"{at}.after.name", _("no es el nombre de la plantilla que cambia."))
        if before == after:
            raise invalid_copy(at, _("no cambia nada de la plantilla."))
    return before, after


def _template(at: str, values: events.TemplateValues) -> TemplateEntry:
    try:
        return msgspec.convert(msgspec.to_builtins(values), TemplateEntry)
    except msgspec.ValidationError as error:
        raise invalid_by_schema(error, TemplateEntry, at) from error


def _never() -> TemplateEntry:
    raise AssertionError("a template change has a template before or after it (events.TemplateChanged)")
