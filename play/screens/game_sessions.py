"""Game sessions on the screens and their recap page.

The GM's table has the session's control ("Empezar la sesión 13" / "Terminar la sesión"), and a player's page the recaps
the GM shared, each a region of play.screens drawn from the snapshot's sessions. A recap is a session's stretch of the
log (rules.stretches) as its reader may read it (play.log.recaps), in words, with each character's PG chart over the
session (play.screens.timeline) and, for the GM, the session's own log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Q
from django.utils.translation import gettext as _

from campaigns.access import Audience, roster_of
from campaigns.clock import format_clock, spoken_duration
from campaigns.models import Campaign, Event, GameSession
from characters.models import Character
from play.log.recaps import Seen, SeenCompanion, seen_by
from play.log.stretch_words import rolled_line, wound_lines
from play.screens.timeline import Timeline, timeline_between
from rules.events import EventKind
from rules.models import CheckKind, disease_name
from rules.stretches import CharacterStretch, stretch

if TYPE_CHECKING:
    from play.screens.drawing import Drawing


# --- the regions (play.screens) --------------------------------------------------------------------------------------


def game_session(drawing: Drawing) -> dict[str, Any]:
    """The GM's control: the session being played (to end it), or the next one's number (to start it), and the
    latest session's recap."""
    latest, playing = drawing.state.session_head
    return {"playing": playing, "latest": latest, "next_number": (latest or 0) + 1}


def shared_recaps(drawing: Drawing) -> dict[str, Any]:
    """The recaps a player may read: those the GM shared, newest first."""
    return {"recaps": [session for session in reversed(drawing.state.sessions) if session.shared]}


# --- the recap -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CharacterRecap:
    """One character's session in words: PG, wounds by kind, illnesses, checks, death, and its chart."""

    row: CharacterStretch
    wounds: list[str]
    rolls: list[str]
    pending: list[str]
    timeline: Timeline | None

    @property
    def died(self) -> str:
        at = self.row.died_at
        return "" if at is None else _("Murió (%(when)s).") % {"when": format_clock(at)}

    @property
    def caught(self) -> str:
        return ", ".join(disease_name(name) for name in self.row.caught)

    @property
    def cured(self) -> str:
        return ", ".join(disease_name(name) for name in self.row.cured)


@dataclass(frozen=True)
class Recap:
    session: GameSession
    seen: Seen
    characters: list[CharacterRecap]
    companions: list[SeenCompanion]
    clock_start: str
    clock_end: str
    time_passed: str


FIELDS = ("id", "action", "clock_before", "clock_after", "characters", "details", "before", "after", "undone")


def recap_of(campaign: Campaign, session: GameSession, audience: Audience) -> Recap:
    """A session's recap as `audience` may read it: what stands of the log between its start and its end (or now)."""
    roster = roster_of(campaign)
    names = {character.pk: character.name for character in roster.characters}
    found = stretch(campaign, session.started_id, session.ended_id, names)
    seen = seen_by(found, roster, audience)
    standing = session_entries(campaign, session) if seen.characters else []
    by_pk = {character.pk: character for character in roster.characters}
    characters = [
        CharacterRecap(
            row,
            wound_lines(row),
            [rolled_line(roll) for roll in row.rolls],
            [str(CheckKind(kind).label) for kind in row.pending],
            chart(by_pk.get(row.pk), row, standing, found.clock_start, found.clock_end),
        )
        for row in seen.characters
    ]
    return Recap(
        session,
        seen,
        characters,
        seen.companions,
        format_clock(found.clock_start),
        format_clock(found.clock_end),
        spoken_duration(found.seconds) if found.seconds else _("nada"),
    )


def session_entries(campaign: Campaign, session: GameSession) -> list[Event]:
    """The session's standing entries in id order, for the charts (as rules.stretches reads them): one query."""
    within = Q(pk__gt=session.started_id, undone=False) & ~Q(action=EventKind.UNDO)
    if session.ended_id is not None:
        within &= Q(pk__lte=session.ended_id)
    return list(Event.objects.filter(within, campaign=campaign).order_by("id").only(*FIELDS))


def chart(
    character: Character | None, row: CharacterStretch, entries: list[Event], clock_start: int, clock_end: int
) -> Timeline | None:
    """The character's PG over the session; none for one whose state it did not change, nor for a session in which
    no campaign time passed (a chart over no time would be one vertical stroke: the words say it all)."""
    if character is None or row.first is None or row.last is None or clock_end <= clock_start:
        return None
    start = clock_start if not row.added else min(clock_end, row.first.now)
    return timeline_between(character, entries, (start, row.first.pg), (clock_end, row.last.pg))
