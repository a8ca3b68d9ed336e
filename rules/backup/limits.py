"""Every field of every log entry's details (rules.events), bounded on import as the action that writes it bounds it:
a name as rules.actions.core.checked_name takes it, with its kind's length (a character's, a disease's); a number in
its range of docs/rules.md §7.11 (engine.LIMITS), of a sheet (characters.models.SHEET_RANGES) or of a disease
(rules.models); a roll as the engine rolls it; a group or a template no larger than the site's cap on characters.
Each bound is read from where it is defined, never written again here.

The events' own types say only the shape (a stored entry is read back with them, whatever it says); FIELDS says, for
each record and each of its fields that holds text or a number, what the action writes there — a test holds that no
such field is left out, so that a new field is bounded when it is added. A reference (rules.events.Refers) is checked
by rules.backup.validate; a yes/no, or a choice of an enum, is whole in the shape already.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal, TypeAliasType, Union, get_args, get_origin

import msgspec
from django.conf import settings
from django.utils.translation import gettext as _
from msgspec import Meta

from campaigns import running_time
from campaigns.models import PartyView
from rules import dice, engine, events
from rules.actions.core import ActionError, checked_name
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.sheet import NAME_LENGTH
from rules.backup.read import invalid_by_schema, invalid_copy
from rules.backup.schema import (
    CharacterPartyView,
    Constitution,
    DiseaseName,
    Name,
    Notes,
    Penalty,
    PlayerName,
    Skill,
    Username,
    Weight,
)
from rules.models import PG_PER_WEEK_MAX, Category, CheckKind, WoundKind

# --- what each field may hold -----------------------------------------------------------------------------------------


def _one_of(*values: str) -> Any:
    return Literal[values]


def _limit(name: str) -> Meta:
    low, high = engine.LIMITS[name]
    return Meta(ge=low, le=high)


type Whole = events.Whole  # an id where the campaign was played (a backup keeps it as it is: it only tells the story)
type Pg = Annotated[int, Meta(ge=0, le=engine.max_pg(engine.CON_MAX))]
type PgPairs = dict[str, tuple[Pg, Pg]]
type Amount = Annotated[int, _limit("amount")]
type Speed = Annotated[int, _limit("speed_kmh")]
type Height = Annotated[int, _limit("height_m")]
type Turns = Annotated[int, _limit("turns")]
type Difficulty = Annotated[int, _limit("difficulty")]
type Seconds = Annotated[int, _limit("advance")]
type TypedWeight = Annotated[int, _limit("weight_kg")]
type Die = Annotated[int, Meta(ge=1, le=max(engine.FALL_DIE, engine.RESISTANCE_DIE, engine.EXERTION_DIE))]
type Modifier = Annotated[int, Meta(ge=min(engine.CON_MIN, engine.SKILL_MIN), le=max(engine.CON_MAX, engine.SKILL_MAX))]
# A roll's penalty as engine.penalty_parts labels it: "pg", or "illness:" and the disease's name (or its identity).
type PenaltyLabel = Annotated[str, Meta(pattern=r"^(pg|illness:[^\x00]+)\Z", max_length=8 + DISEASE_NAME_LENGTH)]
type Expression = Annotated[str, Meta(min_length=1, max_length=dice.MAX_EXPRESSION_LENGTH)]
type WeekLoss = Annotated[int, Meta(ge=1, le=PG_PER_WEEK_MAX)]
# A game session's number: in order, and at most the site's cap (rules.backup.game_sessions).
type Number = Annotated[int, Meta(ge=1)]
# Time between sessions (rules.actions.running_time): a rate as set_running_time takes it, an hour of a day, a zone's
# name, a moment in ISO 8601 (or none), and how many daily moments a tick stands for.
type Rate = Annotated[int, Meta(ge=1, le=running_time.MAX_RATE)]
type Hour = Annotated[int, Meta(ge=0, le=23)]
type Zone = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_+\-/]+\Z")]
type Moment = Annotated[str, Meta(max_length=40, pattern=r"^([0-9T:+.\-]+)?\Z")]


@functools.cache
def _count(cap: int) -> Any:
    return Annotated[int, Meta(ge=1, le=cap)]


# Each record's fields that hold text or numbers, by name: the type of what its action writes there. None: checked
# elsewhere (an undo's copy of what it undid, which must repeat that entry: rules.backup.replay).
FIELDS: dict[type[events.Record], dict[str, Any]] = {
    # health
    events.Roll: {
        "name": Name,
        "die": Die,
        "sides": Die,
        "modifier": Modifier,
        "penalties": list[tuple[PenaltyLabel, Penalty]],
        "total": events.Signed,  # the sum of its parts (_roll)
        "difficulty": Difficulty,
    },
    events.Answer: {"by": PlayerName, "check": Whole, "called": Whole},
    events.DamageDice: {"expression": Expression, "detail": events.Text, "total": events.Signed},
    events.Damage: {
        "damage": dict[str, events.Whole],  # at most what its kind deals (_damage)
        "pg": PgPairs,
        "speed_kmh": Speed,
        "height_m": Height,
        "difficulty": Difficulty,
        "turns": Turns,
        "weight_kg": TypedWeight,
    },
    events.Advance: {"seconds": Seconds, "pg": PgPairs},
    events.Between: {"real": Whole, "rate": Rate, "moments": Number},
    events.Expose: {"disease": DiseaseName, "category": _one_of("", *Category.values)},  # "": logged before it was
    events.TreatWounds: {"healer_name": Name},
    events.TreatIllness: {"healer_name": Name, "disease": DiseaseName},
    events.Medicate: {"disease": DiseaseName},
    events.Exertion: {"damage": dict[str, events.Whole], "pg": PgPairs},  # the PG it lost (_exertion)
    events.Undone: {"details": None},
    # the table
    events.SheetChanges: {
        "name": tuple[Name, Name],
        "constitution": tuple[Constitution, Constitution],
        "jump": tuple[Skill, Skill],
        "heal_wounds": tuple[Skill, Skill],
        "weight_kg": tuple[Weight, Weight],
        "notes": tuple[Notes, Notes],
        "party_view": tuple[CharacterPartyView, CharacterPartyView],
    },
    events.CharacterAdded: {"name": Name, "player": PlayerName},
    events.CharacterEdited: {"name": Name, "players": tuple[PlayerName, PlayerName]},
    events.CharacterRemoved: {"name": Name, "cancelled": list[Whole]},
    events.Named: {"name": Name},
    events.CharactersRemoved: {"cancelled": list[Whole]},
    events.TemplateValues: {
        "name": Name,
        "count": lambda: _count(settings.CHARACTERS_PER_CAMPAIGN),  # as save_template: the site's cap, read now
        "constitution": Constitution,
        "jump": Skill,
        "heal_wounds": Skill,
        "weight_kg": Weight,
        "party_view": CharacterPartyView,
        "notes": Notes,
    },
    events.InvitationCreated: {"name": Name},
    events.InvitationRevoked: {"name": Name},
    events.InvitationClaimed: {"name": Name, "player": PlayerName},
    events.CampaignChanges: {"name": tuple[Name, Name], "party_view": tuple[PartyView, PartyView]},
    events.CampaignEdited: {"gms": tuple[PlayerName, PlayerName]},
    events.DiseaseChanges: {
        "name": tuple[DiseaseName, DiseaseName],
        "category": tuple[Category, Category],
        "penalty": tuple[Penalty, Penalty],
        "pg_per_week": tuple[WeekLoss | None, WeekLoss | None],
    },
    events.DiseaseAdded: {"name": DiseaseName},
    events.DiseaseEdited: {"name": DiseaseName},
    events.DiseaseRetired: {"name": DiseaseName},
    events.DiseaseRestored: {"name": DiseaseName},
    events.CheckCalled: {
        "height_m": Height,
        "difficulty": Difficulty,
        "weight_kg": TypedWeight,
        "disease": DiseaseName,
    },
    events.CheckCancelled: {
        "checks": list[Whole],
        "height_m": Height,
        "difficulty": Difficulty,
        "disease": DiseaseName,
    },
    # sessions and co-GMs
    events.SessionStarted: {"number": Number},
    events.SessionEnded: {"number": Number},
    events.SessionShared: {"number": Number},
    events.Schedule: {"rate": Rate, "hour": Hour, "zone": Zone, "counted_from": Moment, "next": Moment},
    events.RunningTimeSet: {"stopped": Whole},
    events.CoGmJoined: {"name": Username},
    events.CoGmRemoved: {"name": Username},
}

# The names' kinds, by their type: each is checked as checked_name checks one typed with that length.
NAME_TYPES: dict[Any, int] = {Name: NAME_LENGTH, DiseaseName: DISEASE_NAME_LENGTH}

# The most PG one wound of each kind a GM inflicts can take, from the largest numbers the GM may type (engine.LIMITS).
MOST_DAMAGE: dict[WoundKind, int] = {
    WoundKind.ATTACK: engine.LIMITS["amount"][1],
    WoundKind.COLLISION: engine.collision_damage(engine.LIMITS["speed_kmh"][1], engine.LIMITS["weight_kg"][1]),
    WoundKind.FALL: engine.fall_damage(engine.LIMITS["height_m"][1], engine.LIMITS["weight_kg"][1]),
    WoundKind.DROWNING: engine.drowning_damage(engine.LIMITS["turns"][1]),
    WoundKind.GAS: engine.gas_damage(engine.LIMITS["turns"][1]),
}
# Each check as the engine rolls it: its die, what it adds (CON, or Saltar for a fall) and its difficulties.
DICE = {
    CheckKind.FALL: engine.FALL_DIE,
    CheckKind.RESISTANCE: engine.RESISTANCE_DIE,
    CheckKind.EXERTION: engine.EXERTION_DIE,
}
MODIFIERS = {
    CheckKind.FALL: (engine.SKILL_MIN, engine.SKILL_MAX),
    CheckKind.RESISTANCE: (engine.CON_MIN, engine.CON_MAX),
    CheckKind.EXERTION: (engine.CON_MIN, engine.CON_MAX),
}


def check_payload(at: str, payload: events.Payload) -> None:
    """Refuse an entry's details (found at `at`) unless every field holds what its action could have written there."""
    _record(at, payload)


