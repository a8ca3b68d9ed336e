"""Checks the GM calls for and the players roll on their phones (docs/rules.md §§2, 4 and 5): a fall's 1d20 +
Saltar, a resistance check's 1d12 + CON, an exertion's 1d12 + CON. Calling one is logged; each answer — the die the
player rolled at the table, or one the server rolls — runs the action it belongs to for that character with that die,
exactly as if the GM had typed it (its log entry says who answered), and the GM may answer for anyone or cancel."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.access import Right
from campaigns.models import Campaign, Event
from characters.models import Character
from rules import engine, events
from rules.actions.core import (
    ActionError,
    Actor,
    Outcome,
    engine_call,
    ids,
    load,
    lock_campaign,
    log,
    number,
    undoes,
    user_of,
)
from rules.actions.health import all_dead, apply_damage, exertion, expose
from rules.damage import Fall
from rules.models import CalledCheck, CallStatus, CheckKind, Disease


@dataclass(frozen=True)
class Call:
    """What the GM calls for: the check, and what the action it belongs to needs besides each character's die."""

    kind: CheckKind
    height_m: int | None = None
    weight_kg: int | None = None  # a fall: None is each sheet's own weight
    difficulty: int = engine.DEFAULT_FALL_DIFFICULTY
    disease: Disease | int | None = None


def die_sides(kind: str) -> int:
    """The die a check rolls: 1d20 for a fall, 1d12 for resistance and exertion."""
    sides: dict[str, int] = {CheckKind.FALL: engine.FALL_DIE, CheckKind.RESISTANCE: engine.RESISTANCE_DIE}
    return sides.get(kind, engine.EXERTION_DIE)


@transaction.atomic
def call_check(campaign: Campaign | int, characters: Iterable[Character | int], call: Call, *, by: Actor) -> Outcome:
    """Ask each chosen character's player for a check. The dead make none (docs/rules.md §7.8); nor does whoever is
    protected today from the disease's category; exertion is called only for whoever is at 1 to 4 PG."""
    chosen = ids(characters)
    if not chosen:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    if call.kind not in CheckKind.values:
        raise ActionError(_("Esa tirada no existe."), "check")
    payload = events.CheckCalled(check=CheckKind(call.kind))
    campaign = lock_campaign(campaign, by)
    disease = None
    if call.kind == CheckKind.FALL:
        payload.height_m = number("height_m", call.height_m or 0, _("La altura"))
        payload.difficulty = number("difficulty", call.difficulty, _("La dificultad"))
        if call.weight_kg is not None:
            payload.weight_kg = number("weight_kg", call.weight_kg, _("El peso"))
    elif call.kind == CheckKind.RESISTANCE:
        disease_id = call.disease.pk if isinstance(call.disease, Disease) else call.disease
        disease = Disease.objects.available_in(campaign).filter(pk=disease_id or 0).first()
        if disease is None:
            raise ActionError(_("Esa enfermedad no está disponible en esta campaña."), "disease")
        payload.disease = disease.name
    called = []
    for loaded in load(campaign, chosen):
        health = loaded.health
        if health.dead:
            payload.skipped.append(loaded.character.pk)
        elif disease is not None and health.is_protected(disease.category):
            payload.protected.append(loaded.character.pk)
        else:
            if call.kind == CheckKind.EXERTION and not health.penalties.exertion:
                engine_call(loaded, engine.exertion_check, engine.EXERTION_DIE)  # refused by the rules: says why
            called.append(loaded.character)
    if not called:
        if payload.protected:
            raise ActionError(_("Nadie tiene que tirar: los elegidos están protegidos hoy."), "characters")
        raise all_dead(payload.skipped, campaign)
    event = log(campaign, by, payload, sorted(c.pk for c in called))
    CalledCheck.objects.bulk_create(
        CalledCheck(
            campaign=campaign,
            character=character,
            kind=call.kind,
            height_m=call.height_m if call.kind == CheckKind.FALL else None,
            weight_kg=call.weight_kg if call.kind == CheckKind.FALL else None,
            difficulty=call.difficulty if call.kind == CheckKind.FALL else None,
            disease=disease,
            called=event,
        )
        for character in called
    )
    return Outcome(event, called)


