"""The campaign log in words: one entry per event, each roll with its parts. One small function per event kind."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from campaigns.clock import format_clock, format_duration
from campaigns.models import Event, EventKind
from play.party import view_words
from rules import explained, mapping
from rules.explained import check_anchor
from rules.models import Category, WoundKind

logger = logging.getLogger(__name__)


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
    unseen: frozenset[int] = frozenset()  # characters the reader may not see named (access.kept_from)

    @property
    def details(self) -> dict[str, Any]:
        return self.event.details

    def name(self, pk: int | str) -> str:
        return self.names.get(int(pk), f"#{pk}")

    def mine(self, pk: int | str) -> bool:
        return self.only is None or int(pk) == self.only

    def patient(self) -> str:
        return self.name(self.event.characters[0])

    def healer(self) -> str:
        """Who treated: by name, unless the reader may not see that character (a secret NPC): then "Alguien"."""
        if int(self.details.get("healer", 0)) in self.unseen:
            return _("Alguien")
        return self.details["healer_name"]

    def rolls(self, everyone: bool = False) -> list[str]:
        return [roll_line(roll) for roll in self.details.get("rolls", []) if everyone or self.mine(roll["character"])]

    def skipped(self) -> list[str]:
        """The dead members of a group, who make no check (RULES.md section 7.8)."""
        return [
            _("%(name)s ha muerto: sin tirada") % {"name": self.name(pk)}
            for pk in self.details.get("skipped", [])
            if self.mine(pk)
        ]

    def answered(self) -> list[str]:
        """Who rolled a check the GM called (rules.actions.checks): the player on their phone, or the GM for them."""
        call = self.details.get("call")
        if not call or not call.get("by"):
            return []
        if call.get("typed"):
            return [_("Tirada pedida: %(who)s anota el dado") % {"who": call["by"]}]
        return [_("Tirada pedida: %(who)s deja tirar al servidor") % {"who": call["by"]}]

    def for_whom(self) -> list[str]:
        names = [self.name(pk) for pk in self.event.characters if self.mine(pk)]
        return [_("Para %(names)s") % {"names": ", ".join(names)}] if names else []

    def deaths(self) -> list[str]:
        """Who died in this event, and when in campaign time (inside an advance, the very second)."""
        lines = []
        for pk, after in self.event.after.items():
            before = self.event.before.get(pk, {})
            if self.mine(pk) and after.get("died_at") is not None and before.get("died_at") is None:
                when = format_clock(after["died_at"])
                lines.append(_("%(name)s muere (%(when)s)") % {"name": self.name(pk), "when": when})
        return lines


def penalty_label(label: str) -> str:
    if label == "pg":
        return _("PG bajos")
    return label.removeprefix("illness:")


class Explained(str):
    """A line of the log that a line of the rules page explains (a roll): `why` is its address there."""

    why: str = ""


def explained_line(text: str, anchor: str) -> Explained:
    line = Explained(text)
    line.why = explained.why(anchor)
    return line


def penalty_terms(parts: Iterable[tuple[str, int] | list[Any]]) -> list[str]:
    """A check's penalties as its sum writes them: "− 4 (PG bajos)", "− 2 (Peste)"."""
    return [f"− {-value} ({penalty_label(label)})" for label, value in parts if value]


def roll_line(roll: dict[str, Any]) -> Explained:
    anchor = "illness-protection" if roll.get("protected") else check_anchor(roll["check"])
    return explained_line(roll_text(roll), anchor)


def roll_text(roll: dict[str, Any]) -> str:
    check, base = CHECK_NAMES.get(roll["check"], (roll["check"], ""))
    if roll.get("protected"):
        return _("%(name)s — %(check)s: protegido hoy, sin tirada") % {"name": roll["name"], "check": check}
    parts = [f"1d{roll['sides']} ({roll['die']})", f"+ {base} {roll['modifier']}"]
    parts += penalty_terms(roll["penalties"])
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


