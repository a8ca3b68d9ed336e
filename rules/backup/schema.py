"""The campaign document, format "12plus-campaign" version 1, described once: what `export` writes and `restore` reads.

One JSON object holds a campaign: its own diseases (and the site's that its characters caught), every character (the
removed ones too) with its wounds and illnesses, and the whole log. Rows are named by keys of the document ("c1",
"d1", "e1", numbered in order), never by ids of a site: every reference the log carries — in `characters`, `before`,
`after` and `details` (rules.events marks them) — is a key. "missing" lists the keys that the log names and that no
row holds any more (a disease whose adding was undone). Accounts belong to a site: the document names who did what by
username and holds no account, membership or invitation link.

Every bound is a `msgspec.Meta` of the type, so that one `msgspec.json.decode(data, type=Document)` judges the shape
and the ranges; what ties parts together (a PG and its wounds, a log and its undos) is rules.backup.validate's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from django.contrib.auth.validators import UnicodeUsernameValidator
from msgspec import UNSET, Meta, UnsetType

from campaigns.models import PartyView
from characters.models import SHEET_RANGES
from rules import engine, mapping
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.sheet import NAME_LENGTH, NOTES_LENGTH
from rules.events import BIGINT, EventKind, Whole
from rules.models import PENALTY_MIN, PG_PER_WEEK_MAX, Category, WoundKind

FORMAT = "12plus-campaign"
VERSION = 1
INTEGER = 2**31 - 1  # PostgreSQL's integer: PG amounts and counts
USERNAME_LENGTH = 150  # Django's username
TEMPLATE_COUNT_MAX = 32_767  # NpcTemplate.count, a PositiveSmallIntegerField (the site's cap: rules.backup.limits)

# A name as the actions store it (rules.actions.core.checked_name): trimmed, not empty, no NUL.
TRIMMED = r"^[^\s\x00]([^\x00]*[^\s\x00])?\Z"
KEY_DIGITS = "[1-9][0-9]{0,8}"
USERNAME = UnicodeUsernameValidator.regex  # who did an entry, by name: a username of Django's
# A player as an entry names them (rules.actions.sheet._player_name): a username, "#<id>" for an account gone, or none.
PLAYER = rf"^({str(USERNAME).removeprefix('^').removesuffix(chr(92) + 'Z')}|#[0-9]+)?\Z"


def _range(field: str) -> Meta:
    low, high = SHEET_RANGES[field]
    return Meta(ge=low, le=high)


type Positive = Annotated[int, Meta(ge=1, le=BIGINT)]
type Count = Annotated[int, Meta(ge=0, le=INTEGER)]
type Moment = Annotated[datetime, Meta(tz=True)]
type Constitution = Annotated[int, _range("constitution")]
type Skill = Annotated[int, _range("jump")]
type Weight = Annotated[int, _range("weight_kg")]
type Penalty = Annotated[int, Meta(ge=PENALTY_MIN, le=0)]
type Name = Annotated[str, Meta(min_length=1, max_length=NAME_LENGTH, pattern=TRIMMED)]
type DiseaseName = Annotated[str, Meta(min_length=1, max_length=DISEASE_NAME_LENGTH, pattern=TRIMMED)]
type Username = Annotated[str, Meta(min_length=1, max_length=USERNAME_LENGTH, pattern=USERNAME)]
type PlayerName = Annotated[str, Meta(max_length=USERNAME_LENGTH, pattern=PLAYER)]
type Notes = Annotated[str, Meta(max_length=NOTES_LENGTH)]
type CharacterKey = Annotated[str, Meta(pattern=rf"^c{KEY_DIGITS}\Z")]
type DiseaseKey = Annotated[str, Meta(pattern=rf"^d{KEY_DIGITS}\Z")]
type EventKey = Annotated[str, Meta(pattern=rf"^e{KEY_DIGITS}\Z")]
# The engine's identity of an illness (engine.Illness.key, engine.Wound.illness_key): "disease:<key>" in a document.
type Identity = Annotated[str, Meta(pattern=rf"^disease:d{KEY_DIGITS}\Z")]
type CharacterPartyView = Literal["", "exact", "band", "hidden"]  # rules.actions.sheet.CHARACTER_PARTY_VIEWS
type Mapper = Callable[[str, Any], Any]


class Part(msgspec.Struct, forbid_unknown_fields=True):
    """A part of the document: a member it does not know is refused, not skipped."""


# --- engine states (rules.mapping.to_json / from_json) ----------------------------------------------------------------


class WoundState(Part):
    """One wound of an engine state, or a run of `times` equal ones `every` seconds apart (written only for runs)."""

    kind: WoundKind
    amount: Count
    treated: bool
    inflicted_at: Whole
    illness_key: Identity | None
    times: Annotated[int, Meta(ge=2, le=mapping.RUN_MAX)] | UnsetType = UNSET
    every: Whole | UnsetType = UNSET


class IllnessState(Part):
    category: Category
    penalty: Penalty
    pg_per_week: Annotated[int, Meta(ge=0, le=PG_PER_WEEK_MAX)]
    treated: bool
    medicated: bool
    since: Whole
    name: Annotated[str, Meta(max_length=DISEASE_NAME_LENGTH)]
    key: Identity
    cured_at: Whole | None
    weeks_charged: Count


class State(Part):
    """A character's engine.Health as the log keeps it in `before` and `after`."""

    constitution: Constitution
    wounds: list[WoundState]
    illnesses: list[IllnessState]
    now: Whole
    died_at: Whole | None
    progress: list[tuple[WoundKind, Positive]]
    protection: list[tuple[Category, Whole]]


