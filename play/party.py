"""What a player sees of their companions, the other characters of the campaign: for each one that the party view
shows (campaigns.access.companions_seen_by and seen_as say which and how), its name, its player's, and either its
PG or one word for its condition (rules.engine.condition_of). A Companion holds only what its viewer may read, so
that no page or stream can show more by mistake."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from campaigns.models import PartyView
from characters.models import Character
from rules import engine, explained

# The party views in a few words, for the GM's control, the cards and the log ("" is a character's: the campaign's).
VIEW_WORDS = {
    "": _("lo que diga la campaña"),
    PartyView.EXACT: _("sus PG exactos"),
    PartyView.BAND: _("una palabra"),
    PartyView.HIDDEN: _("nada"),
}


def view_words(view: str) -> str:
    return str(VIEW_WORDS.get(view, view))


@dataclass(frozen=True)
class Companion:
    name: str
    player: str  # its player's username; empty for an NPC
    exact: bool  # PG shown (pg, max_pg, dead); otherwise one word (condition)
    pg: int | None = None
    max_pg: int | None = None
    dead: bool = False
    band: str = ""  # the PG bar's colour (play.screens.cards.band_of): with the exact PG only, which tells it anyway
    condition: str = ""  # the word's key (rules.explained.CONDITIONS): also its class and its line on the rules page

    @property
    def word(self) -> str:
        return str(explained.CONDITIONS[self.condition]) if self.condition else ""

    @property
    def why(self) -> str:
        """Where the rules page says what the word means."""
        return explained.why(explained.condition_anchor(self.condition)) if self.condition else ""


def companion(character: Character, health: engine.Health, view: PartyView, band: str) -> Companion:
    """A companion as a player sees it: by its party view, PG exact (`band`: its bar's colour), or one word and
    nothing finer."""
    player = character.player.username if character.player is not None else ""
    if view == PartyView.EXACT:
        return Companion(
            character.name, player, exact=True, pg=health.pg, max_pg=health.max_pg, dead=health.dead, band=band
        )
    return Companion(character.name, player, exact=False, condition=engine.condition_of(health))