def check_name(at: str, name: str, longest: int) -> None:
    """A name the actions could have stored: checked_name takes it as typed (an import does not change names)."""
    try:
        checked_name(name, longest)
    except ActionError as error:
        raise invalid_copy(at, _("debe ser un nombre de 1 a %(max)s caracteres.") % {"max": longest}) from error


def _record(at: str, record: events.Record) -> None:
    fields = FIELDS.get(type(record), {})
    for name in record.__struct_fields__:
        value, where = getattr(record, name), f"{at}.{name}"
        if value is None:
            continue
        if isinstance(value, events.Record):
            _record(where, value)
        elif isinstance(value, list) and value and isinstance(value[0], events.Record):
            for index, item in enumerate(value):
                _record(f"{where}[{index}]", item)
        elif (bound := fields.get(name)) is not None:
            _value(where, msgspec.to_builtins(value), bound() if isinstance(bound, types.LambdaType) else bound)
    if (whole := RECORDS.get(type(record))) is not None:
        whole(at, record)


def _value(at: str, value: Any, bound: Any) -> None:
    bare = bound.__value__ if isinstance(bound, TypeAliasType) else bound
    if get_origin(bare) is dict:  # by character: each said where it is (msgspec would say "[...]")
        for key, item in value.items():
            _value(f"{at}.{key}", item, get_args(bare)[1])
        return
    try:
        msgspec.convert(value, bound)
    except msgspec.ValidationError as error:
        raise invalid_by_schema(error, bound, at) from error
    for where, text, longest in _names(at, value, bound):
        check_name(where, text, longest)