# --- rows -------------------------------------------------------------------------------------------------------------


class CampaignPart(Part):
    name: Name
    clock: Whole
    created: Moment
    party_view: PartyView = PartyView.BAND  # a document from before party views: a word for everyone


class DiseaseEntry(Part):
    """A disease the campaign has (scope "campaign") or names: one of the rules' or of the site's, found by name."""

    key: DiseaseKey
    scope: Literal["campaign", "builtin", "site"]
    name: DiseaseName
    category: Category
    penalty: Penalty
    pg_per_week: Annotated[int, Meta(ge=1, le=PG_PER_WEEK_MAX)] | None  # null for a common disease, as stored
    retired: bool


class WoundEntry(Part):
    """One wound of a character (a row standing for a run of them is written out wound by wound)."""

    kind: WoundKind
    amount: Count  # what it took
    remaining: Count  # what is still to recover
    treated: bool
    inflicted_at: Whole
    illness_key: Annotated[str, Meta(pattern=rf"^(disease:d{KEY_DIGITS})?\Z")]  # "" but for an illness's loss


class IllnessEntry(Part):
    """One episode of a disease, with the disease's numbers as they were when it was caught."""

    disease: DiseaseKey
    category: Category
    penalty: Penalty
    pg_per_week: Annotated[int, Meta(ge=0, le=PG_PER_WEEK_MAX)]
    since: Whole
    treated: bool
    medicated: bool
    cured_at: Whole | None
    weeks_charged: Count


class CharacterEntry(Part, kw_only=True):  # kw_only: a default (party_view) among required fields
    key: CharacterKey
    name: Name
    constitution: Constitution
    jump: Skill
    heal_wounds: Skill
    weight_kg: Weight
    notes: Notes
    party_view: CharacterPartyView = ""  # a document from before party views: the campaign's
    rests_between_sessions: bool = True  # a document from before time ran between sessions: it rests
    pg: Annotated[int, Meta(ge=0, le=engine.max_pg(engine.CON_MAX))]
    died_at: Whole | None
    recovery_progress: dict[WoundKind, Positive]
    protection: list[tuple[Category, Whole]]
    removed: bool
    created: Moment
    wounds: list[WoundEntry]
    illnesses: list[IllnessEntry]


