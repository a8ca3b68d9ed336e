"""A document's log walked backwards from its rows, as undo walks it (rules.backup.validate calls it): every entry
still to undo puts back what fits the rows it writes to — its wounds' amounts, illnesses of diseases there are,
sheets, the campaign's name and view, its own diseases — each value one its action could have written."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _

from campaigns.models import PartyView
from characters.models import SHEET_RANGES
from rules import events
from rules.actions.sheet import CHARACTER_PARTY_VIEWS
from rules.backup.read import invalid_copy
from rules.backup.schema import DISEASE_NAME_LENGTH, NAME_LENGTH, NOTES_LENGTH, TRIMMED, Document, EventEntry
from rules.events import EventKind
from rules.models import disease_errors

DISEASE_KINDS = {kind for kind, payload in events.PAYLOADS.items() if payload.changes_disease}
SHEET = ("name", "constitution", "jump", "heal_wounds", "weight_kg", "notes", "party_view")

assert set(CHARACTER_PARTY_VIEWS) == {"", *PartyView.values}, "schema.CharacterPartyView lists them"


class Undos:
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
