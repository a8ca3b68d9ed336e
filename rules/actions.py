"""The one write path: every change to game state is a function here.

Each action runs in one transaction, locks the campaign row and the rows it changes (`select_for_update`), asks the
engine, stores the result, appends one Event with the rolls and the state before and after, bumps the campaign's
version and sends `pg_notify` with the campaign id, that version and the affected character ids — never data.
Bad input raises ActionError (a message for the GM) and writes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event, EventKind
from characters.models import Character
from rules import dice, engine, mapping, notify
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import Disease, Illness, Wound

# Who acts: a signed-in user, or nobody (a script); an anonymous visitor is recorded as nobody.
type Actor = User | AnonymousUser | None


class ActionError(Exception):
    """Bad input for an action: the message is for the GM; `field` names the form field it belongs to, if any."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass
class Outcome:
    event: Event
    characters: list[Character]


def _number(name: str, value: int, label: str) -> int:
    low, high = engine.LIMITS[name]
    if not low <= value <= high:
        raise ActionError(
            _("%(label)s debe estar entre %(low)s y %(high)s.") % {"label": label, "low": low, "high": high}, name
        )
    return value


# --- loading and finishing -------------------------------------------------------------------------------------------


@dataclass
class Loaded:
    character: Character
    wounds: list[Wound]
    illnesses: list[Illness]
    health: engine.Health


def _lock_campaign(campaign: Campaign | int) -> Campaign:
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def _ids(characters: Iterable[Character | int]) -> list[int]:
    return sorted({c if isinstance(c, int) else c.pk for c in characters})


def _load(campaign: Campaign, character_ids: list[int] | None) -> list[Loaded]:
    """Lock and load characters of this campaign with their rows; None means all of them. A constant few queries."""
    characters = campaign.characters.select_for_update().order_by("id")
    wounds = Wound.objects.select_for_update().filter(character__campaign=campaign).order_by("id")
    illnesses = (
        Illness.objects.select_for_update(of=("self",))
        .select_related("disease")
        .filter(character__campaign=campaign)
        .order_by("id")
    )
    if character_ids is not None:
        characters = characters.filter(pk__in=character_ids)
        wounds = wounds.filter(character_id__in=character_ids)
        illnesses = illnesses.filter(character_id__in=character_ids)
    loaded_characters = list(characters)
    if character_ids is not None and len(loaded_characters) != len(set(character_ids)):
        raise ActionError(_("Ese personaje no pertenece a esta campaña."), "characters")
    wounds_of: dict[int, list[Wound]] = defaultdict(list)
    for wound in wounds:
        wounds_of[wound.character_id].append(wound)
    illnesses_of: dict[int, list[Illness]] = defaultdict(list)
    for illness in illnesses:
        illnesses_of[illness.character_id].append(illness)
    return [
        Loaded(
            c,
            wounds_of[c.pk],
            illnesses_of[c.pk],
            mapping.health_of(c, wounds_of[c.pk], illnesses_of[c.pk], campaign.clock),
        )
        for c in loaded_characters
    ]


def _finish(
    campaign: Campaign,
    action: EventKind,
    by: Actor,
    results: list[tuple[Loaded, engine.Health]],
    details: dict[str, Any],
    clock_after: int | None = None,
) -> Outcome:
    changes = mapping.Changes()
    for loaded, new in results:
        changes.record(loaded.character, loaded.wounds, loaded.illnesses, new)
    changes.save()
    clock_before = campaign.clock
    campaign.clock = clock_before if clock_after is None else clock_after
    campaign.version += 1
    campaign.save(update_fields=["clock", "version"])
    ids = [loaded.character.pk for loaded, _new in results]
    event = Event.objects.create(
        campaign=campaign,
        action=action,
        actor=by if isinstance(by, User) else None,
        clock_before=clock_before,
        clock_after=campaign.clock,
        characters=ids,
        details=details,
        before={str(loaded.character.pk): mapping.to_json(loaded.health) for loaded, _new in results},
        after={str(loaded.character.pk): mapping.to_json(new) for loaded, new in results},
    )
    notify.send(campaign.pk, ids)
    return Outcome(event, [loaded.character for loaded, _new in results])


