"""What every action shares: the campaign lock, loading characters under it, the log entry and the notification."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.access import Right
from campaigns.models import Campaign, Event
from characters.models import Character
from config import metrics
from config.compiled import Compiled, Slot, together
from config.written import in_one_trip
from rules import dice, engine, events, mapping, notify
from rules.models import CheckKind, Illness, Wound


@dataclass(frozen=True)
class FromTab:
    """Someone acting from a browser tab that gets the change in the answer to its request (play.screens.answers): the
    change's notification names the tab (rules.notify.Change), so that the tab's own stream leaves it out — each
    change reaches each screen once."""

    user: User | AnonymousUser
    tab: str


# Who acts: a signed-in user (from a tab that gets the change in its answer, or not), or nobody (a script); an
# anonymous visitor is recorded as nobody.
type Actor = User | AnonymousUser | FromTab | None


def person(by: Actor) -> User | AnonymousUser | None:
    """Who acts, whatever tab they act from."""
    return by.user if isinstance(by, FromTab) else by


def tab_of(by: Actor) -> str:
    """The browser tab an action is taken from ("" when none gets the change in its answer)."""
    return by.tab if isinstance(by, FromTab) else ""


def user_of(by: Actor) -> User | None:
    """The account an action is recorded as taken by: None for a script or an anonymous visitor."""
    user = person(by)
    return user if isinstance(user, User) else None


class ActionError(Exception):
    """Bad input for an action: the message is for the GM; `field` names the form field it belongs to, if any."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        metrics.REFUSALS.inc()  # made only to be raised: every one is a refusal


@dataclass
class Outcome:
    """What an action did: its log entry (None when there was nothing to change) and the characters it touched."""

    event: Event | None
    characters: list[Character]


def number(name: str, value: int, label: str) -> int:
    """A number the GM typed, inside its range of docs/rules.md §7.11 (engine.LIMITS)."""
    low, high = engine.LIMITS[name]
    if not low <= value <= high:
        raise ActionError(
            _("%(label)s debe estar entre %(low)s y %(high)s.") % {"label": label, "low": low, "high": high}, name
        )
    return value


def checked_name(name: str, longest: int) -> str:
    """A name as people type it, in one form, so that two names that read alike are one name: NFKC ("ｆｕｌｌ"
    is "full"), without the invisible format characters (zero-width spaces and joiners, direction marks, soft
    hyphens) that would tell apart two names that look the same, every run of spaces one space, trimmed; not empty,
    not too long, no NUL (PostgreSQL refuses it in text)."""
    name = unicodedata.normalize("NFKC", name)
    name = " ".join("".join(char for char in name if unicodedata.category(char) != "Cf").split())
    if not name or len(name) > longest or "\x00" in name:
        raise ActionError(_("El nombre debe tener entre 1 y %(max)s caracteres.") % {"max": longest}, "name")
    return name


# --- locking and loading ---------------------------------------------------------------------------------------------
# Every action takes the campaign row first, then the rows it changes, always in the same order (characters, wounds,
# illnesses, then invitations or diseases, each by id), so that two actions never wait for each other in a circle.


@dataclass
class Loaded:
    character: Character
    wounds: list[Wound]
    illnesses: list[Illness]
    health: engine.Health


LOCKED = Compiled(lambda campaign: Campaign.objects.select_for_update().filter(pk=campaign))


