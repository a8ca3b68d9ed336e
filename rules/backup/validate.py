"""What ties a document's parts together, checked before anything is written: a document is taken only if the app
itself could have written it. Each refusal says where ("La copia no es válida: $.events[3].before.c1: …").

- Every state, of the rows or of the log, is one the engine leaves (rules.backup.states).
- Every field of every entry's details holds what the action that writes it could have written (rules.backup.limits),
  every name is one the actions take, and no collection is larger than the site lets a campaign hold.
- The log holds together, walked forwards as the actions wrote it (rules.backup.replay) and backwards as undo walks
  it (rules.backup.undos); its sessions and templates are the ones it makes (rules.backup.game_sessions, .templates).

Every check is linear in the document (or n log n): a file of DOCUMENT_BYTES is judged in about a second at most.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from rules import events
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.sheet import NAME_LENGTH
from rules.backup import limits, references
from rules.backup.game_sessions import sessions_of
from rules.backup.read import invalid_copy, invalid_payload
from rules.backup.replay import Replay
from rules.backup.schema import Document, EventEntry
from rules.backup.states import States, character_health
from rules.backup.templates import templates_of
from rules.backup.undos import Undos
from rules.events import EventKind
from rules.models import disease_errors

# The kinds whose actions name no character (rules.actions log them with none).
NOBODY = {
    EventKind.TEMPLATE_CHANGED,
    EventKind.DISEASE_ADDED,
    EventKind.DISEASE_EDITED,
    EventKind.DISEASE_RETIRED,
    EventKind.DISEASE_RESTORED,
    EventKind.CAMPAIGN_EDITED,
    EventKind.CO_GM_LINK,
    EventKind.CO_GM_JOINED,
    EventKind.CO_GM_REMOVED,
    EventKind.SESSION_STARTED,
    EventKind.SESSION_ENDED,
    EventKind.SESSION_SHARED,
}


def validate(document: Document) -> list[events.Payload]:
    """Refuse the document unless the app could have written it; the payload of each entry of its log."""
    _check_sizes(document)
    _check_keys(document)
    _check_names(document)
    characters, diseases = {c.key for c in document.characters}, {d.key for d in document.diseases}
    known = {
        "character": characters | set(document.missing.character),
        "disease": diseases | set(document.missing.disease),
        "event": {e.key for e in document.events} | set(document.missing.event),
    }
    for index, disease in enumerate(document.diseases):
        for field, message in disease_errors(disease.category, disease.penalty, disease.pg_per_week).items():
            raise invalid_copy(f"$.diseases[{index}].{field}", message)
    states = States({f"disease:{key}" for key in known["disease"]})
    clock = document.campaign.clock
    healths = {
        character.key: character_health(f"$.characters[{index}]", character, clock, diseases, states)
        for index, character in enumerate(document.characters)
    }
    payloads = [_payload(f"$.events[{index}]", entry, known) for index, entry in enumerate(document.events)]
    Replay(document, payloads, healths, states).walk()
    Undos(document, payloads).walk()
    sessions_of(document, payloads)
    templates_of(document, payloads)
    return payloads


def _check_sizes(document: Document) -> None:
    """Each collection no larger than the site lets a campaign hold (the actions that make them stop there too),
    before anything is walked: a file of a huge one is refused at once."""
    limits.at_most("$.templates", len(document.templates), settings.NPC_TEMPLATES_PER_CAMPAIGN)
    own = sum(1 for disease in document.diseases if disease.scope == "campaign")
    limits.at_most("$.diseases", own, settings.DISEASES_PER_CAMPAIGN)
    if isinstance(document.sessions, list):
        limits.at_most("$.sessions", len(document.sessions), settings.SESSIONS_PER_CAMPAIGN)


def _check_names(document: Document) -> None:
    """The rows' names as the actions take them (rules.actions.core.checked_name), each with its kind's length."""
    limits.check_name("$.campaign.name", document.campaign.name, NAME_LENGTH)
    for index, character in enumerate(document.characters):
        limits.check_name(f"$.characters[{index}].name", character.name, NAME_LENGTH)
    for index, disease in enumerate(document.diseases):
        limits.check_name(f"$.diseases[{index}].name", disease.name, DISEASE_NAME_LENGTH)
    for index, template in enumerate(document.templates):
        limits.check_name(f"$.templates[{index}].name", template.name, NAME_LENGTH)


def _check_keys(document: Document) -> None:
    """Keys go in order, rows first and then the missing ones ("d5" after d1 to d4), as an export numbers them: so
    that an export of the import is the document again. A campaign's own diseases come before the others."""
    lists = [
        ("c", "$.characters", [c.key for c in document.characters], "$.missing.character", document.missing.character),
        ("d", "$.diseases", [d.key for d in document.diseases], "$.missing.disease", document.missing.disease),
        ("e", "$.events", [e.key for e in document.events], "$.missing.event", document.missing.event),
    ]
    for prefix, path, keys, missing_path, missing in lists:
        for index, key in enumerate([*keys, *missing]):
            if key != (expected := f"{prefix}{index + 1}"):
                where = f"{path}[{index}].key" if index < len(keys) else f"{missing_path}[{index - len(keys)}]"
                raise invalid_copy(where, _("debe ser «%(key)s»: las claves van en orden.") % {"key": expected})
    others = False
    for index, disease in enumerate(document.diseases):
        others = others or disease.scope != "campaign"
        if others and disease.scope == "campaign":
            message = _("las enfermedades propias de la campaña van antes que las demás.")
            raise invalid_copy(f"$.diseases[{index}].scope", message)