def _pending(campaign: Campaign, check_ids: list[int]) -> list[CalledCheck]:
    return list(
        CalledCheck.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, pk__in=check_ids, status=CallStatus.PENDING)
        .select_related("disease")
        .order_by("id")
    )


@transaction.atomic
def answer_check(campaign: Campaign | int, check: CalledCheck | int, *, by: Actor, die: int | None = None) -> Outcome:
    """Roll a called check: `die` as rolled at the table, or None for the server to roll it. Only the character's
    player or the campaign's GM may, and only once: a second answer (another tab, a double tap) changes nothing."""
    campaign = lock_campaign(campaign, None)  # the right is decided below, under this lock, on the check's character
    check_id = check.pk if isinstance(check, CalledCheck) else check
    row = CalledCheck.objects.select_for_update().filter(campaign=campaign, pk=check_id).first()
    if row is None:
        raise ActionError(_("Esa tirada no existe."), "check")
    character = Character.everyone.get(pk=row.character_id)
    user = user_of(by)  # a check is answered by someone
    is_gm = user is not None and access.holds(campaign, user, Right.TABLE)
    if not is_gm and not (user is not None and access.holds(campaign, user, Right.PLAYER, [character])):
        raise ActionError(_("Solo su jugador o el narrador pueden tirar por %(name)s.") % {"name": character.name})
    if row.status != CallStatus.PENDING:
        raise ActionError(_("Esa tirada ya no está pendiente: ya se tiró o se anuló."), "check")
    answered = events.Answer(
        check=row.pk,
        called=row.called_id,
        by=user.username if user is not None else "",
        gm=is_gm,
        typed=die is not None,
    )
    dice = {character.pk: die}
    if row.kind == CheckKind.FALL:
        assert row.height_m is not None and row.difficulty is not None
        fall = Fall(row.height_m, row.weight_kg, row.difficulty, dice)
        outcome = apply_damage(campaign, [character.pk], fall, by=by, call=answered)
    elif row.kind == CheckKind.RESISTANCE:
        assert row.disease_id is not None
        outcome = expose(campaign, [character.pk], row.disease_id, by=by, dice_by_character=dice, call=answered)
    else:
        outcome = exertion(campaign, character.pk, by=by, die=die, call=answered)
    row.status, row.closed = CallStatus.ANSWERED, outcome.event
    row.save(update_fields=["status", "closed"])
    return outcome


@transaction.atomic
def cancel_check(campaign: Campaign | int, checks: Iterable[CalledCheck | int], *, by: Actor) -> Outcome:
    """The GM takes back called checks still pending (the player is gone, the fall did not happen): logged, and an
    undo calls them again."""
    campaign = lock_campaign(campaign, by)
    check_ids = sorted({c.pk if isinstance(c, CalledCheck) else c for c in checks})
    rows = _pending(campaign, check_ids)
    if not rows:
        raise ActionError(_("Esa tirada ya no está pendiente: ya se tiró o se anuló."), "check")
    characters = sorted({row.character_id for row in rows})
    first = rows[0]
    payload = events.CheckCancelled(
        check=CheckKind(first.kind),
        checks=[row.pk for row in rows],
        height_m=first.height_m if first.kind == CheckKind.FALL else None,
        difficulty=first.difficulty if first.kind == CheckKind.FALL else None,
        disease=first.disease.name if first.kind == CheckKind.RESISTANCE and first.disease is not None else None,
    )
    event = log(campaign, by, payload, characters)
    CalledCheck.objects.filter(pk__in=[row.pk for row in rows]).update(status=CallStatus.CANCELLED, closed=event)
    return Outcome(event, list(Character.everyone.filter(pk__in=characters)))


# --- undoing them (rules.actions.undo) -------------------------------------------------------------------------------


@undoes(events.CheckCalled)
def undo_check_called(campaign: Campaign, event: Event, payload: events.CheckCalled) -> None:
    """Before the call there was nothing to answer (its answers, later events, were undone first)."""
    CalledCheck.objects.filter(campaign=campaign, called=event).delete()


@undoes(events.CheckCancelled)
def reopen_checks(campaign: Campaign, event: Event, payload: events.Payload | None = None) -> None:
    """An undone answer or cancellation: its checks wait for a die again, as they did before it."""
    CalledCheck.objects.filter(campaign=campaign, closed=event).update(status=CallStatus.PENDING, closed=None)
