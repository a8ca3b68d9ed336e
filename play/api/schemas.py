"""What the API answers, typed (pydantic, through django-ninja): the OpenAPI document is derived from these."""

from __future__ import annotations

from typing import Literal

from ninja import Schema
from pydantic import ConfigDict


class CampaignOut(Schema):
    id: int
    name: str
    clock: int  # campaign seconds since it began
    clock_words: str  # "Día 3, 14:30", in the request's language
    party_view: str  # what each player sees of the others' characters: "exact", "band" or "hidden"


class WoundOut(Schema):
    kind: str  # attack, collision, fall, drowning, gas, illness, exertion
    outstanding: int  # PG still to recover
    healing_time: int | None  # campaign seconds until healed; None: it waits for a cure, or the character is dead
    treated: bool


class IllnessOut(Schema):
    name: str
    treated: bool
    medicated: bool
    cured: bool


class CharacterOut(Schema):
    """A character the account sees in full: every one for a GM, their own for a player."""

    id: int
    name: str
    player: str | None  # its player's username; None for an NPC
    pg: int
    max_pg: int
    dead: bool
    condition: str  # a key of the rules page's words (unhurt, wounded, …)
    condition_word: str  # that word, in the request's language
    penalties: list[str]  # in words, in the request's language
    wounds: list[WoundOut]
    illnesses: list[IllnessOut]


class CompanionOut(Schema):
    """Another player's character, as the party view shows it: PG exact (pg, max_pg, dead), or one word (condition)."""

    name: str
    player: str
    pg: int | None
    max_pg: int | None
    dead: bool | None
    condition: str | None
    condition_word: str | None


class CharactersOut(Schema):
    characters: list[CharacterOut]
    companions: list[CompanionOut]


class DamageIn(Schema):
    """A blow, as the GM's damage form takes it (rules.damage): `kind` and what that kind needs; nothing else (a
    misspelt field is refused, not ignored)."""

    model_config = ConfigDict(extra="forbid")

    characters: list[int]
    kind: Literal["attack", "collision", "fall", "drowning", "gas"]
    amount: int | None = None  # an attack: PG, or `dice`
    dice: str | None = None  # an attack: dice notation, rolled by the server ("2d6+1")
    speed_kmh: int | None = None  # a collision
    height_m: int | None = None  # a fall
    difficulty: int | None = None  # a fall: its check's difficulty (12 if not given)
    weight_kg: int | None = None  # a collision or a fall: None, each character's own
    turns: int | None = None  # drowning or gas


class EventOut(Schema):
    id: int
    kind: str
    title: str  # in the request's language, as the log says it
    lines: list[str]


class ActedOut(Schema):
    """What an action did: the entry it logged and the characters it touched, as the token's account sees them."""

    event: EventOut | None
    characters: list[CharacterOut]
