"""What happened over a stretch of the campaign log, per character: the core of a game session's recap and of a
player's "since your last visit".

A stretch is the log's entries after one event and up to another (either end open). It tells what stands: entries
since undone, and the undos themselves, are left out, exactly as the chart (play.screens.timeline) and the stored state
leave them out. Everything is read from the entries themselves — each holds the states of the characters it changed
before and after it (rules.mapping) and its rolls (rules.events) — in one query, plus one for the checks called in
the stretch when there were any and one for the characters' names when the caller has none at hand.

Who may read what of a stretch is not said here: a player's view of it is play.log.recaps'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.db.models import Q

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import engine, events, mapping
from rules.events import EventKind
from rules.models import CalledCheck, CallStatus, CheckKind


@dataclass(frozen=True)
class Rolled:
    """One check rolled in the stretch, with its result; `answered` when it answered a called check (`by` rolled)."""

    event: int
    at: int  # the campaign second it was rolled at
    check: CheckKind
    protected: bool  # protected today: no roll, no illness
    die: int | None
    total: int | None
    difficulty: int | None
    success: bool | None
    answered: bool = False
    by: str = ""
    disease: str = ""  # a resistance roll's disease, as the log names it


@dataclass
class Tally:
    """The wounds of one kind taken in the stretch: how many, and the PG they took."""

    count: int = 0
    pg: int = 0


@dataclass
class CharacterStretch:
    """One character over the stretch. `first` is its state before its first entry in the stretch (for a character
    added in it: its first state), `last` after its last one; both None when no entry changed its state (it was only
    called for a check, say)."""

    pk: int
    name: str
    first: engine.Health | None = None
    last: engine.Health | None = None
    added: bool = False
    wounds: dict[str, Tally] = field(default_factory=dict)  # by wound kind (engine.KINDS), in the order taken
    # Of those, the weekly losses of a serious illness: the PG each disease took (by its name), in the order taken.
    losses: dict[str, int] = field(default_factory=dict)
    caught: list[str] = field(default_factory=list)  # the diseases' names (rules.models.disease_name words them)
    cured: list[str] = field(default_factory=list)
    rolls: list[Rolled] = field(default_factory=list)
    called: list[CheckKind] = field(default_factory=list)  # checks called for it in the stretch
    pending: list[CheckKind] = field(default_factory=list)  # of those, the ones still waiting at the stretch's end
    died_at: int | None = None  # the campaign second it died, when it died in the stretch
    removed: bool = False  # taken out of the campaign in the stretch

    @property
    def pg_start(self) -> int | None:
        return None if self.first is None else self.first.pg

    @property
    def pg_end(self) -> int | None:
        return None if self.last is None else self.last.pg

    @property
    def wound_count(self) -> int:
        return sum(tally.count for tally in self.wounds.values())

    @property
    def wound_pg(self) -> int:
        return sum(tally.pg for tally in self.wounds.values())


@dataclass
class Stretch:
    """A stretch of a campaign's log: its ends, the campaign clock at each, how many entries stand in it, and what
    they did to each character they are about (`characters`, in name order)."""

    after: int | None  # the event it starts after (None: the campaign's start)
    upto: int | None  # the last event it holds (None: up to now)
    clock_start: int
    clock_end: int
    entries: int
    characters: list[CharacterStretch]
    last_event: int | None  # the latest standing entry in it

    @property
    def seconds(self) -> int:
        """Campaign time passed over the stretch."""
        return self.clock_end - self.clock_start

    def of(self, pk: int) -> CharacterStretch | None:
        return next((row for row in self.characters if row.pk == pk), None)


FIELDS = ("id", "action", "actor", "clock_before", "clock_after", "characters", "details", "before", "after", "undone")


def stretch(
    campaign: Campaign,
    after_event_id: int | None,
    upto_event_id: int | None,
    names: Mapping[int, str] | None = None,
    not_by: int | None = None,
) -> Stretch:
    """What the log's standing entries after `after_event_id` and up to `upto_event_id` did (None: from the start, up
    to now). `names`: every character's name, when the caller has them (else one query reads those needed).
    `not_by`: an account whose own entries are left out (what it did itself is no news to it)."""
    standing = Q(undone=False) & ~Q(action=EventKind.UNDO)
    if not_by is not None:
        standing &= ~Q(actor_id=not_by)
    if after_event_id is not None:
        standing &= Q(pk__gt=after_event_id)
    if upto_event_id is not None:
        standing &= Q(pk__lte=upto_event_id)
    ends = [pk for pk in (after_event_id, upto_event_id) if pk is not None]
    rows = list(
        Event.objects.filter(campaign_id=campaign.pk).filter(standing | Q(pk__in=ends)).order_by("id").only(*FIELDS)
    )
    start_row = next((row for row in rows if row.pk == after_event_id), None)
    end_row = next((row for row in rows if row.pk == upto_event_id), None)
    entries = [row for row in rows if _within(row, after_event_id, upto_event_id, not_by)]

    builder = _Builder()
    for event in entries:
        builder.read(event)
    if any(event.action == EventKind.CHECK_CALLED for event in entries):
        builder.calls(campaign, after_event_id, upto_event_id, not_by)
    known = names if names is not None else _names(builder.rows)
    for row in builder.rows.values():
        row.name = known.get(row.pk, row.name)
    if after_event_id is None:
        clock_start = 0  # every campaign's clock starts at 0
    elif start_row is not None:
        clock_start = start_row.clock_after
    else:
        clock_start = entries[0].clock_before if entries else campaign.clock
    if upto_event_id is None:
        clock_end = campaign.clock
    elif end_row is not None:
        clock_end = end_row.clock_after
    else:
        clock_end = entries[-1].clock_after if entries else clock_start
    return Stretch(
        after=after_event_id,
        upto=upto_event_id,
        clock_start=clock_start,
        clock_end=max(clock_end, clock_start),
        entries=len(entries),
        characters=sorted(builder.rows.values(), key=lambda row: (row.name.casefold(), row.pk)),
        last_event=entries[-1].pk if entries else None,
    )


def _within(event: Event, after: int | None, upto: int | None, not_by: int | None = None) -> bool:
    if event.undone or event.action == EventKind.UNDO or (not_by is not None and event.actor_id == not_by):
        return False
    return (after is None or event.pk > after) and (upto is None or event.pk <= upto)


def _names(rows: Mapping[int, CharacterStretch]) -> dict[int, str]:
    if not rows:
        return {}
    return dict(Character.everyone.filter(pk__in=list(rows)).values_list("pk", "name"))


class _Builder:
    """Reads the stretch's entries one by one, in order, into one CharacterStretch per character."""

    def __init__(self) -> None:
        self.rows: dict[int, CharacterStretch] = {}

    def row(self, pk: int, name: str = "") -> CharacterStretch:
        found = self.rows.get(pk)
        if found is None:
            found = self.rows[pk] = CharacterStretch(pk, name)
        return found

    def read(self, event: Event) -> None:
        payload = _payload(event)
        for key, state in event.after.items():
            self._states(event, key, state)
        if payload is None:
            return
        for roll in _rolls(payload):
            if isinstance(roll.character, int):
                disease = payload.disease if isinstance(payload, events.Expose) else ""
                self.row(roll.character, roll.name).rolls.append(_rolled(event, roll, payload.answered_call, disease))
        if isinstance(payload, events.CharacterRemoved) and event.characters:
            self.row(event.characters[0], payload.name).removed = True
        elif isinstance(payload, events.CharactersRemoved):
            for named in payload.removed:
                if isinstance(named.character, int):
                    self.row(named.character, named.name).removed = True

    def _states(self, event: Event, key: str, state: object) -> None:
        if not key.isdigit():
            return
        try:
            after = mapping.from_json(state)  # type: ignore[arg-type]
            before = mapping.from_json(event.before[key]) if key in event.before else None
        except (KeyError, TypeError, ValueError):  # a damaged entry (the log says so): its states tell nothing
            return
        row = self.row(int(key))
        if row.first is None:
            row.first, row.added = (after, True) if before is None else (before, False)
        row.last = after
        if before is None:
            return
        for wound in after.wounds[len(before.wounds) :]:
            tally = row.wounds.setdefault(wound.kind, Tally())
            tally.count += 1
            tally.pg += wound.amount
            if wound.kind == "illness":
                name = next((one.name for one in after.illnesses if one.identity == wound.illness_key), "")
                row.losses[name] = row.losses.get(name, 0) + wound.amount
        row.caught += [illness.name for illness in after.illnesses[len(before.illnesses) :]]
        row.cured += [
            now.name for was, now in zip(before.illnesses, after.illnesses, strict=False) if now.cured and not was.cured
        ]
        if after.dead and not before.dead:
            row.died_at = after.died_at if after.died_at is not None else event.clock_after

    def calls(self, campaign: Campaign, after: int | None, upto: int | None, not_by: int | None = None) -> None:
        """The checks called in the stretch, and which of them still waited for a die at its end (one query: the
        calls stand as the log does — an undone call is gone, an undone answer waits again); not those `not_by`
        called."""
        rows = CalledCheck.objects.filter(campaign=campaign)
        if not_by is not None:
            rows = rows.exclude(called__actor_id=not_by)
        if after is not None:
            rows = rows.filter(called_id__gt=after)
        if upto is not None:
            rows = rows.filter(called_id__lte=upto)
        for character_id, kind, status, closed_id in rows.order_by("id").values_list(
            "character_id", "kind", "status", "closed_id"
        ):
            row = self.row(character_id)
            row.called.append(CheckKind(kind))
            closed_later = upto is not None and closed_id is not None and closed_id > upto
            if status == CallStatus.PENDING or closed_later:
                row.pending.append(CheckKind(kind))


def _payload(event: Event) -> events.Payload | None:
    try:
        return events.payload_of(event)
    except events.DamagedEntry:
        return None


def _rolls(payload: events.Payload) -> Iterable[events.Roll]:
    rolls: list[events.Roll] = getattr(payload, "rolls", [])
    return rolls


def _rolled(event: Event, roll: events.Roll, call: events.Answer | None, disease: str = "") -> Rolled:
    return Rolled(
        event=event.pk,
        at=event.clock_after,
        check=roll.check,
        protected=roll.protected,
        die=roll.die,
        total=roll.total,
        difficulty=roll.difficulty,
        success=roll.success,
        answered=call is not None,
        by=call.by if call is not None else "",
        disease=disease,
    )
