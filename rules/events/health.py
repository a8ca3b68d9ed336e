"""The payloads of what changes health (and of undo), with the parts they share: rolls, answers, dice."""

from __future__ import annotations

from typing import Any

from rules.events.base import (
    Answer,
    CharacterKey,
    CharacterRef,
    DamagedEntry,
    EventKind,
    EventRef,
    Payload,
    PgPair,
    Record,
    Signed,
    Text,
    Whole,
    decode,
)
from rules.models import CheckKind, WoundKind

# --- the parts --------------------------------------------------------------------------------------------------------


class Roll(Record):
    """One check with all its parts as the log shows it (engine.CheckResult), or `protected` and no roll."""

    character: CharacterRef
    name: Text
    check: CheckKind
    protected: bool = False
    die: Signed | None = None
    sides: Signed | None = None
    modifier: Signed | None = None
    penalties: list[tuple[Text, Signed]] = []
    total: Signed | None = None
    difficulty: Signed | None = None
    success: bool | None = None

    def __post_init__(self) -> None:
        rolled = (self.die, self.sides, self.modifier, self.total, self.difficulty, self.success)
        if self.protected != all(part is None for part in rolled) or (self.protected and self.penalties):
            raise ValueError("a roll is either protected or rolled, with all its parts")


class DamageDice(Record):
    expression: Text
    detail: Text
    total: Signed


# --- health -----------------------------------------------------------------------------------------------------------


class Damage(Payload):
    kind_of_event = EventKind.DAMAGE
    health = in_play = True
    kind: WoundKind
    damage: dict[CharacterKey, Whole]
    pg: dict[CharacterKey, PgPair] = {}
    rolls: list[Roll] = []
    skipped: list[CharacterRef] = []
    speed_kmh: Whole | None = None
    height_m: Whole | None = None
    difficulty: Whole | None = None
    turns: Whole | None = None
    weight_kg: Whole | None = None
    dice: DamageDice | None = None
    call: Answer | None = None

    def __post_init__(self) -> None:
        if (self.height_m is None) != (self.difficulty is None):
            raise ValueError("a fall's entry gives its height and its difficulty")
        if not set(self.damage) <= set(self.pg):
            raise ValueError("the PG before and after of each character damaged")


class Between(Record):
    """A tick of time between sessions (rules.actions.running_time): the real seconds it counted, at how many campaign
    seconds per real day, and how many daily tick moments it stands for (more than one: the server missed some)."""

    real: Whole
    rate: Whole
    moments: Whole = 1


class Advance(Payload):
    kind_of_event = EventKind.ADVANCE
    health = in_play = True
    seconds: Whole
    resting: list[CharacterRef] = []
    pg: dict[CharacterKey, PgPair] = {}
    between: Between | None = None  # a tick of time between sessions, not the GM's advance


class Expose(Payload):
    kind_of_event = EventKind.EXPOSE
    health = in_play = True
    disease: Text  # its name, as the log shows it
    category: Text = ""
    rolls: list[Roll] = []
    fell_ill: list[CharacterRef] = []
    skipped: list[CharacterRef] = []
    call: Answer | None = None


class TreatWounds(Payload):
    kind_of_event = EventKind.TREAT_WOUNDS
    health = about_one = in_play = True
    healer: CharacterRef
    healer_name: Text


class TreatIllness(Payload):
    kind_of_event = EventKind.TREAT_ILLNESS
    health = about_one = in_play = True
    healer: CharacterRef
    healer_name: Text
    disease: Text
    cured: bool = False


class Medicate(Payload):
    kind_of_event = EventKind.MEDICATE
    health = about_one = in_play = True
    disease: Text
    cured: bool = False


class Exertion(Payload):
    kind_of_event = EventKind.EXERTION
    health = about_one = in_play = True
    rolls: list[Roll]
    damage: dict[CharacterKey, Whole]
    pg: dict[CharacterKey, PgPair] = {}
    call: Answer | None = None

    def __post_init__(self) -> None:
        if not set(self.damage) <= set(self.pg):
            raise ValueError("the PG before and after of each character damaged")


# --- undo -------------------------------------------------------------------------------------------------------------


class Undone(Record):
    """The undone event's own payload and characters, so that the undo's entry can name what it undid."""

    details: dict[str, Any]
    characters: list[CharacterRef] = []


class Undo(Payload):
    kind_of_event = EventKind.UNDO
    event: EventRef
    action: EventKind
    undone: Undone

    def __post_init__(self) -> None:
        if self.action == EventKind.UNDO:
            raise ValueError("an undo is never undone")
        try:
            decode(self.action, self.undone.details)  # the undone payload is checked as its own kind
        except DamagedEntry as error:
            raise ValueError(f"undone.{error.where}: {error.problem}") from error

    def undone_payload(self) -> Payload:
        return decode(self.action, self.undone.details)
