"""What one audience may read of a stretch of the log (rules.stretches): the one place that filters a recap.

The GM reads every character in full. A player reads their own characters in full; of a companion only what the
party view allows (campaigns.access.seen_as): EXACT its PG at the start and at the end, BAND the word for its
condition at each end and never a number, HIDDEN nothing at all — no row, no name, no id. A Seen holds only what its
reader may read, so that no page can show more by mistake (as play.party's Companion does for the player's page).
"""

from __future__ import annotations

from dataclasses import dataclass

from campaigns.access import SHOWN, Audience, Roster, seen_as
from campaigns.models import PartyView
from rules import engine, explained
from rules.stretches import CharacterStretch, Stretch


@dataclass(frozen=True)
class SeenCompanion:
    """A companion over the stretch as a player may read it: its PG at each end (`exact`), or one word at each end."""

    name: str
    exact: bool
    pg_start: int | None = None
    pg_end: int | None = None
    max_pg: int | None = None
    condition_start: str = ""  # the words' keys (rules.explained.CONDITIONS)
    condition_end: str = ""
    died: bool = False  # with the exact PG only (the word says "Muerto" itself)

    @property
    def word_start(self) -> str:
        return str(explained.CONDITIONS[self.condition_start]) if self.condition_start else ""

    @property
    def word_end(self) -> str:
        return str(explained.CONDITIONS[self.condition_end]) if self.condition_end else ""


@dataclass(frozen=True)
class Seen:
    """A stretch as one audience may read it: `characters` in full (every one for the GM, a player's own), and the
    companions the party view shows. `entries` is for the GM only (a player's count would tell of hidden ones)."""

    clock_start: int
    clock_end: int
    characters: list[CharacterStretch]
    companions: list[SeenCompanion]
    entries: int | None

    @property
    def seconds(self) -> int:
        return self.clock_end - self.clock_start

    @property
    def empty(self) -> bool:
        return not self.characters and not self.companions


def seen_by(stretch: Stretch, roster: Roster, audience: Audience) -> Seen:
    """The stretch as `audience` may read it (the roster gives who plays whom and each party view)."""
    if audience.is_gm:
        return Seen(stretch.clock_start, stretch.clock_end, list(stretch.characters), [], stretch.entries)
    own = {character.pk for character in roster.seen_by(audience)}
    shown = {character.pk: character for character in roster.companions_of(audience)}
    companions = [
        companion_of(row, seen_as(shown[row.pk], roster.campaign))
        for row in stretch.characters
        if row.pk in shown and row.last is not None and seen_as(shown[row.pk], roster.campaign) in SHOWN
    ]
    characters = [row for row in stretch.characters if row.pk in own]
    return Seen(stretch.clock_start, stretch.clock_end, characters, companions, None)


def companion_of(row: CharacterStretch, view: PartyView) -> SeenCompanion:
    """One companion's row cut to its party view: the numbers for EXACT, the words alone for BAND."""
    first, last = row.first, row.last
    assert first is not None and last is not None
    if view == PartyView.EXACT:
        return SeenCompanion(
            row.name,
            exact=True,
            pg_start=first.pg,
            pg_end=last.pg,
            max_pg=last.max_pg,
            died=row.died_at is not None,
        )
    return SeenCompanion(
        row.name, exact=False, condition_start=engine.condition_of(first), condition_end=engine.condition_of(last)
    )