def lock_campaign(campaign: Campaign | int, by: Actor, right: Right = Right.TABLE) -> Campaign:
    """Lock the campaign's row, then decide whether `by` holds `right` there now (campaigns.access.holds): under the
    lock, in the action's transaction, so that a change of rights (a co-GM removed, a character handed over) lands
    wholly before the action or wholly after it. A script (`by` None) holds every right."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    locked_campaign = the_locked(LOCKED.list(campaign=campaign_id))
    allowed(locked_campaign, by, right)
    return locked_campaign


def holds(campaign: Campaign, by: Actor, right: Right, characters: Iterable[Character] = ()) -> bool:
    """Whether `by` holds `right` at this campaign now (campaigns.access.holds), from whatever tab; a script (None)
    holds every right."""
    user = person(by)
    return user is None or access.holds(campaign, user, right, characters)


def allowed(campaign: Campaign, by: Actor, right: Right, characters: Iterable[Character] = ()) -> None:
    """Refuse, in words, an action `by` may no longer take at this campaign (campaigns.access.holds); nothing is
    written."""
    if holds(campaign, by, right, characters):
        return
    refusals = {
        Right.OWNER: _("Solo quien creó la campaña puede hacer esto."),
        Right.TABLE: _("Ya no llevas esta campaña: no se ha hecho nada."),
        Right.PLAYER: _("Ese personaje ya no es tuyo: no se ha hecho nada."),
    }
    raise ActionError(refusals[right])


def the_locked(found: list[Campaign]) -> Campaign:
    """The campaign row the lock read; one deleted meanwhile (another tab) is said, never a 500."""
    if not found:
        raise ActionError(_("Esta campaña ya no existe."))
    return found[0]


def ids(characters: Iterable[Character | int]) -> list[int]:
    return sorted({c if isinstance(c, int) else c.pk for c in characters})


def rows_of(removed: bool, chosen: bool) -> tuple[Compiled[Character], Compiled[Wound], Compiled[Illness]]:
    """The three locking reads of `load`, compiled once for each of its four forms (config.compiled): a campaign's
    characters in play (or removed ones too), every one of them or those `chosen`, and their wounds and illnesses."""
    manager = Character.everyone if removed else Character.objects

    def mine(rows: QuerySet[Any], campaign: Slot, characters: Slot, column: str) -> QuerySet[Any]:
        rows = rows.filter(**{"campaign" if column == "pk" else "character__campaign": campaign})
        return rows.filter(**{f"{column}__any": characters}) if chosen else rows

    return (
        Compiled(
            lambda campaign, characters: mine(manager.select_for_update(), campaign, characters, "pk").order_by("id")
        ),
        Compiled(
            lambda campaign, characters: mine(
                Wound.objects.select_for_update(), campaign, characters, "character_id"
            ).order_by("id")
        ),
        Compiled(
            lambda campaign, characters: mine(
                Illness.objects.select_for_update(of=("self",)).select_related("disease"),
                campaign,
                characters,
                "character_id",
            ).order_by("id")
        ),
    )


BIGGEST_ID = 2**63  # PostgreSQL's bigint
ROWS = {(removed, chosen): rows_of(removed, chosen) for removed in (False, True) for chosen in (False, True)}


def load(campaign: Campaign, character_ids: list[int] | None, removed: bool = False) -> list[Loaded]:
    """Lock and load characters of this campaign with their rows, re-read under the campaign lock (in one round trip:
    the characters, then their wounds, then their illnesses); None means every character in play. `removed` also finds
    characters taken out of the campaign (an undo brings them back)."""
    reads = character_reads(campaign.pk, character_ids, removed)
    return loaded_from(campaign, character_ids, *together(*reads))


def locked(
    campaign: Campaign | int, character_ids: list[int] | None, by: Actor, right: Right = Right.TABLE
) -> tuple[Campaign, list[Loaded]]:
    """`lock_campaign`, then `load`, in one round trip: the campaign's row is locked first, as always, by the first
    statement of the four; then whether `by` holds `right` over these characters, as they are under the lock."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    reads = character_reads(campaign_id, character_ids, False)
    [found, *rows] = together((LOCKED, {"campaign": campaign_id}), *reads)
    campaign = the_locked(found)
    loads = loaded_from(campaign, character_ids, *rows)
    allowed(campaign, by, right, [loaded.character for loaded in loads])
    return campaign, loads


def character_reads(
    campaign_id: int, character_ids: list[int] | None, removed: bool
) -> list[tuple[Compiled[Any], dict[str, Any]]]:
    """The three locking reads of `load`, with their values."""
    chosen = [] if character_ids is None else character_ids
    if any(not 0 < pk < BIGGEST_ID for pk in chosen):  # no row has such an id (and PostgreSQL would refuse it)
        raise ActionError(_("Ese personaje no pertenece a esta campaña."), "characters")
    values = {"campaign": campaign_id, "characters": chosen}
    return [(read, values) for read in ROWS[removed, character_ids is not None]]


def loaded_from(
    campaign: Campaign,
    character_ids: list[int] | None,
    loaded_characters: list[Character],
    loaded_wounds: list[Wound],
    loaded_illnesses: list[Illness],
) -> list[Loaded]:
    if character_ids is not None and len(loaded_characters) != len(set(character_ids)):
        raise ActionError(_("Ese personaje no pertenece a esta campaña."), "characters")
    wounds_of: dict[int, list[Wound]] = defaultdict(list)
    for wound in loaded_wounds:
        wounds_of[wound.character_id].append(wound)
    illnesses_of: dict[int, list[Illness]] = defaultdict(list)
    for illness in loaded_illnesses:
        illnesses_of[illness.character_id].append(illness)
    return [
        Loaded(
            c,
            wounds_of[c.pk],
            illnesses_of[c.pk],
            mapping.health_of(c, wounds_of[c.pk], illnesses_of[c.pk], campaign.clock),
        )
        for c in loaded_characters
    ]


# --- finishing: store, log, notify -----------------------------------------------------------------------------------


def finish(
    campaign: Campaign,
    by: Actor,
    results: list[tuple[Loaded, engine.Health]],
    payload: events.Payload,
    clock_after: int | None = None,
    characters: Iterable[int] = (),
) -> Outcome:
    """Store each character's new health, then log the event and notify. `characters` names more characters the
    event is about, beside those whose health it changed."""
    changes = mapping.Changes()
    for loaded, new in results:
        changes.record(loaded.character, loaded.wounds, loaded.illnesses, new)
    event = log(
        campaign,
        by,
        payload,
        characters=sorted({loaded.character.pk for loaded, _new in results} | set(characters)),
        before={str(loaded.character.pk): mapping.to_json(loaded.health) for loaded, _new in results},
        after={str(loaded.character.pk): mapping.to_json(new) for loaded, new in results},
        clock_after=clock_after,
        writes=changes.statements(),
    )
    return Outcome(event, [loaded.character for loaded, _new in results])


