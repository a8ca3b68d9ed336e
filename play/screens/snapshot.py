"""A campaign as it stands at one version, read once for every screen drawn from it, and what one change touched of
it (`Touch`, worked out from its event by `touch_of`).

One change is drawn for the GM's table, each player's page and every open sheet: each asks what it shows of the same
rows (play.screens). A snapshot reads each kind of row the first time a drawing asks, and never again: the roster,
every card, the pending checks, the log's latest page. What each audience may see of them is campaigns.access's
business (its Roster); what a card shows is play.screens.cards'.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

from django.db.models import Max, Q, QuerySet

from campaigns.access import ROLES, ROSTER, Roster, roster_of
from campaigns.models import Campaign, Event, GameSession, Invitation
from characters.models import Character
from config.compiled import Compiled, digests, together
from play.log import who_acted, who_of
from play.log.pages import LOG_LENGTH
from play.screens.cards import WOUND_CHARACTER, WOUND_FIELDS, Card
from play.screens.checks import CALLS, CallGroup, CheckLine, open_calls, with_penalties
from rules import engine, events, queries
from rules.events import EventKind
from rules.models import CalledCheck, Illness, Wound


# Events that change who is in play, their names or players, or what the players see of one another: lists of
# characters and the companions are drawn again.
@dataclass(frozen=True)
class Touch:
    """What one change touched, worked out from its event: which regions of a screen it redraws."""

    everything: bool = False
    clock: bool = False
    characters: frozenset[int] = frozenset()
    roster: bool = False
    calls: bool = False
    campaign: bool = False
    sessions: bool = False  # a game session started or ended, or its recap shared (play.screens.game_sessions)
    entries: tuple[int, ...] = ()  # log entries new or changed (an undo marks the one it undid)

    def character(self, pk: int) -> bool:
        return self.everything or self.clock or pk in self.characters


EVERYTHING = Touch(everything=True, clock=True, roster=True, calls=True, campaign=True, sessions=True)


def touch_of(event: Event | None) -> Touch:
    """What an event touched; everything for no event (a campaign whose changes may have been missed), and for an
    entry that cannot be read (rules.events.DamagedEntry): drawing everything is always right, only slower."""
    if event is None:
        return EVERYTHING
    try:
        payload = events.payload_of(event)
    except events.DamagedEntry:
        return EVERYTHING
    entries: tuple[int, ...] = (event.pk,)
    if isinstance(payload, events.Undo):
        # An undo touches what the event it undid touched, and that event's entry, now marked undone.
        entries = (event.pk, int(payload.event))
        payload = payload.undone_payload()
    if payload.changes_disease:  # its name or numbers show on every card of a character that has it
        return Touch(everything=True, clock=True, roster=True, calls=True, entries=entries)
    return Touch(
        clock=event.clock_before != event.clock_after,
        characters=frozenset(event.characters),
        roster=payload.roster,
        calls=payload.calls or payload.answered_call is not None,  # an answer to a called check closes it
        campaign=isinstance(payload, events.CampaignEdited),
        sessions=payload.sessions,
        entries=entries,
    )


@dataclass(frozen=True)
class Head:
    """Of a log entry, what says whether it is kept (play.log.pages): whether it was undone (all that changes of an
    event), its kind, whom it is about and who acted, by the name their account has now (a renamed account is a new
    key, never a stale name)."""

    undone: bool
    action: str
    characters: tuple[int, ...]
    who: str = ""


# What every change, connect and page reads, compiled once (config.compiled).
CAMPAIGN = Compiled(lambda pk: Campaign.objects.filter(pk=pk))
EVENT = Compiled(lambda pk: Event.objects.filter(pk=pk).select_related("actor"))
VERSION = Compiled(lambda pk: Campaign.objects.filter(pk=pk).values_list("version", flat=True))
INVITATIONS = Compiled(
    lambda campaign: Invitation.objects.pending().filter(character__campaign=campaign).order_by("id")
)
SESSIONS = Compiled(
    lambda campaign: GameSession.objects.filter(campaign=campaign).select_related("started").order_by("number")
)
HEADS = ("pk", "undone", "action", "characters", "actor__username", "actor_name")
LATEST_HEADS = Compiled(
    lambda campaign: Event.objects.filter(campaign=campaign).order_by("-id").values_list(*HEADS)[:LOG_LENGTH]
)
# The cards' rows, a wound as plain values (play.screens.cards.WOUND_FIELDS): some characters', or every character's
# of a campaign (those removed too: a whole screen's cards).
WOUNDS = Compiled(
    lambda characters: Wound.objects.filter(character_id__any=characters).order_by("id").values_list(*WOUND_FIELDS)
)
ILLNESSES = Compiled(
    lambda characters: Illness.objects.filter(character_id__any=characters).select_related("disease").order_by("id")
)
CAMPAIGN_WOUNDS = Compiled(
    lambda campaign: Wound.objects.filter(character__campaign=campaign).order_by("id").values_list(*WOUND_FIELDS)
)
CAMPAIGN_ILLNESSES = Compiled(
    lambda campaign: Illness.objects.filter(character__campaign=campaign).select_related("disease").order_by("id")
)


def cards_for(campaign: Campaign, characters: Iterable[Character]) -> list[Card]:
    """Cards for these characters of the campaign, in two queries whatever their number."""
    characters = list(characters)
    ids = [c.pk for c in characters]
    return cards_from(campaign, characters, WOUNDS.rows(characters=ids), ILLNESSES.list(characters=ids))


def cards_from(
    campaign: Campaign, characters: Iterable[Character], wound_rows: Iterable[tuple[object, ...]], rows: list[Illness]
) -> list[Card]:
    """Cards for these characters, from their wounds' values (WOUND_FIELDS) and their illnesses read already."""
    wounds: dict[int, list[tuple[object, ...]]] = defaultdict(list)
    for values in wound_rows:
        wounds[cast(int, values[WOUND_CHARACTER])].append(values)
    illnesses: dict[int, list[Illness]] = defaultdict(list)
    for illness in rows:
        illnesses[illness.character_id].append(illness)
    return [Card(c, wounds[c.pk], illnesses[c.pk], campaign.clock) for c in characters]


