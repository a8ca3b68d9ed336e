"""The campaign log in words: one entry per event, each roll with its parts. One small function per event kind."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from campaigns.clock import format_clock, format_duration
from campaigns.models import Event
from play.party import view_words
from rules import events, explained, mapping
from rules.explained import check_anchor
from rules.models import Category, disease_name
from rules.signs import minus

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)


CHECK_NAMES: dict[str, tuple[StrOrPromise, StrOrPromise]] = {
    "fall": (gettext_lazy("caída"), gettext_lazy("Saltar")),
    "resistance": (gettext_lazy("resistencia"), gettext_lazy("CON")),
    "exertion": (gettext_lazy("esfuerzo"), gettext_lazy("CON")),
}


type Wording = Callable[[Story, Any], tuple[str, list[str]]]

# One wording function per payload type (rules.events): the entry's title and its lines.
WORDING: dict[type[events.Payload], Wording] = {}


def words[W: Wording](payload_type: type[events.Payload]) -> Callable[[W], W]:
    def register(wording: W) -> W:
        WORDING[payload_type] = wording
        return wording

    return register


@dataclass
class Entry:
    event: Event
    when: str
    title: str
    lines: list[str]
    who: str = ""  # who acted (who_acted)


def who_acted(username: str | None, actor_name: str) -> str:
    """Who an entry names as having acted: the account's username now (a rename shows at once), the name an imported
    entry keeps, or nothing for a script."""
    return username or actor_name


@dataclass
class Story:
    """What an entry is written from: the event, the characters' names, and whose lines to keep (None: everyone's)."""

    event: Event
    payload: events.Payload
    names: dict[int, str]
    only: int | None
    unseen: frozenset[int] = frozenset()  # characters the reader may not see named (access.kept_from)

    def name(self, pk: int | str) -> str:
        return self.names.get(int(pk), f"#{pk}") if str(pk).isdigit() else f"#{pk}"

    def mine(self, pk: int | str) -> bool:
        return self.only is None or str(pk) == str(self.only)

    def named(self, named: list[events.Named]) -> list[str]:
        """The names of those the reader may see: with `only`, theirs; never one kept from them (a secret NPC)."""
        return [
            n.name
            for n in named
            if self.mine(n.character) and not (str(n.character).isdigit() and int(n.character) in self.unseen)
        ]

    def patient(self) -> str:
        return self.name(self.event.characters[0])

    def healer(self, payload: events.TreatWounds | events.TreatIllness) -> str:
        """Who treated: by name, unless the reader may not see that character (a secret NPC): then "Alguien"."""
        if not str(payload.healer).isdigit() or int(payload.healer) in self.unseen:
            return _("Alguien")
        return payload.healer_name

    def rolls(self, rolls: list[events.Roll], everyone: bool = False) -> list[str]:
        return [roll_line(roll) for roll in rolls if everyone or self.mine(roll.character)]

    def skipped(self, skipped: list[events.CharacterRef]) -> list[str]:
        """The dead members of a group, who make no check (docs/rules.md §7.8)."""
        return [_("%(name)s ha muerto: sin tirada") % {"name": self.name(pk)} for pk in skipped if self.mine(pk)]

    def answered(self, call: events.Answer | None) -> list[str]:
        """Who rolled a check the GM called (rules.actions.checks): the player on their phone, or the GM for them."""
        if call is None or not call.by:
            return []
        if call.typed:
            return [_("Tirada pedida: %(who)s anota el dado") % {"who": call.by}]
        return [_("Tirada pedida: %(who)s deja tirar al servidor") % {"who": call.by}]

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
    return disease_name(label.removeprefix("illness:"))


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


def roll_line(roll: events.Roll) -> Explained:
    anchor = "illness-protection" if roll.protected else check_anchor(roll.check)
    return explained_line(roll_text(roll), anchor)


def roll_text(roll: events.Roll) -> str:
    check, base = CHECK_NAMES[roll.check]
    if roll.protected:
        return _("%(name)s — %(check)s: protegido hoy, sin tirada") % {"name": roll.name, "check": check}
    assert roll.total is not None  # every roll made has its total; only a protected one has none
    parts = [f"1d{roll.sides} ({roll.die})", f"+ {base} {roll.modifier}"]
    parts += penalty_terms(roll.penalties)
    result = _("éxito") if roll.success else _("fallo")
    return _("%(name)s — %(check)s: %(parts)s = %(total)s contra %(difficulty)s: %(result)s") % {
        "name": roll.name,
        "check": check,
        "parts": " ".join(parts),
        "total": minus(roll.total),
        "difficulty": roll.difficulty,
        "result": result,
    }


def cured_line(payload: events.TreatIllness | events.Medicate) -> list[str]:
    return [_("Curada.")] if payload.cured else []


def damage_inputs(payload: events.Damage) -> str:
    """What the GM gave for the damage: speed and weight, height and difficulty, or turns."""
    kg = payload.weight_kg
    weight = _("el peso de cada hoja") if kg is None else _("%(kg)s kg") % {"kg": kg}
    if payload.speed_kmh is not None:
        return _("A %(speed)s km/h, con %(weight)s") % {"speed": payload.speed_kmh, "weight": weight}
    if payload.height_m is not None:
        return _("Desde %(height)s m, con %(weight)s; dificultad %(difficulty)s") % {
            "height": payload.height_m,
            "weight": weight,
            "difficulty": payload.difficulty,
        }
    if payload.turns is not None:
        turns = payload.turns
        return ngettext("%(count)s turno", "%(count)s turnos", turns) % {"count": turns}
    return ""


def pg_lines(story: Story, pg: dict[str, tuple[int, int]]) -> list[str]:
    """Each character's PG before and after: "Aldara: 80 → 73 PG"."""
    return [
        _("%(name)s: %(before)s → %(after)s PG") % {"name": story.name(pk), "before": before, "after": after}
        for pk, (before, after) in pg.items()
        if story.mine(pk) and before != after
    ]