def damage_inputs(details: dict[str, Any]) -> str:
    """What the GM gave for the damage: speed and weight, height and difficulty, or turns."""
    weight = _("%(kg)s kg") % {"kg": details["weight_kg"]} if "weight_kg" in details else _("el peso de cada hoja")
    if "speed_kmh" in details:
        return _("A %(speed)s km/h, con %(weight)s") % {"speed": details["speed_kmh"], "weight": weight}
    if "height_m" in details:
        return _("Desde %(height)s m, con %(weight)s; dificultad %(difficulty)s") % {
            "height": details["height_m"],
            "weight": weight,
            "difficulty": details["difficulty"],
        }
    if "turns" in details:
        turns = details["turns"]
        return ngettext("%(count)s turno", "%(count)s turnos", turns) % {"count": turns}
    return ""


def pg_lines(story: Story) -> list[str]:
    """Each character's PG before and after: "Aldara: 80 → 73 PG"."""
    return [
        _("%(name)s: %(before)s → %(after)s PG") % {"name": story.name(pk), "before": before, "after": after}
        for pk, (before, after) in story.details.get("pg", {}).items()
        if story.mine(pk) and before != after
    ]


def damage(story: Story) -> tuple[str, list[str]]:
    details = story.details
    kind = details.get("kind", "")
    title = _("Daño: %(kind)s") % {"kind": WoundKind(kind).label if kind in WoundKind.values else kind}
    lines = [text] if (text := damage_inputs(details)) else []
    if "dice" in details:
        lines.append(_("Tirada de daño: %(detail)s") % {"detail": details["dice"]["detail"]})
    lines += story.rolls() + story.answered() + story.skipped()
    lines += losses(story)
    return title, lines + story.deaths()


def losses(story: Story) -> list[str]:
    """Each character's loss with its PG before and after: "Aldara pierde 7 PG (80 → 73)"."""
    lines = []
    for pk, lost in story.details.get("damage", {}).items():
        if not story.mine(pk):
            continue
        name = story.name(pk)
        if "pg" not in story.details:  # an event logged before PG before and after were kept
            lines.append(_("%(name)s pierde %(pg)s PG") % {"name": name, "pg": lost})
            continue
        before, after = story.details["pg"][pk]
        if before == 0:
            lines.append(
                _("%(name)s ya había muerto: la herida (%(pg)s PG) queda anotada") % {"name": name, "pg": lost}
            )
        else:
            message = _("%(name)s pierde %(pg)s PG (%(before)s → %(after)s)")
            lines.append(message % {"name": name, "pg": before - after, "before": before, "after": after})
    return lines


def advance(story: Story) -> tuple[str, list[str]]:
    title = _("Pasa el tiempo: %(duration)s") % {"duration": format_duration(story.details["seconds"])}
    return title, pg_lines(story) + story.deaths()


def expose(story: Story) -> tuple[str, list[str]]:
    title = _("Exposición a %(disease)s") % {"disease": story.details["disease"]}
    lines = story.rolls() + story.answered() + story.skipped()
    lines += [
        _("%(name)s enferma") % {"name": story.name(pk)} for pk in story.details.get("fell_ill", []) if story.mine(pk)
    ]
    return title, lines


def treat_wounds(story: Story) -> tuple[str, list[str]]:
    title = _("%(healer)s trata las heridas de %(patient)s") % {
        "healer": story.healer(),
        "patient": story.patient(),
    }
    return title, []