def _payload(path: str, entry: EventEntry, known: dict[str, set[str]]) -> events.Payload:
    """An entry's details, read as its kind's payload (rules.events), every reference a key of the document."""
    at = f"{path}.details"
    raw = entry.details
    if entry.action == EventKind.UNDO:
        # The undone entry's own details first, so that a problem there is said where it is.
        action, undone = raw.get("action"), raw.get("undone")
        if action in EventKind.values and action != EventKind.UNDO and isinstance(undone, dict) and "details" in undone:
            kind = EventKind(action)
            try:
                events.decode(kind, undone["details"])
            except events.DamagedEntry as damaged:
                raise invalid_payload(f"{at}.undone.details", damaged, events.PAYLOADS[kind]) from damaged
    try:
        payload = events.decode(entry.action, raw)
    except events.DamagedEntry as damaged:
        raise invalid_payload(at, damaged, events.PAYLOADS[entry.action]) from damaged
    limits.check_payload(at, payload)
    for what, value in references.references(payload):
        if what not in known:  # an account or an invitation link: ids of another site
            raise invalid_copy(at, _("nombra una cuenta o una invitación de otro sitio, que la copia no lleva."))
        if not isinstance(value, str) or value not in known[what]:
            raise invalid_copy(at, _("nombra «%(key)s», que no está en la copia.") % {"key": str(value)[:40]})
    for side in ("characters", "before", "after"):
        for key in getattr(entry, side):
            if key not in known["character"]:
                raise invalid_copy(f"{path}.{side}", _("nombra «%(key)s», que no está en la copia.") % {"key": key})
    if entry.action in NOBODY and entry.characters:
        raise invalid_copy(f"{path}.characters", _("este cambio no trata de ningún personaje."))
    if len(set(entry.characters)) != len(entry.characters):
        raise invalid_copy(f"{path}.characters", _("repite una clave."))
    if isinstance(payload, events.CharactersAdded | events.CharactersRemoved):
        group = payload.added if isinstance(payload, events.CharactersAdded) else payload.removed
        if not entry.characters or sorted(str(n.character) for n in group) != sorted(entry.characters):
            raise invalid_copy(f"{path}.characters", _("no son los personajes que nombra el cambio."))
    return payload