@words(events.Damage)
def damage(story: Story, payload: events.Damage) -> tuple[str, list[str]]:
    title = _("Daño: %(kind)s") % {"kind": payload.kind.label}
    lines = [text] if (text := damage_inputs(payload)) else []
    if payload.dice is not None:
        lines.append(_("Tirada de daño: %(detail)s") % {"detail": payload.dice.detail.replace("-", "−")})
    lines += story.rolls(payload.rolls) + story.answered(payload.call) + story.skipped(payload.skipped)
    lines += losses(story, payload)
    return title, lines + story.deaths()


def losses(story: Story, payload: events.Damage | events.Exertion) -> list[str]:
    """Each character's loss with its PG before and after: "Aldara pierde 7 PG (80 → 73)", or "Borin: sin daño"."""
    lines = []
    for pk, lost in payload.damage.items():
        if not story.mine(pk):
            continue
        name = story.name(pk)
        before, after = payload.pg[pk]
        if before == 0:
            lines.append(
                _("%(name)s ya había muerto: la herida (%(pg)s PG) queda anotada") % {"name": name, "pg": lost}
            )
        elif before == after:  # a fall or an exertion check passed, an attack of 0
            lines.append(_("%(name)s: sin daño") % {"name": name})
        else:
            message = _("%(name)s pierde %(pg)s PG (%(before)s → %(after)s)")
            lines.append(message % {"name": name, "pg": before - after, "before": before, "after": after})
    return lines


@words(events.Advance)
def advance(story: Story, payload: events.Advance) -> tuple[str, list[str]]:
    title = _("Pasa el tiempo: %(duration)s") % {"duration": format_duration(payload.seconds)}
    return title, pg_lines(story, payload.pg) + story.deaths()


@words(events.Expose)
def expose(story: Story, payload: events.Expose) -> tuple[str, list[str]]:
    title = _("Exposición a %(disease)s") % {"disease": disease_name(payload.disease)}
    lines = story.rolls(payload.rolls) + story.answered(payload.call) + story.skipped(payload.skipped)
    lines += [_("%(name)s enferma") % {"name": story.name(pk)} for pk in payload.fell_ill if story.mine(pk)]
    return title, lines


