"""What each entry of the campaign log says: one typed payload per event kind (EventKind).

An action builds its payload (rules.actions), `Event.details` stores it as JSON, and everything that reads an entry —
the log's words (play.log), undo (rules.actions.undo) and the backup (rules.backup) — reads it back through
`payload_of`, which refuses a damaged entry with `DamagedEntry` instead of letting a missing key surface later. A new
event kind is one member of EventKind and one class here (with its flags: what it does, for the screens and the
backup), one wording function in play.log (`@words`) and, when it changes more than health, one undo function in
rules.actions (`@undoes`).

A reference to a row is marked with what it refers to (`Refers`): a database id in the log, a document key ("c1") in
a backup, an id of no row (None) for what a backup leaves out (accounts, invitation links): rules.backup.references
finds and maps them all, so the backup never lists them by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import msgspec
from django.db import models
from django.utils.translation import gettext_lazy as _

from rules.models import CheckKind, WoundKind

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


class Record(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A part of a payload: strict (an unknown field is refused). A field that may be None has None as its default:
    it is stored only when it has a value (`stored`)."""


class Payload(Record):
    """What one log entry says beyond its kind, clock, characters and states (campaigns.models.Event), and what the
    kind does, said once here for the screens (play.screens), undo and the backup (rules.backup.checks)."""

    kind_of_event: ClassVar[EventKind]
    health: ClassVar[bool] = False  # logged by rules.actions.core.finish: each changed character's state before, after
    about_one: ClassVar[bool] = False  # about exactly one character
    in_play: ClassVar[bool] = False  # done only to a character in play (not removed)
    roster: ClassVar[bool] = False  # changes who is at the table or who plays whom: card lists and player pages
    calls: ClassVar[bool] = False  # calls checks, or closes or reopens them
    changes_disease: ClassVar[bool] = False  # a campaign disease: its name and numbers show on every card

    @property
    def answered_call(self) -> Answer | None:
        """The called check this entry answered (rules.actions.checks), if it answered one."""
        call: Answer | None = getattr(self, "call", None)
        return call


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


class Answer(Record):
    """A called check answered (rules.actions.checks): which one, who rolled, and whether the die was typed."""

    by: Text
    gm: bool
    typed: bool
    # The called check's id and its call's event id, as they were where it was played (a backup keeps them as they
    # are: they only tell the story, nothing looks them up).
    check: Whole | None = None
    called: Whole | None = None


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


class Advance(Payload):
    kind_of_event = EventKind.ADVANCE
    health = in_play = True
    seconds: Whole
    resting: list[CharacterRef] = []
    pg: dict[CharacterKey, PgPair] = {}


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


# --- the sheet, invitations, the campaign -----------------------------------------------------------------------------


class SheetChanges(Record):
    """A character's sheet fields that an edit changed, each as [before, after] (rules.actions.sheet.Sheet)."""

    name: tuple[Text, Text] | None = None
    constitution: tuple[Signed, Signed] | None = None
    jump: tuple[Signed, Signed] | None = None
    heal_wounds: tuple[Signed, Signed] | None = None
    weight_kg: tuple[Signed, Signed] | None = None
    notes: tuple[Text, Text] | None = None
    player_id: tuple[UserRef, UserRef] | None = None
    party_view: tuple[Text, Text] | None = None


class CharacterAdded(Payload):
    kind_of_event = EventKind.CHARACTER_ADDED
    about_one = roster = True
    name: Text
    player: Text = ""


class CharacterEdited(Payload):
    kind_of_event = EventKind.CHARACTER_EDITED
    health = about_one = in_play = roster = True
    name: Text
    changes: SheetChanges
    revoked: list[InvitationRef] = []
    players: tuple[Text, Text] | None = None  # the players' names, when the player changed


class CharacterRemoved(Payload):
    kind_of_event = EventKind.CHARACTER_REMOVED
    about_one = in_play = roster = calls = True
    name: Text
    revoked: list[InvitationRef] = []
    # The checks it still owed, called off (their ids where it was played, as CheckCancelled).
    cancelled: list[Whole] = []


class Named(Record):  # a character by id and by the name it had then
    character: CharacterRef
    name: Text


class CharactersAdded(Payload):  # quick NPCs: several characters at once ("Guardia 1"…"Guardia 6"), each unhurt
    kind_of_event = EventKind.CHARACTERS_ADDED
    roster = True
    added: list[Named]


