"""Damage as the GM describes it: one typed value per kind (docs/rules.md §2), so that a form builds one of these
and `rules.actions.apply_damage` works out each character's wound from it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from rules import engine
from rules.models import WoundKind


@dataclass(frozen=True)
class Attack:
    """A direct physical attack: whole PG, or dice notation rolled once and dealt to everyone hit."""

    amount: int | None = None
    expression: str | None = None
    kind: ClassVar[WoundKind] = WoundKind.ATTACK


@dataclass(frozen=True)
class Collision:
    speed_kmh: int
    weight_kg: int | None = None  # None: each character's own weight
    kind: ClassVar[WoundKind] = WoundKind.COLLISION


@dataclass(frozen=True)
class Fall:
    """A fall: each character checks 1d20 + Saltar against `difficulty`; on a failure it takes the damage."""

    height_m: int
    weight_kg: int | None = None  # None: each character's own weight
    difficulty: int = engine.DEFAULT_FALL_DIFFICULTY
    dice: Mapping[int, int | None] = field(default_factory=dict)  # a die typed at the table, by character id
    kind: ClassVar[WoundKind] = WoundKind.FALL


@dataclass(frozen=True)
class Drowning:
    turns: int
    kind: ClassVar[WoundKind] = WoundKind.DROWNING


@dataclass(frozen=True)
class Gas:
    turns: int
    kind: ClassVar[WoundKind] = WoundKind.GAS


type Damage = Attack | Collision | Fall | Drowning | Gas