@words(events.TreatWounds)
def treat_wounds(story: Story, payload: events.TreatWounds) -> tuple[str, list[str]]:
    title = _("%(healer)s trata las heridas de %(patient)s") % {
        "healer": story.healer(payload),
        "patient": story.patient(),
    }
    return title, []


@words(events.TreatIllness)
def treat_illness(story: Story, payload: events.TreatIllness) -> tuple[str, list[str]]:
    title = _("%(healer)s trata %(disease)s de %(patient)s") % {
        "healer": story.healer(payload),
        "disease": disease_name(payload.disease),
        "patient": story.patient(),
    }
    return title, cured_line(payload)


@words(events.Medicate)
def medicate(story: Story, payload: events.Medicate) -> tuple[str, list[str]]:
    title = _("%(patient)s toma medicamentos para %(disease)s") % {
        "patient": story.patient(),
        "disease": disease_name(payload.disease),
    }
    return title, cured_line(payload)


@words(events.Exertion)
def exertion(story: Story, payload: events.Exertion) -> tuple[str, list[str]]:
    title = _("Esfuerzo de %(name)s") % {"name": story.patient()}
    lines = story.rolls(payload.rolls, everyone=True) + story.answered(payload.call)
    lost = sum(payload.damage.values())
    return title, lines + (losses(story, payload) if lost else []) + story.deaths()


