"""What the API answers, typed (pydantic, through django-ninja): the OpenAPI document is derived from these."""

from __future__ import annotations

from typing import Any, Literal

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


class EntryOut(Schema):
    """One entry of the log: its typed event (the action's payload, as the campaign's export has it) and its words."""

    id: int
    kind: str
    clock_before: int
    clock_after: int
    when: str  # the campaign time, in words
    undone: bool
    who: str  # who acted ("" for the server: a tick of time between sessions)
    title: str
    lines: list[str]
    details: dict[str, Any]


class LogOut(Schema):
    entries: list[EntryOut]
    before: int | None  # ask with ?before=this for the page before; None: there is nothing older


class AdvanceIn(Schema):
    """Campaign time forward, as the clock's form takes it: `duration` as the GM types it ("1d12h", "2 semanas") or
    `seconds`; `resting` who rests (everyone in play, if not given); `preview` to read what it will do first; `version`
    the campaign version that preview was made at (applied only if nothing changed since: else 409)."""

    model_config = ConfigDict(extra="forbid")

    duration: str | None = None
    seconds: int | None = None
    resting: list[int] | None = None
    preview: bool = False
    version: int | None = None


class PreviewRowOut(Schema):
    name: str
    pg_before: int
    pg_after: int
    max_pg: int
    rests: bool
    dies: bool
    lines: list[str]


class PreviewOut(Schema):
    title: str
    seconds: int
    version: int  # send it back with the same advance to apply exactly this
    characters: list[PreviewRowOut]