def _names(at: str, value: Any, hint: Any) -> Iterator[tuple[str, str, int]]:
    """The names in a value of this type, each with where it is and its kind's length (NAME_TYPES)."""
    if hint in NAME_TYPES:
        yield at, value, NAME_TYPES[hint]
        return
    while isinstance(hint, TypeAliasType) or get_origin(hint) is Annotated:
        hint = hint.__value__ if isinstance(hint, TypeAliasType) else hint.__origin__
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple:
        for index, (item, arg) in enumerate(zip(value, args, strict=True)):
            yield from _names(f"{at}[{index}]", item, arg)
    elif origin is list:
        for index, item in enumerate(value):
            yield from _names(f"{at}[{index}]", item, args[0])
    elif origin in (Union, types.UnionType) and value is not None:
        for arg in args:
            yield from _names(at, value, arg)


# --- what ties a record's fields together -----------------------------------------------------------------------------


def _roll(at: str, roll: events.Roll) -> None:
    """A roll as engine.roll_check makes it: its check's die, what that check adds, its difficulty, the total the sum
    of its parts, a success the total reaching the difficulty."""
    if roll.protected:
        return
    refused = invalid_copy(at, _("no es una tirada que hagan las reglas: su dado, sus sumandos o su total no cuadran."))
    die, modifier, difficulty = roll.die, roll.modifier, roll.difficulty
    if die is None or modifier is None or difficulty is None or None in (roll.sides, roll.total, roll.success):
        raise refused  # a roll that was made has every part (events.Roll), whatever a file says
    low, high = MODIFIERS[roll.check]
    difficulties = {
        CheckKind.FALL: range(engine.LIMITS["difficulty"][0], engine.LIMITS["difficulty"][1] + 1),
        CheckKind.RESISTANCE: engine.RESISTANCE_DIFFICULTY.values(),
        CheckKind.EXERTION: [engine.EXERTION_DIFFICULTY],
    }[roll.check]
    total = die + modifier + sum(value for _label, value in roll.penalties)
    if not (
        roll.sides == DICE[roll.check]
        and die <= roll.sides
        and low <= modifier <= high
        and difficulty in difficulties
        and roll.total == total
        and roll.success == engine.check(total, 0, difficulty)
    ):
        raise refused


