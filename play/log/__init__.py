"""The campaign log in words: one entry per event, each roll with its parts. One small function per event kind, in
the module of its kind (each registers itself with play.log.story's `words`)."""

from play.log import co_gms, game_sessions, health, npcs, table
from play.log.health import outcome_lines
from play.log.story import CHECK_NAMES, WORDING, Entry, entry_for, penalty_terms, who_acted, who_of
from rules import events

assert set(WORDING) == set(events.PAYLOADS.values()), "every event kind has its words"

__all__ = [
    "CHECK_NAMES",
    "WORDING",
    "Entry",
    "co_gms",
    "entry_for",
    "health",
    "npcs",
    "outcome_lines",
    "penalty_terms",
    "game_sessions",
    "table",
    "who_acted",
    "who_of",
]
