"""The rules actions on health: damage, time, illness, care and exertion (docs/rules.md §§2 to 6)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.access import Right
from campaigns.models import Campaign
from characters.models import Character
from rules import dice, engine, events
from rules.actions.core import (
    ActionError,
    Actor,
    Loaded,
    Outcome,
    engine_call,
    finish,
    ids,
    locked,
    number,
    roll_record,
    typed_die,
)
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import CheckKind, Disease, Illness

# --- damage ----------------------------------------------------------------------------------------------------------


@transaction.atomic
def apply_damage(
    campaign: Campaign | int,
    characters: Iterable[Character | int],
    damage: Damage,
    *,
    by: Actor,
    call: events.Answer | None = None,
) -> Outcome:
    """Wound one or several characters (docs/rules.md §2, and 7.8 for a group): an attack's dice are rolled once and
    hit everyone; a collision or a fall uses each character's own weight unless the GM gave one; each falling
    character makes its own 1d20 + Saltar check (a die typed at the table, else the server rolls). The dead make no
    check, so a fall skips them; every other kind records its wound on them too, at 0 PG. `call`: the called check
    this answers (rules.actions.checks), kept in the log entry."""
    chosen = ids(characters)
    if not chosen:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    payload = events.Damage(kind=damage.kind, damage={}, pg={}, call=call)
    fixed = 0  # the PG every character loses, for the kinds whose damage does not depend on the character
    match damage:
        case Attack(amount=amount, expression=expression):
            fixed, payload.dice = _attack_amount(amount, expression)
        case Collision(speed_kmh=speed):
            payload.speed_kmh = number("speed_kmh", speed, _("La velocidad"))
        case Fall(height_m=height, difficulty=difficulty):
            payload.height_m = number("height_m", height, _("La altura"))
            payload.difficulty = number("difficulty", difficulty, _("La dificultad"))
        case Drowning(turns=turns) | Gas(turns=turns):
            number("turns", turns, _("El número de turnos"))
            fixed = engine.drowning_damage(turns) if isinstance(damage, Drowning) else engine.gas_damage(turns)
            payload.turns = turns
    if isinstance(damage, Collision | Fall) and damage.weight_kg is not None:
        payload.weight_kg = number("weight_kg", damage.weight_kg, _("El peso"))

    campaign, loads = locked(campaign, chosen, by, Right.PLAYER if call is not None else Right.TABLE)
    results = []
    for loaded in loads:
        character, health = loaded.character, loaded.health
        match damage:
            case Fall(height_m=height, weight_kg=weight, difficulty=difficulty, dice=typed):
                if health.dead:
                    payload.skipped.append(character.pk)
                    continue
                weight = character.weight_kg if weight is None else weight
                die = typed_die(typed, character, engine.FALL_DIE)
                new, result = engine_call(loaded, engine.fall, height, weight, die, character.jump, difficulty)
                payload.rolls.append(roll_record(loaded, CheckKind.FALL, result))
            case Collision(speed_kmh=speed, weight_kg=weight):
                weight = character.weight_kg if weight is None else weight
                new = engine.apply_wound(health, engine.Wound("collision", engine.collision_damage(speed, weight)))
            case _:
                new = engine.apply_wound(health, engine.Wound(damage.kind.value, fixed))
        payload.damage[str(character.pk)] = new.wounds[-1].amount if len(new.wounds) > len(health.wounds) else 0
        payload.pg[str(character.pk)] = (health.pg, new.pg)
        results.append((loaded, new))
    if not results:
        raise all_dead(payload.skipped, campaign)
    return finish(campaign, by, results, payload)


def all_dead(skipped: list[events.CharacterRef], campaign: Campaign) -> ActionError:
    """Everyone chosen for a check has died: nothing to do, and the GM is told who."""
    names = ", ".join(campaign.characters.filter(pk__in=skipped).order_by("name").values_list("name", flat=True))
    if len(skipped) == 1:
        return ActionError(_("%(name)s ha muerto y no puede hacerlo.") % {"name": names}, "characters")
    return ActionError(_("Todos los elegidos han muerto: %(names)s.") % {"names": names}, "characters")


def _attack_amount(amount: int | None, expression: str | None) -> tuple[int, events.DamageDice | None]:
    """An attack's damage as typed, or rolled from its dice (and the roll, for the log)."""
    if (amount is None) == (expression in (None, "")):
        raise ActionError(_("Indica el daño: un número o una tirada como 2d6+1."), "amount")
    if amount is not None:
        return number("amount", amount, _("El daño")), None
    try:
        rolled = dice.roll_damage(str(expression))
    except dice.DiceError as error:
        raise ActionError(str(error), "expression") from error
    return rolled.amount, events.DamageDice(expression=rolled.expression, detail=rolled.detail, total=rolled.total)