class EventEntry(Part):
    """One entry of the log. `details` is the payload of its kind (rules.events), read by rules.backup.validate."""

    key: EventKey
    action: EventKind
    actor: Username | None
    clock_before: Whole
    clock_after: Whole
    created: Moment
    characters: list[CharacterKey]
    details: dict[str, Any]
    before: dict[CharacterKey, State]
    after: dict[CharacterKey, State]
    undone: bool
    undone_at: Moment | None
    undone_by: Username | None


class Missing(Part):
    """Keys the log names that no row holds, by kind; they go on from the rows' keys ("d5" after d1 to d4)."""

    # Characters and events are never deleted (a removed character stays, an undone event stays): only a disease whose
    # adding was undone can be named and gone.
    character: Annotated[list[CharacterKey], Meta(max_length=0)]
    disease: list[DiseaseKey]
    event: Annotated[list[EventKey], Meta(max_length=0)]


class TemplateEntry(Part, kw_only=True):
    """A quick NPCs' template (characters.models.NpcTemplate): the "Añadir varios" form's values under their name."""

    name: Name
    count: Annotated[int, Meta(ge=1, le=TEMPLATE_COUNT_MAX)]
    constitution: Constitution
    jump: Skill = 0
    heal_wounds: Skill = 0
    weight_kg: Weight = 70
    party_view: CharacterPartyView = ""
    notes: Notes = ""


class SessionEntry(Part, kw_only=True):
    """A game session (campaigns.models.GameSession): its number, the entries that started and ended it, and when its
    recap was shared with the players. All of it is what the log says (rules.backup.game_sessions checks it)."""

    number: Annotated[int, Meta(ge=1, le=INTEGER)]
    started: EventKey
    ended: EventKey | None = None
    shared_at: Moment | None = None


class Document(Part):
    format: Literal["12plus-campaign"]
    version: Literal[1]
    campaign: CampaignPart
    diseases: list[DiseaseEntry]
    characters: list[CharacterEntry]
    events: list[EventEntry]
    missing: Missing
    templates: list[TemplateEntry] = []  # a document from before quick NPCs' templates: none
    # A document from before game sessions has none; one without the part has those its log says.
    sessions: list[SessionEntry] | UnsetType = UNSET


class Head(msgspec.Struct):
    """What a file says it is, read before the rest so that another format or version is named as such."""

    format: Any = None
    version: Any = None


def health(state: State) -> engine.Health:
    """The engine's Health of a state (its runs of wounds one by one)."""
    wounds = [
        engine.Wound(w.kind.value, w.amount, w.treated, at, w.illness_key)
        for w in state.wounds
        for at in mapping.moments(w.inflicted_at, w.times or 1, w.every or 0)
    ]
    illnesses = [
        engine.Illness(
            i.category.value,
            i.penalty,
            i.pg_per_week,
            i.treated,
            i.medicated,
            i.since,
            name=i.name,
            key=i.key,
            cured_at=i.cured_at,
            weeks_charged=i.weeks_charged,
        )
        for i in state.illnesses
    ]
    return engine.Health(
        state.constitution,
        tuple(wounds),
        tuple(illnesses),
        now=state.now,
        died_at=state.died_at,
        progress=tuple((kind.value, seconds) for kind, seconds in state.progress),
        protection=tuple((category.value, day) for category, day in state.protection),
    )


def wound_count(state: State) -> int:
    """How many engine wounds a state stands for (a run is `times` of them)."""
    return sum(w.times or 1 for w in state.wounds)


def with_diseases(state: dict[str, Any], m: Mapper) -> dict[str, Any]:
    """A state as JSON values with the disease that each illness and illness wound names turned by `m`: ids of the site
    into keys of the document ("disease:12" → "disease:d3"), or back."""

    def identity(value: Any) -> Any:
        return None if value is None else f"disease:{m('disease', str(value).removeprefix('disease:'))}"

    return {
        **state,
        "wounds": [{**wound, "illness_key": identity(wound["illness_key"])} for wound in state["wounds"]],
        "illnesses": [{**illness, "key": identity(illness["key"])} for illness in state["illnesses"]],
    }
