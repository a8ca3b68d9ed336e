"""The log in words for what changes health (rules.events.health: damage, time, illness, care, exertion, undo) and
for called checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.clock import format_duration
from campaigns.models import Event
from rules import events
from rules.models import disease_name

if TYPE_CHECKING:
    pass
from play.log.story import CHECK_NAMES, Story, entry_for, words


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
    duration = format_duration(payload.seconds)
    if payload.between is None:
        return _("Pasa el tiempo: %(duration)s") % {"duration": duration}, pg_lines(story, payload.pg) + story.deaths()
    title = _("El tiempo pasa: %(duration)s (entre sesiones)") % {"duration": duration}
    lines = [
        _("%(real)s reales a %(rate)s por día.")
        % {"real": format_duration(payload.between.real), "rate": format_duration(payload.between.rate)}
    ]
    if payload.between.moments > 1:
        missed = payload.between.moments
        lines.append(
            ngettext(
                "El servidor no lo pasó a su hora: %(count)s pasos diarios en uno.",
                "El servidor no lo pasó a su hora: %(count)s pasos diarios en uno.",
                missed,
            )
            % {"count": missed}
        )
    return title, lines + pg_lines(story, payload.pg) + story.deaths()


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