# --- time ------------------------------------------------------------------------------------------------------------


@transaction.atomic
def advance_clock(
    campaign: Campaign | int,
    seconds: int,
    *,
    by: Actor,
    resting: Iterable[Character | int] | None = None,
    not_resting: Iterable[Character | int] | None = None,
    version: int | None = None,
) -> Outcome:
    """Move campaign time forward. Everyone rests but those in `not_resting`; or, given `resting`, only those.

    Given the campaign `version` a preview was made at (`preview_advance`), it is refused with the field "version"
    if anything changed since: what is committed is then exactly what the GM read."""
    checked_duration(seconds)
    campaign, everyone = locked(campaign, None, by)
    if version is not None and campaign.version != version:
        raise ActionError(_("La mesa ha cambiado desde la previsión: esta es la nueva."), "version")
    results, payload = advanced(everyone, seconds, resting_set(everyone, resting, not_resting))
    return finish(campaign, by, results, payload, clock_after=campaign.clock + seconds)


def advanced(
    everyone: list[Loaded], seconds: int, resting_ids: set[int]
) -> tuple[list[tuple[Loaded, engine.Health]], events.Advance]:
    """The engine's advance of every character loaded (the GM's, or a tick of time between sessions): the new states of
    those whose state changed beyond the clock (they alone are part of the event, and of its undo), and the entry."""
    results = []
    for loaded in everyone:
        new = engine.advance(loaded.health, seconds, resting=loaded.character.pk in resting_ids)
        if replace(new, now=0) != replace(loaded.health, now=0):
            results.append((loaded, new))
    payload = events.Advance(
        seconds=seconds,
        resting=sorted(resting_ids),
        pg={str(loaded.character.pk): (loaded.health.pg, new.pg) for loaded, new in results},
    )
    return results, payload