def treat_illness(story: Story) -> tuple[str, list[str]]:
    title = _("%(healer)s trata %(disease)s de %(patient)s") % {
        "healer": story.healer(),
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
    lines = story.rolls(everyone=True) + story.answered()
    lost = sum(story.details.get("damage", {}).values())
    return title, lines + (losses(story) if lost else []) + story.deaths()


def undo(story: Story) -> tuple[str, list[str]]:
    # What was undone travels in the undo's details, so the entry can name it ("Deshecho: Exposición a Peste").
    undone = story.details.get("undone", {})
    event = Event(
        action=story.details["action"],
        details=undone.get("details", {}),
        characters=undone.get("characters", []),
        clock_before=story.event.clock_before,
    )
    what = entry_for(event, story.names, story.only, story.unseen).title
    return _("Deshecho: %(what)s") % {"what": what}, []


SHEET_LABELS = {
    "name": gettext_lazy("Nombre"),
    "player_id": gettext_lazy("Jugador"),
    "constitution": gettext_lazy("CON"),
    "jump": gettext_lazy("Saltar"),
    "heal_wounds": gettext_lazy("Curar Heridas"),
    "weight_kg": gettext_lazy("Peso (kg)"),
    "notes": gettext_lazy("Notas"),
    "party_view": gettext_lazy("Lo que ven los demás jugadores"),
    "gm_id": gettext_lazy("Narrador"),
    "category": gettext_lazy("Categoría"),
    "penalty": gettext_lazy("Penalización"),
    "pg_per_week": gettext_lazy("PG por semana"),
}


def changes_lines(story: Story, people: dict[str, list[str]], leave_out: tuple[str, ...] = ()) -> list[str]:
    """One line per changed field: "CON: 8 → 7"; people by name, notes without their text."""
    lines = []
    changes: dict[str, list[Any]] = story.details.get("changes", {})
    order = list(SHEET_LABELS)
    for field in sorted(changes, key=lambda name: order.index(name) if name in order else len(order)):
        if field in leave_out:
            continue
        if field == "notes":
            lines.append(_("Notas cambiadas"))
            continue
        old, new = (in_words(field, value) for value in changes[field])
        if field in people:
            old, new = (name or _("nadie") for name in people[field])
        label = SHEET_LABELS.get(field, field)
        lines.append(_("%(field)s: %(old)s → %(new)s") % {"field": label, "old": old, "new": new})
    return lines


def in_words(field: str, value: Any) -> str:
    if field == "party_view":
        return view_words(value)  # a character's "" is the campaign's: said in words too
    if value is None or value == "":
        return "—"
    if field == "category" and value in Category.values:
        return str(Category(value).label)
    return str(value)


def character_added(story: Story) -> tuple[str, list[str]]:
    title = _("Nuevo personaje: %(name)s") % {"name": story.details["name"]}
    player = story.details.get("player")
    return title, [_("Lo juega %(player)s") % {"player": player}] if player else []


def character_edited(story: Story) -> tuple[str, list[str]]:
    title = _("Hoja de %(name)s editada") % {"name": story.details["name"]}
    players = {"player_id": story.details["players"]} if "players" in story.details else {}
    return title, changes_lines(story, players) + pg_lines_of_edit(story) + story.deaths()


def pg_lines_of_edit(story: Story) -> list[str]:
    lines = []
    for pk, after in story.event.after.items():
        before = story.event.before.get(pk)
        if before is not None and story.mine(pk):
            old = mapping.from_json(before)
            new = mapping.from_json(after)
            if (old.pg, old.max_pg) != (new.pg, new.max_pg):
                lines.append(
                    _("%(name)s: %(before)s → %(after)s PG")
                    % {"name": story.name(pk), "before": f"{old.pg}/{old.max_pg}", "after": f"{new.pg}/{new.max_pg}"}
                )
    return lines


def character_removed(story: Story) -> tuple[str, list[str]]:
    return _("%(name)s sale de la campaña") % {"name": story.details["name"]}, []


def invitation_created(story: Story) -> tuple[str, list[str]]:
    return _("Enlace de invitación para %(name)s") % {"name": story.details["name"]}, []


def invitation_revoked(story: Story) -> tuple[str, list[str]]:
    return _("Enlace de invitación de %(name)s anulado") % {"name": story.details["name"]}, []


def invitation_claimed(story: Story) -> tuple[str, list[str]]:
    return _("%(player)s juega con %(name)s") % {"player": story.details["player"], "name": story.details["name"]}, []


def disease_added(story: Story) -> tuple[str, list[str]]:
    return _("Nueva enfermedad: %(name)s") % {"name": story.details["name"]}, []


def disease_edited(story: Story) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s editada") % {"name": story.details["name"]}, changes_lines(story, {})


def disease_retired(story: Story) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s retirada") % {"name": story.details["name"]}, []


def disease_restored(story: Story) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s disponible de nuevo") % {"name": story.details["name"]}, []


def campaign_edited(story: Story) -> tuple[str, list[str]]:
    gms = {"gm_id": story.details["gms"]} if "gms" in story.details else {}
    changes = story.details.get("changes", {})
    lines = changes_lines(story, gms, leave_out=("party_view",))
    if "party_view" in changes:
        lines.append(_("Los jugadores ven de los demás: %(what)s") % {"what": view_words(changes["party_view"][1])})
    return _("Campaña editada"), lines


def check_called(story: Story) -> tuple[str, list[str]]:
    details = story.details
    title = _("Tirada pedida: %(check)s") % {"check": called_check(details)}
    protected = [
        _("%(name)s está protegido hoy: sin tirada") % {"name": story.name(pk)}
        for pk in details.get("protected", [])
        if story.mine(pk)
    ]
    return title, story.for_whom() + story.skipped() + protected


def called_check(details: dict[str, Any]) -> str:
    """The check a call asks for, in words: "caída de 6 m (dificultad 12)", "resistencia a Peste", "esfuerzo"."""
    check = str(CHECK_NAMES.get(details["check"], (details["check"], ""))[0])
    if "height_m" in details:
        return _("%(check)s de %(height)s m (dificultad %(difficulty)s)") % {
            "check": check,
            "height": details["height_m"],
            "difficulty": details["difficulty"],
        }
    if "disease" in details:
        return _("%(check)s a %(disease)s") % {"check": check, "disease": details["disease"]}
    return check


def check_cancelled(story: Story) -> tuple[str, list[str]]:
    return _("Tirada anulada: %(check)s") % {"check": called_check(story.details)}, story.for_whom()


WORDING: dict[str, Callable[[Story], tuple[str, list[str]]]] = {
    EventKind.DAMAGE: damage,
    EventKind.ADVANCE: advance,
    EventKind.EXPOSE: expose,
    EventKind.TREAT_WOUNDS: treat_wounds,
    EventKind.TREAT_ILLNESS: treat_illness,
    EventKind.MEDICATE: medicate,
    EventKind.EXERTION: exertion,
    EventKind.UNDO: undo,
    EventKind.CHARACTER_ADDED: character_added,
    EventKind.CHARACTER_EDITED: character_edited,
    EventKind.CHARACTER_REMOVED: character_removed,
    EventKind.INVITATION_CREATED: invitation_created,
    EventKind.INVITATION_REVOKED: invitation_revoked,
    EventKind.INVITATION_CLAIMED: invitation_claimed,
    EventKind.DISEASE_ADDED: disease_added,
    EventKind.DISEASE_EDITED: disease_edited,
    EventKind.DISEASE_RETIRED: disease_retired,
    EventKind.DISEASE_RESTORED: disease_restored,
    EventKind.CAMPAIGN_EDITED: campaign_edited,
    EventKind.CHECK_CALLED: check_called,
    EventKind.CHECK_CANCELLED: check_cancelled,
}


def outcome_lines(event: Event, names: dict[int, str], only: int, who: bool = True) -> list[str]:
    """What a called check's answer did to one character, as its log entry words it without the call's inputs: the
    roll, who rolled it, and the PG lost, the illness caught or the death."""
    story = Story(event, names, only)
    fell_ill = [_("%(name)s enferma") % {"name": story.name(only)}] if only in story.details.get("fell_ill", []) else []
    answered = story.answered() if who else []
    return story.rolls(everyone=True) + answered + fell_ill + losses(story) + story.deaths()


def entry_for(
    event: Event, names: dict[int, str], only: int | None = None, unseen: frozenset[int] = frozenset()
) -> Entry:
    """Describe one event; with `only`, just the lines about that character (a player's sheet). An entry whose details
    cannot be read (an imported log: the import checks what it can) is named by its kind alone, never a broken page."""
    try:
        title, lines = WORDING[event.action](Story(event, names, only, unseen))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        logger.warning("unreadable log entry: event %s (%s)", event.pk, event.action, exc_info=True)
        title, lines = _("%(action)s (registro importado ilegible)") % {"action": event.get_action_display()}, []
    return Entry(event, format_clock(event.clock_before), title, lines)