@words(events.Undo)
def undo(story: Story, payload: events.Undo) -> tuple[str, list[str]]:
    # What was undone travels in the undo's details, so the entry can name it ("Deshecho: Exposición a Peste").
    event = Event(
        action=payload.action,
        details=payload.undone.details,
        characters=payload.undone.characters,
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


def changes_lines(
    changes: dict[str, tuple[Any, Any]], people: dict[str, tuple[str, str]], leave_out: tuple[str, ...] = ()
) -> list[str]:
    """One line per changed field: "CON: 8 → 7"; people by name, notes without their text."""
    lines = []
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


@words(events.CharacterAdded)
def character_added(story: Story, payload: events.CharacterAdded) -> tuple[str, list[str]]:
    title = _("Nuevo personaje: %(name)s") % {"name": payload.name}
    return title, [_("Lo juega %(player)s") % {"player": payload.player}] if payload.player else []


@words(events.CharacterEdited)
def character_edited(story: Story, payload: events.CharacterEdited) -> tuple[str, list[str]]:
    title = _("Hoja de %(name)s editada") % {"name": payload.name}
    players = {"player_id": payload.players} if payload.players is not None else {}
    changes = changes_lines(events.changed(payload.changes), players)
    return title, changes + pg_lines_of_edit(story) + story.deaths()


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


@words(events.CharacterRemoved)
def character_removed(story: Story, payload: events.CharacterRemoved) -> tuple[str, list[str]]:
    return _("%(name)s sale de la campaña") % {"name": payload.name}, []


@words(events.InvitationCreated)
def invitation_created(story: Story, payload: events.InvitationCreated) -> tuple[str, list[str]]:
    return _("Enlace de invitación para %(name)s") % {"name": payload.name}, []


@words(events.InvitationRevoked)
def invitation_revoked(story: Story, payload: events.InvitationRevoked) -> tuple[str, list[str]]:
    return _("Enlace de invitación de %(name)s anulado") % {"name": payload.name}, []


@words(events.InvitationClaimed)
def invitation_claimed(story: Story, payload: events.InvitationClaimed) -> tuple[str, list[str]]:
    return _("%(player)s juega con %(name)s") % {"player": payload.player, "name": payload.name}, []


@words(events.DiseaseAdded)
def disease_added(story: Story, payload: events.DiseaseAdded) -> tuple[str, list[str]]:
    return _("Nueva enfermedad: %(name)s") % {"name": payload.name}, []


@words(events.DiseaseEdited)
def disease_edited(story: Story, payload: events.DiseaseEdited) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s editada") % {"name": payload.name}, changes_lines(events.changed(payload.changes), {})


@words(events.DiseaseRetired)
def disease_retired(story: Story, payload: events.DiseaseRetired) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s retirada") % {"name": payload.name}, []


@words(events.DiseaseRestored)
def disease_restored(story: Story, payload: events.DiseaseRestored) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s disponible de nuevo") % {"name": payload.name}, []


@words(events.CampaignEdited)
def campaign_edited(story: Story, payload: events.CampaignEdited) -> tuple[str, list[str]]:
    gms = {"gm_id": payload.gms} if payload.gms is not None else {}
    lines = changes_lines(events.changed(payload.changes), gms, leave_out=("party_view",))
    if payload.changes.party_view is not None:
        what = view_words(payload.changes.party_view[1])
        lines.append(_("Los jugadores ven de los demás: %(what)s") % {"what": what})
    return _("Campaña editada"), lines


@words(events.CheckCalled)
def check_called(story: Story, payload: events.CheckCalled) -> tuple[str, list[str]]:
    title = _("Tirada pedida: %(check)s") % {"check": called_check(payload)}
    protected = [
        _("%(name)s está protegido hoy: sin tirada") % {"name": story.name(pk)}
        for pk in payload.protected
        if story.mine(pk)
    ]
    return title, story.for_whom() + story.skipped(payload.skipped) + protected


def called_check(payload: events.CheckCalled | events.CheckCancelled) -> str:
    """The check a call asks for, in words: "caída de 6 m (dificultad 12)", "resistencia a Peste", "esfuerzo"."""
    check = str(CHECK_NAMES[payload.check][0])
    if payload.height_m is not None:
        return _("%(check)s de %(height)s m (dificultad %(difficulty)s)") % {
            "check": check,
            "height": payload.height_m,
            "difficulty": payload.difficulty,
        }
    if payload.disease is not None:
        return _("%(check)s a %(disease)s") % {"check": check, "disease": disease_name(payload.disease)}
    return check


@words(events.CheckCancelled)
def check_cancelled(story: Story, payload: events.CheckCancelled) -> tuple[str, list[str]]:
    return _("Tirada anulada: %(check)s") % {"check": called_check(payload)}, story.for_whom()


from play import log_co_gms, log_npcs, log_sessions  # noqa: E402, F401 - kinds with words of their own

assert set(WORDING) == set(events.PAYLOADS.values()), "every event kind has its words"


def outcome_lines(event: Event, names: dict[int, str], only: int, who: bool = True) -> list[str]:
    """What a called check's answer did to one character, as its log entry words it without the call's inputs: the
    roll, who rolled it, and the PG lost, the illness caught or the death."""
    payload = events.payload_of(event)
    story = Story(event, payload, names, only)
    if not isinstance(payload, events.Damage | events.Expose | events.Exertion):
        return []
    fell_ill = isinstance(payload, events.Expose) and only in payload.fell_ill
    lines = story.rolls(payload.rolls, everyone=True) + (story.answered(payload.call) if who else [])
    lines += [_("%(name)s enferma") % {"name": story.name(only)}] if fell_ill else []
    lines += losses(story, payload) if not isinstance(payload, events.Expose) else []
    return lines + story.deaths()


def entry_for(
    event: Event, names: dict[int, str], only: int | None = None, unseen: frozenset[int] = frozenset()
) -> Entry:
    """Describe one event; with `only`, just the lines about that character (a player's sheet). An entry that no
    action could have written (rules.events refuses it where it is read) is named by its kind alone, never a broken
    page."""
    try:
        payload = events.payload_of(event)
    except events.DamagedEntry as damaged:
        logger.warning("unreadable log entry: event %s (%s): %s", event.pk, event.action, damaged)
        title = _("%(action)s (registro importado ilegible)") % {"action": events.label_of(event.action)}
        return Entry(event, format_clock(event.clock_before), title, [], who_of(event))
    title, lines = WORDING[type(payload)](Story(event, payload, names, only, unseen), payload)
    return Entry(event, format_clock(event.clock_before), title, lines, who_of(event))


def who_of(event: Event) -> str:
    return who_acted(event.actor.username if event.actor is not None else None, event.actor_name)