def _damage(at: str, payload: events.Damage) -> None:
    most = MOST_DAMAGE.get(payload.kind)
    if most is None:
        raise invalid_copy(f"{at}.kind", _("no es un daño que inflija el narrador."))
    for key, amount in payload.damage.items():
        if amount > most:
            message = _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": 0, "high": most}
            raise invalid_copy(f"{at}.damage.{key}", message)
    if payload.dice is not None and payload.dice.total > engine.LIMITS["amount"][1]:
        message = _("debe ser un número entero como mucho de %(high)s.") % {"high": engine.LIMITS["amount"][1]}
        raise invalid_copy(f"{at}.dice.total", message)


def _exertion(at: str, payload: events.Exertion) -> None:
    for key, amount in payload.damage.items():
        before, after = payload.pg[key]  # events.Exertion: each character damaged has its PG
        if amount != before - after:
            raise invalid_copy(f"{at}.damage.{key}", _("no son los PG que perdió."))


def _group(at: str, payload: events.CharactersAdded) -> None:
    at_most(f"{at}.added", len(payload.added), settings.CHARACTERS_PER_CAMPAIGN)


def at_most(at: str, count: int, cap: int) -> None:
    """A collection no larger than the site lets a campaign hold (config.settings)."""
    if count > cap:
        raise invalid_copy(
            at, _("son %(n)s; este sitio admite como mucho %(max)s por campaña.") % {"n": count, "max": cap}
        )


RECORDS: dict[type[events.Record], Callable[[str, Any], None]] = {
    events.Roll: _roll,
    events.Damage: _damage,
    events.Exertion: _exertion,
    events.CharactersAdded: _group,
}