def _roll_record(loaded: Loaded, check: str, result: engine.CheckResult | None) -> dict[str, Any]:
    record: dict[str, Any] = {"character": loaded.character.pk, "name": loaded.character.name, "check": check}
    if result is None:
        record["protected"] = True
    else:
        record.update(mapping.to_plain(asdict(result)))
    return record


def _refusal(reason: str, name: str) -> ActionError:
    """An engine refusal (engine.REFUSALS) in the GM's language, beside the field it concerns."""
    messages = {
        "dead": (_("%(name)s ha muerto y no puede hacerlo."), "characters"),
        "cured": (_("Esa enfermedad ya está curada."), "illness"),
        "treated": (_("Esa enfermedad ya ha sido tratada."), "illness"),
        "medicated": (_("Esa enfermedad ya tiene sus medicamentos."), "illness"),
    }
    message, field = messages[reason]
    return ActionError(message % {"name": name} if "%(name)s" in message else message, field)


def _engine_call[T](loaded: Loaded, function: Callable[..., T], *args: Any) -> T:
    """Run an engine action on one character; what the rules refuse becomes a message for the GM."""
    try:
        return function(loaded.health, *args)
    except engine.Refused as refused:
        raise _refusal(refused.reason, loaded.character.name) from refused


def _typed_die(dice_by_character: Mapping[int, int | None] | None, character: Character, sides: int) -> int:
    typed = (dice_by_character or {}).get(character.pk)
    try:
        return dice.die_or_roll(sides, typed)
    except dice.DiceError as error:
        raise ActionError(f"{character.name}: {error}", "die") from error


# --- damage ----------------------------------------------------------------------------------------------------------


@transaction.atomic
def apply_damage(
    campaign: Campaign | int, characters: Iterable[Character | int], damage: Damage, *, by: Actor
) -> Outcome:
    """Wound one or several characters (RULES.md section 2, and 7.8 for a group): an attack's dice are rolled once and
    hit everyone; a collision or a fall uses each character's own weight unless the GM gave one; each falling
    character makes its own 1d20 + Saltar check (a die typed at the table, else the server rolls)."""
    ids = _ids(characters)
    if not ids:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    details: dict[str, Any] = {"kind": damage.kind.value, "damage": {}, "rolls": []}
    fixed = 0  # the PG every character loses, for the kinds whose damage does not depend on the character
    match damage:
        case Attack(amount=amount, expression=expression):
            fixed = _attack_amount(amount, expression, details)
        case Collision(speed_kmh=speed, weight_kg=weight):
            details["speed_kmh"] = _number("speed_kmh", speed, _("La velocidad"))
        case Fall(height_m=height, weight_kg=weight, difficulty=difficulty):
            details["height_m"] = _number("height_m", height, _("La altura"))
            details["difficulty"] = _number("difficulty", difficulty, _("La dificultad"))
        case Drowning(turns=turns):
            fixed = engine.drowning_damage(_number("turns", turns, _("El número de turnos")))
            details["turns"] = turns
        case Gas(turns=turns):
            fixed = engine.gas_damage(_number("turns", turns, _("El número de turnos")))
            details["turns"] = turns
    if isinstance(damage, Collision | Fall) and damage.weight_kg is not None:
        details["weight_kg"] = _number("weight_kg", damage.weight_kg, _("El peso"))

    campaign = _lock_campaign(campaign)
    results = []
    for loaded in _load(campaign, ids):
        character, health = loaded.character, loaded.health
        match damage:
            case Fall(height_m=height, weight_kg=weight, difficulty=difficulty, dice=typed):
                weight = character.weight_kg if weight is None else weight
                die = _typed_die(typed, character, engine.FALL_DIE)
                if health.dead:
                    new = engine.apply_wound(health, engine.Wound("fall", engine.fall_damage(height, weight)))
                else:
                    new, result = _engine_call(loaded, engine.fall, height, weight, die, character.jump, difficulty)
                    details["rolls"].append(_roll_record(loaded, "fall", result))
            case Collision(speed_kmh=speed, weight_kg=weight):
                weight = character.weight_kg if weight is None else weight
                new = engine.apply_wound(health, engine.Wound("collision", engine.collision_damage(speed, weight)))
            case _:
                new = engine.apply_wound(health, engine.Wound(damage.kind.value, fixed))
        details["damage"][str(character.pk)] = health.pg - new.pg
        results.append((loaded, new))
    return _finish(campaign, EventKind.DAMAGE, by, results, details)


