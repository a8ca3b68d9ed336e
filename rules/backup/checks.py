"""What ties a document's parts together, checked before anything is written: a document is taken only if the app
itself could have written it. Each refusal says where ("La copia no es válida: $.events[3].before.c1: …").

- Every state, of the rows or of the log, is one the engine leaves (rules.backup.states).
- The log holds together: each entry has the states its undo needs (before and after of each character it changed),
  starts at the clock and from the state the previous one left, and the rows are where the log ends; each undo undoes
  the latest entry not yet undone, and says so; characters come and go as its entries say.
- Walked backwards as undo walks it, every entry still to undo puts back what fits the rows it writes to: its wounds'
  amounts, illnesses of diseases there are, sheets, the campaign's name and view, its own diseases.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from django.utils.translation import gettext as _

from campaigns.models import PartyView
from characters.models import SHEET_RANGES
from rules import engine, events
from rules.actions.sheet import CHARACTER_PARTY_VIEWS
from rules.backup import references
from rules.backup.read import invalid_copy, invalid_payload
from rules.backup.schema import (
    DISEASE_NAME_LENGTH,
    NAME_LENGTH,
    NOTES_LENGTH,
    TRIMMED,
    Document,
    EventEntry,
    State,
)
from rules.backup.sessions import sessions_of
from rules.backup.states import States, character_health, comparable, settled
from rules.events import EventKind
from rules.models import disease_errors

# What each kind does (rules.events.Payload's flags), as the checks below ask it.
HEALTH_KINDS = {kind for kind, payload in events.PAYLOADS.items() if payload.health}
ABOUT_ONE = {kind for kind, payload in events.PAYLOADS.items() if payload.about_one}
IN_PLAY = {kind for kind, payload in events.PAYLOADS.items() if payload.in_play}
DISEASE_KINDS = {kind for kind, payload in events.PAYLOADS.items() if payload.changes_disease}
ADDING = {EventKind.CHARACTER_ADDED, EventKind.CHARACTERS_ADDED}
REMOVING = {EventKind.CHARACTER_REMOVED, EventKind.CHARACTERS_REMOVED}
SHEET = ("name", "constitution", "jump", "heal_wounds", "weight_kg", "notes", "party_view")

assert set(CHARACTER_PARTY_VIEWS) == {"", *PartyView.values}, "schema.CharacterPartyView lists them"


def check(document: Document) -> list[events.Payload]:
    """Refuse the document unless the app could have written it; the payload of each entry of its log."""
    _check_keys(document)
    characters, diseases = {c.key for c in document.characters}, {d.key for d in document.diseases}
    known = {
        "character": characters | set(document.missing.character),
        "disease": diseases | set(document.missing.disease),
        "event": {e.key for e in document.events} | set(document.missing.event),
    }
    names = [template.name for template in document.templates]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise invalid_copy(f"$.templates[{index}].name", _("repite el nombre de otra plantilla."))
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
    _Log(document, payloads, healths, states).walk()
    _Undos(document, payloads).walk()
    sessions_of(document, payloads)
    return payloads


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
    for what, value in references.references(payload):
        if what not in known:  # an account or an invitation link: ids of another site
            raise invalid_copy(at, _("nombra una cuenta o una invitación de otro sitio, que la copia no lleva."))
        if not isinstance(value, str) or value not in known[what]:
            raise invalid_copy(at, _("nombra «%(key)s», que no está en la copia.") % {"key": str(value)[:40]})
    for side in ("characters", "before", "after"):
        for key in getattr(entry, side):
            if key not in known["character"]:
                raise invalid_copy(f"{path}.{side}", _("nombra «%(key)s», que no está en la copia.") % {"key": key})
    if len(set(entry.characters)) != len(entry.characters):
        raise invalid_copy(f"{path}.characters", _("repite una clave."))
    if isinstance(payload, events.CharactersAdded | events.CharactersRemoved):
        group = payload.added if isinstance(payload, events.CharactersAdded) else payload.removed
        if not entry.characters or sorted(str(n.character) for n in group) != sorted(entry.characters):
            raise invalid_copy(f"{path}.characters", _("no son los personajes que nombra el cambio."))
    return payload


# --- the log, as it was written ---------------------------------------------------------------------------------------


class _Log:
    """The log walked forwards, as the actions wrote it: clocks, states, undos, who is in play."""

    def __init__(
        self, document: Document, payloads: list[events.Payload], rows: dict[str, engine.Health], states: States
    ) -> None:
        self.document, self.payloads, self.rows, self.states = document, payloads, rows, states
        # Each character's state as the log has left it so far, as written and as the engine's.
        self.current: dict[str, tuple[State, engine.Health]] = {}
        self.open: list[int] = []  # the entries an undo may still undo, latest last
        self.undone_by: dict[int, int] = {}
        # Who is in play: True, False once removed, absent before its entry adds it.
        added = {key for e in document.events if e.action in ADDING for key in e.characters}
        self.in_play = {c.key: True for c in document.characters if c.key not in added}

    def walk(self) -> None:
        clock = 0
        for index, (entry, payload) in enumerate(zip(self.document.events, self.payloads, strict=True)):
            at = f"$.events[{index}]"
            if entry.clock_before != clock:
                message = _("no sigue al reloj del cambio anterior (%(s)s s).") % {"s": clock}
                raise invalid_copy(f"{at}.clock_before", message)
            target = self._undone(at, index, payload) if entry.action == EventKind.UNDO else None
            clock = self._clock(at, index, entry, payload, target)
            self._states_needed(at, entry, payload, target)
            before = self._before(f"{at}.before", entry.before, entry.clock_before)
            after = self._states(f"{at}.after", entry.after, entry.clock_after)
            self._who(at, entry, target)
            self._what(at, entry, payload, target, before, after)
            self.current.update({key: (entry.after[key], found) for key, found in after.items()})
        self._end(clock)

    def _states(self, at: str, states: dict[str, State], clock: int) -> dict[str, engine.Health]:
        """An entry's states after it: each at the entry's clock, and one the engine leaves."""
        for key, state in states.items():
            if state.now != clock:
                raise invalid_copy(f"{at}.{key}.now", _("no es el reloj del cambio (%(s)s s).") % {"s": clock})
        return {key: self.states.of(f"{at}.{key}", state) for key, state in states.items()}

    def _before(self, at: str, states: dict[str, State], clock: int) -> dict[str, engine.Health]:
        """An entry's states before it: each the state the log left its character in (one the engine left, checked
        then), at the entry's clock, and nothing has fallen due since; a character's first state is checked anew."""
        found: dict[str, engine.Health] = {}
        for key, state in states.items():
            if key not in self.current:
                found |= self._states(at, {key: state}, clock)
                continue
            left, health_left = self.current[key]
            if state.now != clock:
                raise invalid_copy(f"{at}.{key}.now", _("no es el reloj del cambio (%(s)s s).") % {"s": clock})
            if _unclocked(state) != _unclocked(left):
                raise invalid_copy(f"{at}.{key}", _("no es el estado en que dejó a su personaje el registro."))
            if health_left.died_at is None and any(
                (due := illness.next_loss_at) is not None and due <= clock for illness in health_left.illnesses
            ):
                raise invalid_copy(f"{at}.{key}", _("le falta una pérdida semanal de su enfermedad, que ya tocaba."))
            found[key] = health_left
        return found

    def _undone(self, at: str, index: int, payload: events.Payload) -> EventEntry:
        assert isinstance(payload, events.Undo)
        entries = self.document.events
        if not self.open or entries[self.open[-1]].key != payload.event:
            raise invalid_copy(
                f"{at}.details.event", _("no es el último cambio sin deshacer, que es el que se deshace.")
            )
        undone = self.open.pop()
        self.undone_by[undone] = index
        target = entries[undone]
        if (payload.action, payload.undone.details, payload.undone.characters) != (
            target.action,
            target.details,
            target.characters,
        ):
            raise invalid_copy(f"{at}.details.undone", _("no repite lo que deshizo."))
        return target

    def _clock(self, at: str, index: int, entry: EventEntry, payload: events.Payload, target: Any) -> int:
        if target is not None:
            clock = target.clock_before  # an undo puts the clock back
        else:
            self.open.append(index)
            clock = entry.clock_before
            if isinstance(payload, events.Advance):
                low, high = engine.LIMITS["advance"]
                if not low <= payload.seconds <= high:
                    message = _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": low, "high": high}
                    raise invalid_copy(f"{at}.details.seconds", message)
                clock += payload.seconds
        if entry.clock_after != clock:
            message = _("no cuadra con el reloj de antes y lo que hizo (%(s)s s).") % {"s": clock}
            raise invalid_copy(f"{at}.clock_after", message)
        return clock

    def _states_needed(self, at: str, entry: EventEntry, payload: events.Payload, target: EventEntry | None) -> None:
        """(The undo of) an entry puts back the state before of each character it changed: it has that state."""
        before, after, about = set(entry.before), set(entry.after), set(entry.characters)
        if entry.action in ABOUT_ONE and len(entry.characters) != 1:
            raise invalid_copy(f"{at}.characters", _("debe tratar de un solo personaje."))
        lacking = _("le falta el estado de antes de %(key)s: deshacerlo no podría devolvérselo.")
        if entry.action in HEALTH_KINDS or target is not None:
            for key in sorted(after - before):
                raise invalid_copy(f"{at}.before", lacking % {"key": key})
            for key in sorted(before - after):
                raise invalid_copy(f"{at}.after", _("le falta el estado de después de %(key)s.") % {"key": key})
        if entry.action in HEALTH_KINDS:
            for key in sorted(about - before):
                raise invalid_copy(f"{at}.before", lacking % {"key": key})
            if about != before:
                raise invalid_copy(f"{at}.characters", _("no nombra a cada personaje cuyo estado cambia."))
            named, told = _named(payload)
            for key in sorted(named - before):
                raise invalid_copy(f"{at}.details", lacking % {"key": key})
            for key in sorted(before - (before if told is None else told)):
                raise invalid_copy(f"{at}.details", _("no dice qué le pasó a %(key)s.") % {"key": key})
        elif target is not None:
            if before != set(target.before):
                raise invalid_copy(f"{at}.before", _("no devuelve el estado de antes de lo que deshizo."))
            if about != before | set(target.characters):
                raise invalid_copy(f"{at}.characters", _("no nombra a cada personaje cuyo estado cambia."))
        elif entry.action in ADDING:
            if before or after != about:
                raise invalid_copy(f"{at}.after", _("no es el estado de un personaje nuevo."))
        elif before or after:
            raise invalid_copy(f"{at}.before", _("no lleva estados de salud: este cambio no los tiene."))

    def _who(self, at: str, entry: EventEntry, target: EventEntry | None) -> None:
        """Only a character in play is acted on; characters come (added, an undone removal) and go (removed, an undone
        addition) as the log says."""
        kind = entry.action if target is None else target.action
        if target is None and entry.action in IN_PLAY:
            for key in entry.characters:
                if not self.in_play.get(key, False):
                    raise invalid_copy(f"{at}.characters", _("trata de %(key)s, que no está en juego.") % {"key": key})
        keys = entry.characters if target is None else target.characters
        if kind in ADDING:
            for key in keys:
                if target is None and key in self.in_play:
                    raise invalid_copy(
                        f"{at}.characters", _("añade a %(key)s, que ya estaba en la campaña.") % {"key": key}
                    )
                self.in_play[key] = target is None
        if kind in REMOVING:
            for key in keys:
                self.in_play[key] = target is not None

    def _what(
        self,
        at: str,
        entry: EventEntry,
        payload: events.Payload,
        target: EventEntry | None,
        before: dict[str, engine.Health],
        after: dict[str, engine.Health],
    ) -> None:
        """The PG an entry tells match its states; a new character is unhurt; an undo gives back the state before."""
        if isinstance(payload, events.Damage | events.Advance | events.Exertion):
            for key, (pg_before, pg_after) in payload.pg.items():
                if (before[key].pg, after[key].pg) != (pg_before, pg_after):
                    raise invalid_copy(f"{at}.details.pg", _("da unos PG que no son los de sus estados."))
        if isinstance(payload, events.Advance):
            # Time is the one action without dice or choices: its states after are exactly the engine's.
            for key, found in after.items():
                where = f"{at}.after.{key}"
                settled(where, found, found.now, f"{where}.wounds[{{}}]".format, f"{where}.illnesses")
                rested = engine.advance(before[key], payload.seconds, resting=key in map(str, payload.resting))
                if comparable(rested) != comparable(found):
                    raise invalid_copy(where, _("no es lo que el paso del tiempo hace con su estado."))
        if entry.action in ADDING:
            for key, found in after.items():
                if found != engine.Health(found.constitution, now=found.now):
                    raise invalid_copy(f"{at}.after.{key}", _("no es el estado de un personaje nuevo."))
        if target is not None:
            for key, written in entry.after.items():
                wanted = target.before[key]
                if target.action != EventKind.CHARACTER_EDITED:  # rules.actions.undo: its CON is the one it has now
                    wanted = msgspec.structs.replace(wanted, constitution=before[key].constitution)
                if written != wanted:
                    raise invalid_copy(f"{at}.after.{key}", _("no devuelve el estado de antes de lo que deshizo."))

    def _end(self, clock: int) -> None:
        """The undone entries are the undos' ones; the campaign's clock and rows are where the log ends."""
        for index, entry in enumerate(self.document.events):
            undone = index in self.undone_by
            if entry.undone != undone:
                raise invalid_copy(f"$.events[{index}].undone", _("no cuadra con los «deshacer» del registro."))
            if (entry.undone_at is not None) != undone or (entry.undone_by is not None and not undone):
                raise invalid_copy(f"$.events[{index}]", _("tiene fecha y autor de deshecho solo si está deshecho."))
        if self.document.campaign.clock != clock:
            message = _("no es el reloj en que acaba el registro (%(s)s s).") % {"s": clock}
            raise invalid_copy("$.campaign.clock", message)
        for index, character in enumerate(self.document.characters):
            state = self.current.get(character.key)
            if state is not None and comparable(state[1]) != comparable(self.rows[character.key]):
                raise invalid_copy(f"$.characters[{index}]", _("no es el estado en que lo deja el registro."))
            if self.in_play.get(character.key, not character.removed) == character.removed:
                raise invalid_copy(
                    f"$.characters[{index}].removed", _("no cuadra con las altas y retiradas del registro.")
                )


def _unclocked(state: State) -> State:
    """A state as the next entry about its character starts from it: its clock aside, and its illnesses without their
    disease's name (a site's disease renamed by its admin renames the episodes, not the log). The log writes a state
    one way only (rules.mapping.to_json), so that equal states are equal as written."""
    illnesses = [msgspec.structs.replace(illness, name="") for illness in state.illnesses]
    return msgspec.structs.replace(state, now=0, illnesses=illnesses)


def _named(payload: events.Payload) -> tuple[set[str], set[str] | None]:
    """The characters an entry's details name, and those whose change they tell (None: they tell no one's)."""
    named: set[Any]
    told: set[Any] | None
    if isinstance(payload, events.Damage | events.Exertion):
        told = set(payload.damage) & set(payload.pg)
        named = set(payload.damage) | set(payload.pg) | {roll.character for roll in payload.rolls}
    elif isinstance(payload, events.Advance):
        told = named = set(payload.pg)
    elif isinstance(payload, events.Expose):
        told = {roll.character for roll in payload.rolls}
        named = told | set(payload.fell_ill)
    else:
        return set(), None
    return {str(key) for key in named}, {str(key) for key in told}


# --- undoing it, entry by entry ---------------------------------------------------------------------------------------


class _Undos:
    """The log walked backwards from the rows, as undo walks it (the latest entry not undone first), keeping what an
    undo meets: each character's sheet, the first amounts of its wounds and how many illnesses it has; the campaign's
    name and view; each own disease's sheet."""

    def __init__(self, document: Document, payloads: list[events.Payload]) -> None:
        self.document, self.payloads = document, payloads
        characters = document.characters
        self.sheets = {c.key: {field: getattr(c, field) for field in SHEET} for c in characters}
        self.amounts = {c.key: [w.amount for w in c.wounds] for c in characters}
        self.episodes = {c.key: len(c.illnesses) for c in characters}
        self.known = {f"disease:{d.key}" for d in document.diseases}
        self.own: dict[str, dict[str, Any]] = {
            d.key: {
                "name": d.name,
                "category": d.category.value,
                "penalty": d.penalty,
                "pg_per_week": d.pg_per_week,
                "retired": d.retired,
            }
            for d in document.diseases
            if d.scope == "campaign"
        }
        self.campaign = {"name": document.campaign.name, "party_view": document.campaign.party_view.value}

    def walk(self) -> None:
        for index in reversed(range(len(self.document.events))):
            entry, payload = self.document.events[index], self.payloads[index]
            if entry.undone or entry.action == EventKind.UNDO:
                continue
            at = f"$.events[{index}]"
            self._states(at, entry)
            if isinstance(payload, events.CharacterEdited):
                self._sheet(at, entry, payload)
            if isinstance(payload, events.CampaignEdited):
                for field, (old, new) in events.changed(payload.changes).items():
                    if field != "gm_id":  # accounts are not in the document
                        self._change(f"{at}.details.changes.{field}", self.campaign, field, old, new, "campaign")
            if entry.action in DISEASE_KINDS:
                self._disease(at, entry, payload)

    def _states(self, at: str, entry: EventEntry) -> None:
        for key, state in entry.before.items():
            if key not in self.amounts:
                continue  # a character the document lacks: the undo refuses it
            amounts = [wound.amount for wound in state.wounds for _n in range(wound.times or 1)]
            now = self.amounts[key]
            # A wound's row keeps its first amount; the undo writes what remains of it, never more.
            if any(amount > first for amount, first in zip(amounts, now, strict=False)):
                raise invalid_copy(f"{at}.before.{key}", _("no cuadra con las heridas de su personaje."))
            self.amounts[key] = now[: len(amounts)] + amounts[len(now) :]
            # An illness the undo brings back becomes a row again: its disease must be one.
            if any(illness.key not in self.known for illness in state.illnesses[self.episodes[key] :]):
                raise invalid_copy(f"{at}.before.{key}", _("no nombra una enfermedad de la copia."))
            self.episodes[key] = len(state.illnesses)

    def _sheet(self, at: str, entry: EventEntry, payload: events.CharacterEdited) -> None:
        [key] = entry.characters
        sheet = self.sheets.get(key)
        if sheet is None:
            raise invalid_copy(at, _("no cuadra con la hoja de su personaje."))
        constitution_after = sheet["constitution"]
        for field, (old, new) in events.changed(payload.changes).items():
            if field != "player_id":  # accounts are not in the document
                self._change(f"{at}.details.changes.{field}", sheet, field, old, new, "sheet")
        pair = (entry.before[key].constitution, entry.after[key].constitution)
        if pair != (sheet["constitution"], constitution_after):
            raise invalid_copy(f"{at}.details.changes", _("no cuadra con la hoja de su personaje."))

    def _change(self, path: str, sheet: dict[str, Any], field: str, old: Any, new: Any, what: str) -> None:
        """An edit's change, undone: it changed what there is now, into something else, from a value it may have."""
        if sheet[field] != new:
            raise invalid_copy(path, _("no cuadra con la hoja de su personaje."))
        if old == new or not _value(what, field, old):
            raise invalid_copy(path, _("no es un cambio válido."))
        sheet[field] = old

    def _disease(self, at: str, entry: EventEntry, payload: Any) -> None:
        sheet = self.own.get(payload.disease)
        if sheet is None:
            raise invalid_copy(f"{at}.details.disease", _("no nombra una enfermedad propia de la campaña."))
        if isinstance(payload, events.DiseaseEdited):
            for field, (old, new) in events.changed(payload.changes).items():
                self._change(f"{at}.details.changes.{field}", sheet, field, old, new, "disease")
            for field, message in disease_errors(sheet["category"], sheet["penalty"], sheet["pg_per_week"]).items():
                raise invalid_copy(f"{at}.details.changes.{field}", message)
        retired = {EventKind.DISEASE_RETIRED: True, EventKind.DISEASE_RESTORED: False, EventKind.DISEASE_ADDED: False}
        if entry.action in retired:
            if sheet["retired"] != retired[entry.action]:
                raise invalid_copy(f"{at}.details.disease", _("no cuadra con la enfermedad de la copia."))
            sheet["retired"] = not sheet["retired"]
        if entry.action == EventKind.DISEASE_ADDED:
            del self.own[payload.disease]


def _value(what: str, field: str, value: Any) -> bool:
    """One side of a change, as its action stores it."""
    if field == "name":
        longest = DISEASE_NAME_LENGTH if what == "disease" else NAME_LENGTH
        return isinstance(value, str) and len(value) <= longest and re.match(TRIMMED, value) is not None
    if field in SHEET_RANGES:
        low, high = SHEET_RANGES[field]
        return type(value) is int and low <= value <= high
    if field == "notes":
        return isinstance(value, str) and len(value) <= NOTES_LENGTH
    if field == "party_view":
        # A campaign always has a view of its own; a character may also have none (the campaign's).
        return value in (PartyView.values if what == "campaign" else CHARACTER_PARTY_VIEWS)
    return field in ("category", "penalty", "pg_per_week")  # judged together, by disease_errors
