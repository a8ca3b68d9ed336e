"""States the engine tests start from: the built-in diseases as engine illnesses, a wounded or ill character, and
the amounts of a kind of wound."""

from rules.engine import (
    Health,
    Illness,
    Wound,
    apply_wound,
    expose,
)

DISEASES = {
    "Resfrío común": ("common", -1, 0),
    "Fiebre": ("common", -2, 0),
    "Gripe": ("common", -2, 0),
    "Peste": ("serious", -2, 1),
    "Tuberculosis": ("serious", -2, 2),
}


def disease(name: str) -> Illness:
    category, penalty, per_week = DISEASES[name]
    return Illness(category, penalty, per_week, name=name, key=name.lower())


def wounded(constitution: int, *wounds: Wound, now: int = 0) -> Health:
    health = Health(constitution, now=now)
    for wound in wounds:
        health = apply_wound(health, wound)
    return health


def fall_ill(health: Health, name: str) -> Health:
    health, result = expose(health, disease(name), die=1)
    assert result is not None and not result.success
    return health


def amounts(health: Health, kind: str) -> list[int]:
    return [wound.amount for wound in health.wounds if wound.kind == kind]


# --- section 1: hit points ----------------------------------------------------------------------------------------