def checked_duration(seconds: int) -> None:
    low, high = engine.LIMITS["advance"]
    if not low <= seconds <= high:
        message = _("La duración debe estar entre %(low)s segundo y %(years)s años.")
        raise ActionError(message % {"low": low, "years": high // engine.YEAR}, "seconds")


def resting_set(
    everyone: list[Loaded], resting: Iterable[Character | int] | None, not_resting: Iterable[Character | int] | None
) -> set[int]:
    """Who rests: everyone in play, or only `resting`, but for `not_resting`; all of them must be in play."""
    present = {loaded.character.pk for loaded in everyone}
    resting_ids = present if resting is None else set(ids(resting))
    if not_resting is not None:
        resting_ids = resting_ids - set(ids(not_resting))
    if not resting_ids <= present:
        raise ActionError(_("Ese personaje no pertenece a esta campaña."), "resting")
    return resting_ids


# --- illness ---------------------------------------------------------------------------------------------------------


@transaction.atomic
def expose(
    campaign: Campaign | int,
    characters: Iterable[Character | int],
    disease: Disease | int,
    *,
    by: Actor,
    dice_by_character: Mapping[int, int | None] | None = None,
    call: events.Answer | None = None,
) -> Outcome:
    """Expose characters to a disease: each makes a resistance check 1d12 + CON unless protected today. The dead
    make no check and are skipped (docs/rules.md §7.8). `call`: the called check this answers, for the log."""
    chosen = ids(characters)
    if not chosen:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    campaign, loads = locked(campaign, chosen, by, Right.PLAYER if call is not None else Right.TABLE)
    disease_id = disease if isinstance(disease, int) else disease.pk
    found = Disease.objects.available_in(campaign).filter(pk=disease_id).first()
    if found is None:
        raise ActionError(_("Esa enfermedad no está disponible en esta campaña."), "disease")
    illness = found.as_illness()
    payload = events.Expose(disease=found.name, category=found.category, call=call)
    results = []
    for loaded in loads:
        health = loaded.health
        if health.dead:
            payload.skipped.append(loaded.character.pk)
            continue
        protected = health.is_protected(illness.category)
        die = None if protected else typed_die(dice_by_character, loaded.character, engine.RESISTANCE_DIE)
        new, result = engine_call(loaded, engine.expose, illness, die)
        payload.rolls.append(roll_record(loaded, CheckKind.RESISTANCE, result))
        if len(new.illnesses) > len(health.illnesses):
            payload.fell_ill.append(loaded.character.pk)
        results.append((loaded, new))
    if not results:
        raise all_dead(payload.skipped, campaign)
    return finish(campaign, by, results, payload)


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
    campaign, [loaded] = locked(campaign, ids([patient]), by)
    found = _healer(campaign, healer)
    if loaded.health.dead:
        raise ActionError(_("%(name)s ha muerto y no puede hacerlo.") % {"name": loaded.character.name}, "characters")
    if not any(w.amount > 0 and not w.treated for w in loaded.health.wounds):
        raise ActionError(_("%(name)s no tiene heridas sin tratar.") % {"name": loaded.character.name}, "patient")
    new = engine_call(loaded, engine.treat_wounds)
    payload = events.TreatWounds(healer=found.pk, healer_name=found.name)
    return finish(campaign, by, [(loaded, new)], payload)


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
    """Another character with Curar Heridas treats one illness (docs/rules.md: never the patient themself)."""
    campaign, [loaded] = locked(campaign, ids([patient]), by)
    found = _healer(campaign, healer)
    if found.pk == loaded.character.pk:
        raise ActionError(_("Un personaje no puede tratar su propia enfermedad."), "healer")
    index = _illness_index(loaded, illness)
    if loaded.health.illnesses[index].treated:
        raise ActionError(_("Esa enfermedad ya ha sido tratada."), "illness")
    new = engine_call(loaded, engine.treat_illness, index)
    payload = events.TreatIllness(
        healer=found.pk,
        healer_name=found.name,
        disease=loaded.illnesses[index].disease.name,
        cured=new.illnesses[index].cured,
    )
    return finish(campaign, by, [(loaded, new)], payload)


@transaction.atomic
def medicate(campaign: Campaign | int, patient: Character | int, illness: Illness | int, *, by: Actor) -> Outcome:
    campaign, [loaded] = locked(campaign, ids([patient]), by)
    index = _illness_index(loaded, illness)
    if loaded.health.illnesses[index].medicated:
        raise ActionError(_("Esa enfermedad ya tiene sus medicamentos."), "illness")
    new = engine_call(loaded, engine.medicate, index)
    payload = events.Medicate(disease=loaded.illnesses[index].disease.name, cured=new.illnesses[index].cured)
    return finish(campaign, by, [(loaded, new)], payload)


# --- exertion --------------------------------------------------------------------------------------------------------


@transaction.atomic
def exertion(
    campaign: Campaign | int,
    character: Character | int,
    *,
    by: Actor,
    die: int | None = None,
    call: events.Answer | None = None,
) -> Outcome:
    """A physical action while 1 ≤ PG ≤ 4: 1d12 + CON against 12, or lose 1 PG. Refused at any other PG. `call`: the
    called check this answers, for the log."""
    campaign, [loaded] = locked(campaign, ids([character]), by, Right.PLAYER if call is not None else Right.TABLE)
    if loaded.health.dead:
        raise ActionError(_("%(name)s ha muerto.") % {"name": loaded.character.name}, "character")
    if not loaded.health.penalties.exertion:
        engine_call(loaded, engine.exertion_check, engine.EXERTION_DIE)  # refused by the rules: says why
    rolled = typed_die({loaded.character.pk: die}, loaded.character, engine.EXERTION_DIE)
    new, result = engine_call(loaded, engine.exertion_check, rolled)
    payload = events.Exertion(
        rolls=[roll_record(loaded, CheckKind.EXERTION, result)],
        damage={str(loaded.character.pk): loaded.health.pg - new.pg},
        pg={str(loaded.character.pk): (loaded.health.pg, new.pg)},
        call=call,
    )
    return finish(campaign, by, [(loaded, new)], payload)
