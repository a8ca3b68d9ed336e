"""The campaign log in words: one entry per event, each roll with its parts."""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.clock import format_clock, format_duration
from campaigns.models import Event
from rules.models import WoundKind

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


def penalty_label(label: str) -> str:
    if label == "pg":
        return _("PG bajos")
    return label.removeprefix("illness:")


def roll_line(roll: dict) -> str:
    check, base = CHECK_NAMES.get(roll["check"], (roll["check"], ""))
    if roll.get("protected"):
        return _("%(name)s — %(check)s: protegido hoy, sin tirada") % {"name": roll["name"], "check": check}
    parts = [f"1d{roll['sides']} ({roll['die']})", f"+ {base} {roll['modifier']}"]
    parts += [f"− {-value} ({penalty_label(label)})" for label, value in roll["penalties"] if value]
    result = _("éxito") if roll["success"] else _("fallo")
    return _("%(name)s — %(check)s: %(parts)s = %(total)s contra %(difficulty)s: %(result)s") % {
        "name": roll["name"], "check": check, "parts": " ".join(parts), "total": roll["total"],
        "difficulty": roll["difficulty"], "result": result,
    }


def entry_for(event: Event, names: dict[int, str], only: int | None = None) -> Entry:
    """Describe one event; with `only`, just the lines about that character (a player's sheet)."""
    details = event.details
    kinds = dict(WoundKind.choices)

    def name(pk) -> str:
        return names.get(int(pk), f"#{pk}")

    def mine(pk) -> bool:
        return only is None or int(pk) == only

    lines: list[str] = []
    if event.action == "damage":
        title = _("Daño: %(kind)s") % {"kind": kinds.get(details.get("kind"), details.get("kind"))}
        if "dice" in details:
            lines.append(_("Tirada de daño: %(detail)s") % {"detail": details["dice"]["detail"]})
        lines += [roll_line(roll) for roll in details.get("rolls", []) if mine(roll["character"])]
        lines += [_("%(name)s pierde %(pg)s PG") % {"name": name(pk), "pg": pg}
                  for pk, pg in details.get("damage", {}).items() if mine(pk)]
    elif event.action == "advance":
        title = _("Pasa el tiempo: %(duration)s") % {"duration": format_duration(details["seconds"])}
        lines += [_("%(name)s: %(before)s → %(after)s PG") % {"name": name(pk), "before": pg[0], "after": pg[1]}
                  for pk, pg in details.get("pg", {}).items() if mine(pk) and pg[0] != pg[1]]
    elif event.action == "expose":
        title = _("Exposición a %(disease)s") % {"disease": details["disease"]}
        lines += [roll_line(roll) for roll in details.get("rolls", []) if mine(roll["character"])]
        lines += [_("%(name)s enferma") % {"name": name(pk)} for pk in details.get("fell_ill", []) if mine(pk)]
    elif event.action == "treat_wounds":
        title = _("%(healer)s trata las heridas de %(patient)s") % {
            "healer": details["healer_name"], "patient": name(event.characters[0])}
    elif event.action == "treat_illness":
        title = _("%(healer)s trata %(disease)s de %(patient)s") % {
            "healer": details["healer_name"], "disease": details["disease"], "patient": name(event.characters[0])}
        if details.get("cured"):
            lines.append(_("Curada."))
    elif event.action == "medicate":
        title = _("%(patient)s toma medicamentos para %(disease)s") % {
            "patient": name(event.characters[0]), "disease": details["disease"]}
        if details.get("cured"):
            lines.append(_("Curada."))
    elif event.action == "exertion":
        title = _("Esfuerzo de %(name)s") % {"name": name(event.characters[0])}
        lines += [roll_line(roll) for roll in details.get("rolls", [])]
        lost = sum(details.get("damage", {}).values())
        if lost:
            lines.append(_("Pierde %(pg)s PG") % {"pg": lost})
    elif event.action == "undo":
        undone = details.get("undone", {})
        what = entry_for(Event(action=details["action"], details=undone.get("details", {}),
                               characters=undone.get("characters", []), clock_before=event.clock_before),
                         names, only).title
        title = _("Deshecho: %(what)s") % {"what": what}
    else:
        title = event.action
    return Entry(event, format_clock(event.clock_before), title, lines)


SHEET_LOG_LENGTH = 15


def sheet_log(campaign, character) -> list:
    """The latest events about one character, only the lines about them."""
    events = campaign.events.filter(characters__contains=[character.pk]).order_by("-id")[:SHEET_LOG_LENGTH]
    return [entry_for(event, {character.pk: character.name}, only=character.pk) for event in events]