def _attack_amount(amount: int | None, expression: str | None, details: dict[str, Any]) -> int:
    if (amount is None) == (expression in (None, "")):
        raise ActionError(_("Indica el daño: un número o una tirada como 2d6+1."), "amount")
    if amount is not None:
        return _number("amount", amount, _("El daño"))
    try:
        rolled = dice.roll_damage(str(expression))
    except dice.DiceError as error:
        raise ActionError(str(error), "expression") from error
    details["dice"] = {"expression": rolled.expression, "detail": rolled.detail, "total": rolled.total}
    return rolled.amount


# --- time ------------------------------------------------------------------------------------------------------------


@transaction.atomic
def advance_clock(
    campaign: Campaign | int, seconds: int, *, by: Actor, resting: Iterable[Character | int] | None = None
) -> Outcome:
    """Move campaign time forward; `resting` lists who rests (default: everyone)."""
    low, high = engine.LIMITS["advance"]
    if not low <= seconds <= high:
        message = _("La duración debe estar entre %(low)s segundo y %(years)s años.")
        raise ActionError(message % {"low": low, "years": high // engine.YEAR}, "seconds")
    campaign = _lock_campaign(campaign)
    everyone = _load(campaign, None)
    resting_ids = {loaded.character.pk for loaded in everyone} if resting is None else set(_ids(resting))
    if not resting_ids <= {loaded.character.pk for loaded in everyone}:
        raise ActionError(_("Ese personaje no pertenece a esta campaña."), "resting")
    results = []
    for loaded in everyone:
        new = engine.advance(loaded.health, seconds, resting=loaded.character.pk in resting_ids)
        # Only characters whose state changed beyond the clock are part of the event (and of its undo).
        if replace(new, now=0) != replace(loaded.health, now=0):
            results.append((loaded, new))
    details = {
        "seconds": seconds,
        "resting": sorted(resting_ids),
        "pg": {str(loaded.character.pk): [loaded.health.pg, new.pg] for loaded, new in results},
    }
    return _finish(campaign, EventKind.ADVANCE, by, results, details, clock_after=campaign.clock + seconds)


# --- illness ---------------------------------------------------------------------------------------------------------


@transaction.atomic
def expose(
    campaign: Campaign | int,
    characters: Iterable[Character | int],
    disease: Disease | int,
    *,
    by: Actor,
    dice_by_character: Mapping[int, int | None] | None = None,
) -> Outcome:
    """Expose characters to a disease: each makes a resistance check 1d12 + CON unless protected today."""
    ids = _ids(characters)
    if not ids:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    campaign = _lock_campaign(campaign)
    disease_id = disease if isinstance(disease, int) else disease.pk
    found = Disease.objects.available_in(campaign).filter(pk=disease_id).first()
    if found is None:
        raise ActionError(_("Esa enfermedad no está disponible en esta campaña."), "disease")
    illness = found.as_illness()
    details: dict[str, Any] = {"disease": found.name, "category": found.category, "rolls": [], "fell_ill": []}
    results = []
    for loaded in _load(campaign, ids):
        health = loaded.health
        die = (
            None
            if health.dead or health.is_protected(illness.category)
            else _typed_die(dice_by_character, loaded.character, engine.RESISTANCE_DIE)
        )
        new, result = _engine_call(loaded, engine.expose, illness, die)
        details["rolls"].append(_roll_record(loaded, "resistance", result))
        if len(new.illnesses) > len(health.illnesses):
            details["fell_ill"].append(loaded.character.pk)
        results.append((loaded, new))
    return _finish(campaign, EventKind.EXPOSE, by, results, details)


def _healer(campaign: Campaign, healer: Character | int) -> Character:
    healer_id = healer if isinstance(healer, int) else healer.pk
    found = campaign.characters.filter(pk=healer_id).first()
    if found is None:
        raise ActionError(_("El sanador no pertenece a esta campaña."), "healer")
    if found.heal_wounds < 1:
        raise ActionError(_("%(name)s no tiene la habilidad Curar Heridas.") % {"name": found.name}, "healer")
    if found.dead:
        raise ActionError(_("%(name)s ha muerto y no puede curar.") % {"name": found.name}, "healer")
    return found


@transaction.atomic
def treat_wounds(campaign: Campaign | int, patient: Character | int, healer: Character | int, *, by: Actor) -> Outcome:
    """A character with Curar Heridas treats the patient's wounds (it may be themself): they heal in half the time."""
    campaign = _lock_campaign(campaign)
    healer = _healer(campaign, healer)
    [loaded] = _load(campaign, _ids([patient]))
    if not any(w.amount > 0 and not w.treated for w in loaded.health.wounds):
        raise ActionError(_("%(name)s no tiene heridas sin tratar.") % {"name": loaded.character.name}, "patient")
    new = _engine_call(loaded, engine.treat_wounds)
    details = {"healer": healer.pk, "healer_name": healer.name}
    return _finish(campaign, EventKind.TREAT_WOUNDS, by, [(loaded, new)], details)


def _illness_index(loaded: Loaded, illness: Illness | int) -> int:
    illness_id = illness if isinstance(illness, int) else illness.pk
    for index, row in enumerate(loaded.illnesses):
        if row.pk == illness_id:
            if loaded.health.illnesses[index].cured:
                raise ActionError(_("Esa enfermedad ya está curada."), "illness")
            return index
    raise ActionError(_("Ese personaje no padece esa enfermedad."), "illness")


@transaction.atomic
def treat_illness(
    campaign: Campaign | int, patient: Character | int, illness: Illness | int, healer: Character | int, *, by: Actor
) -> Outcome:
    """Another character with Curar Heridas treats one illness (RULES.md: never the patient themself)."""
    campaign = _lock_campaign(campaign)
    healer = _healer(campaign, healer)
    [loaded] = _load(campaign, _ids([patient]))
    if healer.pk == loaded.character.pk:
        raise ActionError(_("Un personaje no puede tratar su propia enfermedad."), "healer")
    index = _illness_index(loaded, illness)
    if loaded.health.illnesses[index].treated:
        raise ActionError(_("Esa enfermedad ya ha sido tratada."), "illness")
    new = _engine_call(loaded, engine.treat_illness, index)
    details = {
        "healer": healer.pk,
        "healer_name": healer.name,
        "disease": loaded.illnesses[index].disease.name,
        "cured": new.illnesses[index].cured,
    }
    return _finish(campaign, EventKind.TREAT_ILLNESS, by, [(loaded, new)], details)


@transaction.atomic
def medicate(campaign: Campaign | int, patient: Character | int, illness: Illness | int, *, by: Actor) -> Outcome:
    campaign = _lock_campaign(campaign)
    [loaded] = _load(campaign, _ids([patient]))
    index = _illness_index(loaded, illness)
    if loaded.health.illnesses[index].medicated:
        raise ActionError(_("Esa enfermedad ya tiene sus medicamentos."), "illness")
    new = _engine_call(loaded, engine.medicate, index)
    details = {"disease": loaded.illnesses[index].disease.name, "cured": new.illnesses[index].cured}
    return _finish(campaign, EventKind.MEDICATE, by, [(loaded, new)], details)


# --- exertion --------------------------------------------------------------------------------------------------------


@transaction.atomic
def exertion(campaign: Campaign | int, character: Character | int, *, by: Actor, die: int | None = None) -> Outcome:
    """A physical action at PG ≤ 4: 1d12 + CON against 12, or lose 1 PG."""
    campaign = _lock_campaign(campaign)
    [loaded] = _load(campaign, _ids([character]))
    if loaded.health.dead:
        raise ActionError(_("%(name)s ha muerto.") % {"name": loaded.character.name}, "character")
    rolled = _typed_die({loaded.character.pk: die}, loaded.character, engine.EXERTION_DIE)
    new, result = _engine_call(loaded, engine.exertion_check, rolled)
    details = {
        "rolls": [_roll_record(loaded, "exertion", result)],
        "required": loaded.health.penalties.exertion,
        "damage": {str(loaded.character.pk): loaded.health.pg - new.pg},
    }
    return _finish(campaign, EventKind.EXERTION, by, [(loaded, new)], details)


# --- undo ------------------------------------------------------------------------------------------------------------


@transaction.atomic
def undo(campaign: Campaign | int, *, by: Actor) -> Outcome:
    """Undo the latest event not yet undone: restore each character's state from before it, and the clock.

    The event stays in the log, marked undone; the undo itself is logged too (and is not undoable).
    """
    campaign = _lock_campaign(campaign)
    event = (
        campaign.events.select_for_update().filter(undone=False).exclude(action=EventKind.UNDO).order_by("-id").first()
    )
    if event is None:
        raise ActionError(_("No hay nada que deshacer."))
    existing = [int(pk) for pk in event.before]
    results = []
    for loaded in _load_existing(campaign, existing):
        before = mapping.from_json(event.before[str(loaded.character.pk)])
        results.append((loaded, replace(before, constitution=loaded.character.constitution)))
    event.undone, event.undone_at = True, timezone.now()
    event.undone_by = by if isinstance(by, User) else None
    event.save(update_fields=["undone", "undone_at", "undone_by"])
    # What was undone travels with the undo, so the log can name it ("Undone: exposure to the plague").
    details = {
        "event": event.pk,
        "action": event.action,
        "undone": {"details": event.details, "characters": event.characters},
    }
    return _finish(campaign, EventKind.UNDO, by, results, details, clock_after=event.clock_before)


def _load_existing(campaign: Campaign, ids: list[int]) -> list[Loaded]:
    # Characters deleted since the event have nothing left to restore.
    present = set(campaign.characters.filter(pk__in=ids).values_list("pk", flat=True))
    return _load(campaign, sorted(present)) if present else []


# --- the sheet -------------------------------------------------------------------------------------------------------


@transaction.atomic
def save_character(character: Character, *, by: Actor) -> Character:
    """Save a character's sheet (new or edited) and recompute its PG: a new CON changes the maximum."""
    campaign = _lock_campaign(character.campaign_id)
    if character.pk is not None:
        wounds = list(Wound.objects.select_for_update().filter(character=character).order_by("id"))
        illnesses = list(
            Illness.objects.select_for_update(of=("self",))
            .select_related("disease")
            .filter(character=character)
            .order_by("id")
        )
        character.pg = mapping.health_of(character, wounds, illnesses, campaign.clock).pg
    character.save()  # a new character starts unhurt (Character.save)
    campaign.version += 1
    campaign.save(update_fields=["version"])
    notify.send(campaign.pk, [character.pk])
    return character
