"""The campaign log in words: one entry per event, each roll with its parts. One small function per event kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.clock import format_clock, format_duration
from campaigns.models import Campaign, Event, EventKind
from characters.models import Character
from rules.models import WoundKind

LOG_LENGTH = 40  # entries on the GM's table
SHEET_LOG_LENGTH = 15  # entries on a character's sheet

CHECK_NAMES = {
    "fall": (gettext_lazy("caída"), gettext_lazy("Saltar")),
    "resistance": (gettext_lazy("resistencia"), gettext_lazy("CON")),
    "exertion": (gettext_lazy("esfuerzo"), gettext_lazy("CON")),
}


@dataclass
class Entry:
    event: Event
    when: str
    title: str
    lines: list[str]


@dataclass
class Story:
    """What an entry is written from: the event, the characters' names, and whose lines to keep (None: everyone's)."""

    event: Event
    names: dict[int, str]
    only: int | None

    @property
    def details(self) -> dict[str, Any]:
        return self.event.details

    def name(self, pk: int | str) -> str:
        return self.names.get(int(pk), f"#{pk}")

    def mine(self, pk: int | str) -> bool:
        return self.only is None or int(pk) == self.only

    def patient(self) -> str:
        return self.name(self.event.characters[0])

    def rolls(self, everyone: bool = False) -> list[str]:
        return [roll_line(roll) for roll in self.details.get("rolls", []) if everyone or self.mine(roll["character"])]


def penalty_label(label: str) -> str:
    if label == "pg":
        return _("PG bajos")
    return label.removeprefix("illness:")


def roll_line(roll: dict[str, Any]) -> str:
    check, base = CHECK_NAMES.get(roll["check"], (roll["check"], ""))
    if roll.get("protected"):
        return _("%(name)s — %(check)s: protegido hoy, sin tirada") % {"name": roll["name"], "check": check}
    parts = [f"1d{roll['sides']} ({roll['die']})", f"+ {base} {roll['modifier']}"]
    parts += [f"− {-value} ({penalty_label(label)})" for label, value in roll["penalties"] if value]
    result = _("éxito") if roll["success"] else _("fallo")
    return _("%(name)s — %(check)s: %(parts)s = %(total)s contra %(difficulty)s: %(result)s") % {
        "name": roll["name"],
        "check": check,
        "parts": " ".join(parts),
        "total": roll["total"],
        "difficulty": roll["difficulty"],
        "result": result,
    }


def cured_line(story: Story) -> list[str]:
    return [_("Curada.")] if story.details.get("cured") else []


def damage(story: Story) -> tuple[str, list[str]]:
    kind = story.details.get("kind", "")
    title = _("Daño: %(kind)s") % {"kind": WoundKind(kind).label if kind in WoundKind.values else kind}
    lines = []
    if "dice" in story.details:
        lines.append(_("Tirada de daño: %(detail)s") % {"detail": story.details["dice"]["detail"]})
    lines += story.rolls()
    lines += [
        _("%(name)s pierde %(pg)s PG") % {"name": story.name(pk), "pg": pg}
        for pk, pg in story.details.get("damage", {}).items()
        if story.mine(pk)
    ]
    return title, lines


def advance(story: Story) -> tuple[str, list[str]]:
    title = _("Pasa el tiempo: %(duration)s") % {"duration": format_duration(story.details["seconds"])}
    lines = [
        _("%(name)s: %(before)s → %(after)s PG") % {"name": story.name(pk), "before": pg[0], "after": pg[1]}
        for pk, pg in story.details.get("pg", {}).items()
        if story.mine(pk) and pg[0] != pg[1]
    ]
    return title, lines


def expose(story: Story) -> tuple[str, list[str]]:
    title = _("Exposición a %(disease)s") % {"disease": story.details["disease"]}
    lines = story.rolls()
    lines += [
        _("%(name)s enferma") % {"name": story.name(pk)} for pk in story.details.get("fell_ill", []) if story.mine(pk)
    ]
    return title, lines


def treat_wounds(story: Story) -> tuple[str, list[str]]:
    title = _("%(healer)s trata las heridas de %(patient)s") % {
        "healer": story.details["healer_name"],
        "patient": story.patient(),
    }
    return title, []


def treat_illness(story: Story) -> tuple[str, list[str]]:
    title = _("%(healer)s trata %(disease)s de %(patient)s") % {
        "healer": story.details["healer_name"],
        "disease": story.details["disease"],
        "patient": story.patient(),
    }
    return title, cured_line(story)


def medicate(story: Story) -> tuple[str, list[str]]:
    title = _("%(patient)s toma medicamentos para %(disease)s") % {
        "patient": story.patient(),
        "disease": story.details["disease"],
    }
    return title, cured_line(story)


def exertion(story: Story) -> tuple[str, list[str]]:
    title = _("Esfuerzo de %(name)s") % {"name": story.patient()}
    lines = story.rolls(everyone=True)
    lost = sum(story.details.get("damage", {}).values())
    if lost:
        lines.append(_("Pierde %(pg)s PG") % {"pg": lost})
    return title, lines


def undo(story: Story) -> tuple[str, list[str]]:
    # What was undone travels in the undo's details, so the entry can name it ("Deshecho: Exposición a Peste").
    undone = story.details.get("undone", {})
    event = Event(
        action=story.details["action"],
        details=undone.get("details", {}),
        characters=undone.get("characters", []),
        clock_before=story.event.clock_before,
    )
    what = entry_for(event, story.names, story.only).title
    return _("Deshecho: %(what)s") % {"what": what}, []


WORDING: dict[str, Callable[[Story], tuple[str, list[str]]]] = {
    EventKind.DAMAGE: damage,
    EventKind.ADVANCE: advance,
    EventKind.EXPOSE: expose,
    EventKind.TREAT_WOUNDS: treat_wounds,
    EventKind.TREAT_ILLNESS: treat_illness,
    EventKind.MEDICATE: medicate,
    EventKind.EXERTION: exertion,
    EventKind.UNDO: undo,
}


def entry_for(event: Event, names: dict[int, str], only: int | None = None) -> Entry:
    """Describe one event; with `only`, just the lines about that character (a player's sheet)."""
    title, lines = WORDING[event.action](Story(event, names, only))
    return Entry(event, format_clock(event.clock_before), title, lines)


def latest_events(campaign: Campaign) -> QuerySet[Event]:
    return campaign.events.order_by("-id")[:LOG_LENGTH]


def table_log(campaign: Campaign, names: dict[int, str]) -> list[Entry]:
    """The GM's log: the latest events of the whole campaign."""
    return [entry_for(event, names) for event in latest_events(campaign)]


def sheet_log(campaign: Campaign, character: Character) -> list[Entry]:
    """A sheet's log: the latest events about one character, only the lines about them."""
    events = campaign.events.filter(characters__contains=[character.pk]).order_by("-id")[:SHEET_LOG_LENGTH]
    return [entry_for(event, {character.pk: character.name}, only=character.pk) for event in events]
