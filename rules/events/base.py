"""The parts every event kind's payload is made of (rules.events): the kinds, the typed values, the payload's base and
its reading and writing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import msgspec
from django.db import models
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from campaigns.models import Event


class EventKind(models.TextChoices):
    """What one entry of the campaign log records (campaigns.models.Event.action): one action of rules.actions each,
    with its payload below (PAYLOADS)."""

    DAMAGE = "damage", _("daño")
    ADVANCE = "advance", _("paso del tiempo")
    EXPOSE = "expose", _("exposición a una enfermedad")
    TREAT_WOUNDS = "treat_wounds", _("tratamiento de heridas")
    TREAT_ILLNESS = "treat_illness", _("tratamiento de una enfermedad")
    MEDICATE = "medicate", _("medicamentos")
    EXERTION = "exertion", _("tirada de esfuerzo")
    UNDO = "undo", _("deshacer")
    CHARACTER_ADDED = "character_added", _("personaje nuevo")
    CHARACTER_EDITED = "character_edited", _("hoja editada")
    CHARACTER_REMOVED = "character_removed", _("personaje retirado")
    CHARACTERS_ADDED = "characters_added", _("varios personajes nuevos")
    CHARACTERS_REMOVED = "characters_removed", _("varios personajes retirados")
    TEMPLATE_CHANGED = "template_changed", _("plantilla de PNJ")
    INVITATION_CREATED = "invitation_created", _("invitación creada")
    INVITATION_REVOKED = "invitation_revoked", _("invitación anulada")
    INVITATION_CLAIMED = "invitation_claimed", _("invitación aceptada")
    DISEASE_ADDED = "disease_added", _("enfermedad nueva")
    DISEASE_EDITED = "disease_edited", _("enfermedad editada")
    DISEASE_RETIRED = "disease_retired", _("enfermedad retirada")
    DISEASE_RESTORED = "disease_restored", _("enfermedad recuperada")
    CAMPAIGN_EDITED = "campaign_edited", _("campaña editada")
    CHECK_CALLED = "check_called", _("tirada pedida")
    CHECK_CANCELLED = "check_cancelled", _("tirada anulada")
    CO_GM_LINK = "co_gm_link", _("enlace de co-narrador")
    CO_GM_JOINED = "co_gm_joined", _("co-narrador nuevo")
    CO_GM_REMOVED = "co_gm_removed", _("co-narrador quitado")
    SESSION_STARTED = "session_started", _("sesión empezada")
    SESSION_ENDED = "session_ended", _("sesión terminada")
    SESSION_SHARED = "session_shared", _("resumen de sesión compartido")
    RUNNING_TIME = "running_time", _("tiempo entre sesiones")


BIGINT = 2**63 - 1  # PostgreSQL's bigint: clocks, campaign seconds, ids
TEXT_LENGTH = 10_000  # any one text: twice the longest an action writes (a character's notes)


@dataclass(frozen=True)
class Refers:
    """Marks a value (or a dict's key) as a reference to a row of this kind: "character", "disease", "event",
    "invitation" or "user"."""

    what: str


type Whole = Annotated[int, msgspec.Meta(ge=0, le=BIGINT)]
type Signed = Annotated[int, msgspec.Meta(ge=-BIGINT, le=BIGINT)]
type Text = Annotated[str, msgspec.Meta(max_length=TEXT_LENGTH)]
type CharacterRef = Annotated[int | str, Refers("character")]
type CharacterKey = Annotated[str, Refers("character")]  # a character as a JSON object's key: "12", or "c1"
type DiseaseRef = Annotated[int | str, Refers("disease")]
type EventRef = Annotated[int | str, Refers("event")]
type InvitationRef = Annotated[int | None, Refers("invitation")]
type UserRef = Annotated[int | None, Refers("user")]
type PgPair = tuple[Signed, Signed]  # PG before and after


# Every payload class, by its kind (Payload registers each): a new kind is one more class in this package.
PAYLOADS: dict[EventKind, type[Payload]] = {}


class Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A part of a payload: strict (an unknown field is refused). A field that may be None has None as its default:
    it is stored only when it has a value (`stored`)."""


class Answer(Record):
    """A called check answered (rules.actions.checks): which one, who rolled, and whether the die was typed."""

    by: Text
    gm: bool
    typed: bool
    # The called check's id and its call's event id, as they were where it was played (a backup keeps them as they
    # are: they only tell the story, nothing looks them up).
    check: Whole | None = None
    called: Whole | None = None


class Payload(Record):
    """What one log entry says beyond its kind, clock, characters and states (campaigns.models.Event), and what the
    kind does, said once here for the screens (play.screens), undo and the backup (rules.backup.validate)."""

    kind_of_event: ClassVar[EventKind]
    health: ClassVar[bool] = False  # logged by rules.actions.core.finish: each changed character's state before, after
    about_one: ClassVar[bool] = False  # about exactly one character
    in_play: ClassVar[bool] = False  # done only to a character in play (not removed)
    roster: ClassVar[bool] = False  # changes who is at the table or who plays whom: card lists and player pages
    calls: ClassVar[bool] = False  # calls checks, or closes or reopens them
    changes_disease: ClassVar[bool] = False  # a campaign disease: its name and numbers show on every card
    sessions: ClassVar[bool] = False  # starts or ends a game session, or shares its recap (campaigns.GameSession)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        PAYLOADS[cls.kind_of_event] = cls

    @property
    def answered_call(self) -> Answer | None:
        """The called check this entry answered (rules.actions.checks), if it answered one."""
        call: Answer | None = getattr(self, "call", None)
        return call


# --- reading and writing ----------------------------------------------------------------------------------------------


class DamagedEntry(ValueError):
    """A stored or imported log entry that no action could have written: `where` says which part, `problem` why."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def decode(kind: str, details: Any) -> Payload:
    """The payload of an entry of this kind, checked field by field."""
    try:
        payload_type = PAYLOADS[EventKind(kind)]
    except ValueError as error:
        raise DamagedEntry("action", f"not an event kind: {kind!r}") from error
    try:
        return msgspec.convert(details, payload_type)
    except msgspec.ValidationError as error:
        problem, at, where = str(error).rpartition(" - at `")
        if not at:
            problem, where = str(error), "$"
        raise DamagedEntry(where.rstrip("`").replace("$", "details", 1), problem) from error


def label_of(action: str) -> str:
    """An event kind in words ("daño"), or what is stored if it names none."""
    return str(EventKind(action).label) if action in EventKind.values else action


def payload_of(event: Event) -> Payload:
    """What a log entry says, read back; a damaged entry raises DamagedEntry."""
    return decode(event.action, event.details)


def stored(payload: Payload) -> dict[str, Any]:
    """A payload as `Event.details` keeps it: plain JSON values, without the fields that are None."""
    details: dict[str, Any] = _without_none(msgspec.json.decode(msgspec.json.encode(payload)))
    return details


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value


def changed(changes: Record) -> dict[str, tuple[Any, Any]]:
    """The fields an edit changed, each with its value before and after."""
    return {name: pair for name, pair in msgspec.structs.asdict(changes).items() if pair is not None}