class CharactersRemoved(Payload):  # several taken out at once: what CharacterRemoved keeps of one, for each
    kind_of_event = EventKind.CHARACTERS_REMOVED
    in_play = roster = calls = True
    removed: list[Named]
    revoked: list[InvitationRef] = []
    cancelled: list[Whole] = []


class TemplateValues(Record):  # a quick NPCs' template (characters.models.NpcTemplate): its name and values
    name: Text
    count: Whole
    constitution: Signed
    jump: Signed = 0
    heal_wounds: Signed = 0
    weight_kg: Signed = 70
    party_view: Text = ""
    notes: Text = ""


class TemplateChanged(Payload):  # a template saved (`before` None), saved again, or deleted (`after` None)
    kind_of_event = EventKind.TEMPLATE_CHANGED
    before: TemplateValues | None = None
    after: TemplateValues | None = None

    def __post_init__(self) -> None:
        if self.before is None and self.after is None:
            raise ValueError("a template before or after the change")


class InvitationCreated(Payload):
    kind_of_event = EventKind.INVITATION_CREATED
    about_one = in_play = True
    name: Text
    invitation: InvitationRef = None


class InvitationRevoked(Payload):
    kind_of_event = EventKind.INVITATION_REVOKED
    about_one = True
    name: Text
    invitation: InvitationRef = None


class InvitationClaimed(Payload):
    kind_of_event = EventKind.INVITATION_CLAIMED
    about_one = in_play = roster = True
    name: Text
    player: Text
    invitation: InvitationRef = None
    joined: bool = False


class CampaignChanges(Record):
    name: tuple[Text, Text] | None = None
    gm_id: tuple[UserRef, UserRef] | None = None
    party_view: tuple[Text, Text] | None = None


class CampaignEdited(Payload):
    kind_of_event = EventKind.CAMPAIGN_EDITED
    roster = True
    changes: CampaignChanges
    gms: tuple[Text, Text] | None = None  # the GMs' names, when the GM changed


# --- diseases ---------------------------------------------------------------------------------------------------------


class DiseaseChanges(Record):
    """A campaign disease's fields that an edit changed, each as [before, after] (rules.actions.diseases)."""

    name: tuple[Text, Text] | None = None
    category: tuple[Text, Text] | None = None
    penalty: tuple[Signed, Signed] | None = None
    pg_per_week: tuple[Signed | None, Signed | None] | None = None


class DiseaseAdded(Payload):
    kind_of_event = EventKind.DISEASE_ADDED
    changes_disease = True
    disease: DiseaseRef
    name: Text


class DiseaseEdited(Payload):
    kind_of_event = EventKind.DISEASE_EDITED
    changes_disease = True
    disease: DiseaseRef
    name: Text
    changes: DiseaseChanges


class DiseaseRetired(Payload):
    kind_of_event = EventKind.DISEASE_RETIRED
    changes_disease = True
    disease: DiseaseRef
    name: Text


class DiseaseRestored(Payload):
    kind_of_event = EventKind.DISEASE_RESTORED
    changes_disease = True
    disease: DiseaseRef
    name: Text


# --- called checks ----------------------------------------------------------------------------------------------------


class CheckCalled(Payload):
    kind_of_event = EventKind.CHECK_CALLED
    calls = True
    check: CheckKind
    skipped: list[CharacterRef] = []
    protected: list[CharacterRef] = []
    height_m: Whole | None = None
    difficulty: Whole | None = None
    weight_kg: Whole | None = None
    disease: Text | None = None  # a resistance check's disease, by name


class CheckCancelled(Payload):
    kind_of_event = EventKind.CHECK_CANCELLED
    calls = True
    check: CheckKind
    checks: list[Whole] = []  # the called checks' ids where it was played (a backup keeps them as they are)
    height_m: Whole | None = None
    difficulty: Whole | None = None
    disease: Text | None = None


# --- reading and writing ----------------------------------------------------------------------------------------------

# Every payload class, by its kind: a new kind is one more class above.
PAYLOADS: dict[EventKind, type[Payload]] = {payload.kind_of_event: payload for payload in Payload.__subclasses__()}
assert set(PAYLOADS) == set(EventKind), "every event kind has its payload"


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


def changed(changes: SheetChanges | DiseaseChanges | CampaignChanges) -> dict[str, tuple[Any, Any]]:
    """The fields an edit changed, each with its value before and after."""
    return {name: pair for name, pair in msgspec.structs.asdict(changes).items() if pair is not None}