def by_character(links: list[Invitation]) -> dict[int, Invitation]:
    """Pending invitation links by their character's id (a co-GM link, for no character, is not among them)."""
    return {link.character_id: link for link in links if link.character_id is not None}


@dataclass
class Snapshot:
    campaign: Campaign  # fresh: its version marks every region drawn from the snapshot
    events: dict[int, Event] = field(default_factory=dict)  # log entries read so far, by id
    heads: dict[int, Head] = field(default_factory=dict)  # what a kept entry is found by (play.screens.kept), by id
    touched: frozenset[int] | None = None  # a change's characters, whose cards are read first (None: all at once)
    cards_read: dict[int, Card] = field(default_factory=dict)  # the cards read so far, by character id
    call_rows: list[CalledCheck] | None = None  # the calls' checks, when read ahead
    ahead: bool = False  # read ahead (`read_ahead`)
    digested: tuple[str, ...] = ()  # the digests of the rows read ahead, when asked for (`read_ahead`)

    def knowing(self, event: Event | None, newest: bool = True) -> Snapshot:
        """This snapshot with an event already read at hand: the log's new entry and, when it is the `newest` (the
        event an action just logged under the campaign's lock) and not an undo (never undone itself), the event an
        undo would undo now — no query for either. A change's stream drawing knows its event but not that it is the
        newest: another change may have been logged since."""
        if event is not None:
            self.events[event.pk] = event
            if newest and event.action != EventKind.UNDO:
                self.__dict__["undoable"] = event.pk  # what the cached property would find: the newest event
        return self

    def read_ahead(self, gm: bool, players: bool, digested: bool = False) -> Snapshot:
        """This snapshot with what a drawing of its screens reads first, read together in one round trip to the
        database (config.compiled.together): the roster and the pending checks; the cards of the characters a change
        touched (every card without `touched`); for a GM's screen the log's latest page, the calls waiting and the
        invitation links; for a player's, the campaign's members and game sessions (their shared recaps). With
        `digested`, the digests of exactly those rows too, as `digest` gives them (in `self.digested`)."""
        reads = self.reads(gm, players)
        digests_read: list[str] | None = [] if digested else None
        rows = together(*reads.values(), digested=digests_read)
        self.digested = tuple(digests_read or ())
        return self.taking(dict(zip(reads, rows, strict=True)), gm, players)

    def taking(self, rows: dict[str, list[Any]], gm: bool, players: bool) -> Snapshot:
        """This snapshot with the rows of its `reads`, read by `read_ahead`."""
        self.ahead = True
        roster = self.__dict__["roster"] = Roster(self.campaign, tuple(rows["roster"]))
        self.__dict__["pending"] = rows["pending"]
        if "wounds" in rows:
            carded = (
                roster.characters if self.touched is None else [c for c in roster.characters if c.pk in self.touched]
            )
            self.cards_read.update(
                (card.character.pk, card)
                for card in cards_from(self.campaign, carded, rows["wounds"], rows["illnesses"])
            )
        if gm:
            self.__dict__["log_page"] = self.read_heads(rows["heads"])
            self.call_rows = rows["calls"]
            self.__dict__["invitations"] = by_character(rows["invitations"])
        if players:
            roster.__dict__["roles"] = dict(rows["roles"])
            self.__dict__["sessions"] = rows["sessions"]
        return self

    def reads(self, gm: bool, players: bool) -> dict[str, tuple[Compiled[Any], dict[str, Any]]]:
        """What `read_ahead` reads, by name: each compiled query with its values."""
        pk = self.campaign.pk
        reads: dict[str, tuple[Compiled[Any], dict[str, Any]]] = {
            "roster": (ROSTER, {"campaign": pk}),
            "pending": (queries.PENDING, {"campaign": pk}),
        }
        if self.touched is None:
            reads["wounds"] = (CAMPAIGN_WOUNDS, {"campaign": pk})
            reads["illnesses"] = (CAMPAIGN_ILLNESSES, {"campaign": pk})
        elif self.touched:
            reads["wounds"] = (WOUNDS, {"characters": sorted(self.touched)})
            reads["illnesses"] = (ILLNESSES, {"characters": sorted(self.touched)})
        if gm:
            reads |= {
                "heads": (LATEST_HEADS, {"campaign": pk}),
                "calls": (CALLS, {"campaign": pk}),
                "invitations": (INVITATIONS, {"campaign": pk}),
            }
        if players:
            reads |= {"roles": (ROLES, {"campaign": pk}), "sessions": (SESSIONS, {"campaign": pk})}
        return reads

    def digest(self, gm: bool, players: bool) -> tuple[str, ...]:
        """The digests of the rows `read_ahead` would read now (one round trip, no rows): equal digests, equal rows."""
        return digests(*self.reads(gm, players).values())

    @cached_property
    def roster(self) -> Roster:
        return roster_of(self.campaign)

    def cards_of(self, characters: Iterable[Character]) -> list[Card]:
        """These characters' cards (a removed one's too: a check it owes still waits), each read once whoever asks:
        with no `touched`, every character's at the first ask (two queries); with it, the cards a change touched
        first, and the others only if something asks for them."""
        characters = list(characters)
        missing = [character for character in characters if character.pk not in self.cards_read]
        if missing:
            first = self.touched is not None and not self.cards_read
            if not first:
                missing = [character for character in self.roster.characters if character.pk not in self.cards_read]
            elif self.touched:
                wanted = {character.pk for character in missing} | self.touched
                missing = [character for character in self.roster.characters if character.pk in wanted]
            self.cards_read.update((card.character.pk, card) for card in cards_for(self.campaign, missing))
        return [self.cards_read[character.pk] for character in characters]

    def card(self, pk: int) -> Card:
        if pk not in self.cards_read:
            self.cards_of(character for character in self.roster.characters if character.pk == pk)
        return self.cards_read[pk]

    def health(self, pk: int) -> engine.Health:
        return self.card(pk).health

    @cached_property
    def invitations(self) -> dict[int, Invitation]:
        """The pending invitation link of each character that has one (the GM's table only shows them)."""
        return by_character(INVITATIONS.list(campaign=self.campaign.pk))

    @cached_property
    def pending(self) -> list[CalledCheck]:
        """The checks still waiting for a die, oldest first."""
        return queries.pending_checks(self.campaign)

    def owes_check(self, characters: Iterable[int]) -> bool:
        owing = set(characters)
        return any(row.character_id in owing for row in self.pending)

    def pending_lines(self, characters: Iterable[int]) -> list[CheckLine]:
        """The checks these characters owe, each with the penalties its character's state puts on it now."""
        owing = set(characters)
        lines = [CheckLine(row) for row in self.pending if row.character_id in owing]
        return with_penalties(lines, self.health)

    @cached_property
    def calls(self) -> list[CallGroup]:
        return open_calls(self.campaign, self.health, self.call_rows)

    @cached_property
    def session_head(self) -> tuple[int | None, int | None]:
        """The latest game session's number and the open one's (None: none): from the campaign's row when it was read
        with them (Campaign.objects.with_session_head), else one query."""
        if hasattr(self.campaign, "latest_session"):
            return getattr(self.campaign, "latest_session"), getattr(self.campaign, "open_session")  # noqa: B009
        head = GameSession.objects.filter(campaign=self.campaign).aggregate(
            latest=Max("number"), playing=Max("number", filter=Q(ended__isnull=True))
        )
        return head["latest"], head["playing"]

    @cached_property
    def sessions(self) -> list[GameSession]:
        """The campaign's game sessions, by number (one query)."""
        return SESSIONS.list(campaign=self.campaign.pk)

    @cached_property
    def names(self) -> dict[int, str]:
        """Every character's name, those removed from the campaign too: the log keeps telling their story."""
        return {character.pk: character.name for character in self.roster.characters}

    @cached_property
    def undoable(self) -> int | None:
        """The event an undo would undo now (rules.queries.latest_undoable), found among the log's page when it is
        there: no query of its own then."""
        for pk in self.log_page:
            head = self.heads[pk]
            if not head.undone and head.action != EventKind.UNDO:
                return pk
        if len(self.log_page) < LOG_LENGTH:
            return None  # the page is the whole log
        event = queries.latest_undoable(self.campaign)
        if event is None:
            return None
        self.events[event.pk] = event
        return event.pk

    @cached_property
    def log_page(self) -> list[int]:
        """The ids of the GM's log's latest page, newest first."""
        return self.read_heads(LATEST_HEADS.rows(campaign=self.campaign.pk))

    def read_heads(self, events: QuerySet[Event] | Sequence[tuple[Any, ...]]) -> list[int]:
        """The heads of these events (one query; their states and payloads are read only for an entry not kept),
        and their ids: the events, or their heads already read (HEADS)."""
        rows = list(events.values_list(*HEADS) if isinstance(events, QuerySet) else events)
        self.heads.update(
            (pk, Head(undone, action, tuple(characters), who_acted(username, name)))
            for pk, undone, action, characters, username, name in rows
        )
        return [row[0] for row in rows]

    def heads_of(self, ids: Iterable[int]) -> dict[int, Head]:
        """The heads of these events, newest first, each read once whoever asks."""
        wanted = sorted(set(ids), reverse=True)
        missing = [pk for pk in wanted if pk not in self.heads and pk not in self.events]
        if missing:
            self.read_heads(self.campaign.events.filter(pk__in=missing))
        for pk in wanted:
            if pk in self.events:
                event = self.events[pk]
                self.heads[pk] = Head(event.undone, event.action, tuple(event.characters), who_of(event))
        return {pk: self.heads[pk] for pk in wanted if pk in self.heads}

    def entries(self, ids: Iterable[int]) -> list[Event]:
        """These events, newest first, each read once whoever asks."""
        wanted = sorted(set(ids), reverse=True)
        missing = [pk for pk in wanted if pk not in self.events]
        if missing:
            found = self.campaign.events.filter(pk__in=missing).select_related("actor")
            self.events.update((event.pk, event) for event in found)
        return [self.events[pk] for pk in wanted if pk in self.events]


def state_for(campaign: Campaign, touch: Touch) -> Snapshot:
    """The rows a change is drawn from: the cards it touched are read first, the others only if a region asks (every
    card at once when the clock moved or the roster changed: they are all drawn then)."""
    every = touch.everything or touch.clock or touch.roster
    return Snapshot(campaign, touched=None if every else touch.characters)
