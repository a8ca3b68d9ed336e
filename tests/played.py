"""What the property tests play on campaign A: one health action of the rules, as the GM would, from drawn numbers."""

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack, Fall, Gas
from rules.models import Disease, Illness
from tests.helpers import World

HEALTH = ("attack", "gas", "fall", "advance", "expose", "treat_wounds", "treat_illness", "medicate", "exertion")


def nth(rows: list, index: int):
    return rows[min(index, len(rows) - 1)] if rows else None


def play_health(world: World, name: str, args: list) -> None:
    """One of HEALTH on campaign A, by its GM; refusals are the rules' (an ActionError)."""
    a: Campaign = world.campaign_a
    gm = world.gm_a
    characters = list(Character.everyone.filter(campaign=a).order_by("id"))
    healer = Character.everyone.get(pk=world.npc_a.pk)
    if name in ("attack", "gas"):
        damage = Attack(amount=args[0]) if name == "attack" else Gas(turns=args[0])
        actions.apply_damage(a, sorted({nth(characters, i).pk for i in args[1]}), damage, by=gm)
    elif name == "fall":
        patient = nth(characters, args[2])
        actions.apply_damage(a, [patient], Fall(height_m=args[0], dice={patient.pk: args[1]}), by=gm)
    elif name == "advance":
        actions.advance_clock(a, args[0], resting=None if args[1] else [], by=gm)
    elif name == "expose":
        available = list(Disease.objects.available_in(a).order_by("id"))
        patient = nth(characters, args[2])
        disease = available[args[0] % len(available)]
        actions.expose(a, [patient], disease, dice_by_character={patient.pk: args[1]}, by=gm)
    elif name == "treat_wounds":
        actions.treat_wounds(a, nth(characters, args[0]), healer, by=gm)
    elif name in ("treat_illness", "medicate"):
        patient = nth(characters, args[0])
        illness = Illness.objects.filter(character=patient, cured_at=None).order_by("id").first()
        if illness is None:
            raise actions.ActionError("nothing to care for")
        if name == "treat_illness":
            actions.treat_illness(a, patient, illness, healer, by=gm)
        else:
            actions.medicate(a, patient, illness, by=gm)
    elif name == "exertion":
        actions.exertion(a, nth(characters, args[1]), die=args[0], by=gm)
