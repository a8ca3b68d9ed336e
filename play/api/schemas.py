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
    details: dict[str, Any] | None  # the typed event (as the campaign's export has it): for its GMs only


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


class ExposeIn(Schema):
    """Expose characters to a disease (its id: GET …/diseases): each rolls resistance unless protected today."""

    model_config = ConfigDict(extra="forbid")

    characters: list[int]
    disease: int


class TreatWoundsIn(Schema):
    """A character with Curar Heridas treats the patient's wounds (themself too): they heal in half the time."""

    model_config = ConfigDict(extra="forbid")

    patient: int
    healer: int


class TreatIllnessIn(Schema):
    """Another character with Curar Heridas treats one illness of the patient (its id: `illnesses` of a character)."""

    model_config = ConfigDict(extra="forbid")

    patient: int
    illness: int
    healer: int


class MedicateIn(Schema):
    model_config = ConfigDict(extra="forbid")

    patient: int
    illness: int


class ExertionIn(Schema):
    """A physical action at 1 to 4 PG: 1d12 + CON against 12, or lose 1 PG; `die` as rolled, or the server rolls."""

    model_config = ConfigDict(extra="forbid")

    character: int
    die: int | None = None


class AnswerIn(Schema):
    """A called check rolled: `die` as rolled at the table (1d20 for a fall, 1d12 otherwise), or the server rolls."""

    model_config = ConfigDict(extra="forbid")

    die: int | None = None


class CancelIn(Schema):
    model_config = ConfigDict(extra="forbid")

    checks: list[int]


class CheckOut(Schema):
    """A check the GM called, still waiting for its roll."""

    id: int
    character: int
    character_name: str
    kind: str  # fall, resistance, exertion
    kind_words: str
    die: int  # the sides of its die: 20 or 12
    height_m: int | None  # a fall
    difficulty: int | None  # a fall
    disease: str | None  # a resistance check: the disease, in the request's language
    called: int  # the log entry that called it


class DiseaseOut(Schema):
    id: int
    name: str
    category: str


class SessionOut(Schema):
    number: int
    playing: bool  # not ended yet
    shared: bool  # its recap is shown to the players
    started: int  # the log entry that started it
    ended: int | None


class RecapCharacterOut(Schema):
    """One of the reader's characters over the session."""

    id: int
    name: str
    pg_start: int | None
    pg_end: int | None
    died: str  # "" or when, in words
    wounds: list[str]
    rolls: list[str]
    pending: list[str]
    caught: str
    cured: str


class RecapCompanionOut(Schema):
    """A companion over the session as the party view shows it: PG (exact) or one word at each end."""

    name: str
    pg_start: int | None
    pg_end: int | None
    max_pg: int | None
    condition_start: str | None
    condition_end: str | None
    died: bool | None


class RecapOut(Schema):
    number: int
    clock_start: str
    clock_end: str
    time_passed: str
    characters: list[RecapCharacterOut]
    companions: list[RecapCompanionOut]
    entries: int | None  # how many log entries it holds: for the GM only