def log(
    campaign: Campaign,
    by: Actor,
    payload: events.Payload,
    characters: list[int],
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    clock_after: int | None = None,
    writes: list[mapping.Statement] | None = None,
) -> Event:
    """Append one event to the campaign log, bump the campaign's version and tell every server process. The action's
    own `writes` (its rows, rules.mapping.Changes) go to PostgreSQL in one round trip with the campaign's version, the
    event and the notification that names it and the tab that acted, if any (rules.notify.sent_with)."""
    clock_before = campaign.clock
    campaign.clock = clock_before if clock_after is None else clock_after
    campaign.version += 1
    event = Event(
        campaign=campaign,
        action=payload.kind_of_event,
        actor=user_of(by),
        clock_before=clock_before,
        clock_after=campaign.clock,
        characters=characters,
        details=events.stored(payload),
        before=before or {},
        after=after or {},
    )
    statements = [
        *(writes or []),
        mapping.update_statement([campaign], ["clock", "version"]),
        notify.sent_with(mapping.insert_one_statement(event), campaign.pk, characters, tab_of(by)),
    ]
    [(event.pk, _notified)] = in_one_trip(statements)
    event._state.adding, event._state.db = False, DEFAULT_DB_ALIAS
    transaction.on_commit(metrics.ACTIONS.labels(event.action).inc)  # counted once it stands
    return event


# --- the engine's answers --------------------------------------------------------------------------------------------


def roll_record(loaded: Loaded, check: CheckKind, result: engine.CheckResult | None) -> events.Roll:
    """A check for the log: all its parts, or that the character was protected and rolled nothing."""
    character, name = loaded.character.pk, loaded.character.name
    if result is None:
        return events.Roll(character=character, name=name, check=check, protected=True)
    return events.Roll(
        character=character,
        name=name,
        check=check,
        die=result.die,
        sides=result.sides,
        modifier=result.modifier,
        penalties=list(result.penalties),
        total=result.total,
        difficulty=result.difficulty,
        success=result.success,
    )


def rules_refusal(reason: str, name: str) -> ActionError:
    """An engine refusal (engine.REFUSALS) in the GM's language, beside the field it concerns."""
    messages = {
        "dead": (_("%(name)s ha muerto y no puede hacerlo."), "characters"),
        "exertion": (_("%(name)s no necesita tirada de esfuerzo: solo se hace con 4 PG o menos."), "character"),
        "cured": (_("Esa enfermedad ya está curada."), "illness"),
        "treated": (_("Esa enfermedad ya ha sido tratada."), "illness"),
        "medicated": (_("Esa enfermedad ya tiene sus medicamentos."), "illness"),
    }
    message, field = messages[reason]
    return ActionError(message % {"name": name} if "%(name)s" in message else message, field)


def engine_call[T](loaded: Loaded, function: Callable[..., T], *args: Any) -> T:
    """Run an engine action on one character; what the rules refuse becomes a message for the GM."""
    try:
        return function(loaded.health, *args)
    except engine.Refused as refused:
        raise rules_refusal(refused.reason, loaded.character.name) from refused


def typed_die(dice_by_character: Mapping[int, int | None] | None, character: Character, sides: int) -> int:
    typed = (dice_by_character or {}).get(character.pk)
    try:
        return dice.die_or_roll(sides, typed)
    except dice.DiceError as error:
        raise ActionError(f"{character.name}: {error}", "die") from error


# --- undoing what an event did besides health ----------------------------------------------------------------------

type Undoer = Callable[[Campaign, Event, Any], None]

# One function per payload type (rules.events) whose event changed more than health: rules.actions.undo calls it,
# after the health of before is restored, to put the rest back.
UNDOERS: dict[type[events.Payload], Undoer] = {}
# The right an undo of each kind of event asks (campaigns.access.Right): the table's, unless registered here with more.
RIGHT_TO_UNDO: dict[str, Right] = {}


def undoes[U: Undoer](payload_type: type[events.Payload], right: Right = Right.TABLE) -> Callable[[U], U]:
    """Register the undoer of a payload type, and the right its undo asks: that of the action that logs it."""

    def register(undoer: U) -> U:
        UNDOERS[payload_type] = undoer
        if right != Right.TABLE:
            RIGHT_TO_UNDO[payload_type.kind_of_event] = right
        return undoer

    return register


def right_to_undo(kind: str) -> Right:
    """The right an undo of an event of this kind asks: who may make it (an owner's event, the owner alone)."""
    return RIGHT_TO_UNDO.get(kind, Right.TABLE)  # an EventKind is its own string
