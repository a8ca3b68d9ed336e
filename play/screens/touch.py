"""What one change touched, worked out from its event (`touch_of`): which regions of each screen (play.screens) it
draws again, and the rows a change is drawn from (`state_for`)."""

from __future__ import annotations

from dataclasses import dataclass

from campaigns.models import Campaign, Event
from play.screens.snapshot import Snapshot
from rules import events


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


def state_for(campaign: Campaign, touch: Touch) -> Snapshot:
    """The rows a change is drawn from: the cards it touched are read first, the others only if a region asks (every
    card at once when the clock moved or the roster changed: they are all drawn then)."""
    every = touch.everything or touch.clock or touch.roster
    return Snapshot(campaign, touched=None if every else touch.characters)
