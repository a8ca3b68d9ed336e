"""\"Desde tu última visita\": what happened to an account's characters since it last saw the campaign, short.

Opening the player's page or the GM's table draws the panel (`since_last_visit`) and marks now as seen
(rules.actions.visits.opened). The panel tells the stretch of the log from where the account had last seen up to now
(rules.stretches.stretch), but for what the account did itself (from any page or device: never news to it), as that
account may read it (play.log.recaps.seen_by, the one place that filters by party view), in words
(play.log.stretch_words), capped: a few lines per character and "y N cosas más" with a link to where the rest is. It
stays on reloads until dismissed; nothing at all when nothing stands in it for this reader.

It is drawn with the page, not streamed: it is not a region (play.screens), no change redraws it under the reader,
and a stream's first message does not carry it. What the page then shows live is not news at the next visit: when the
page's live stream ends, its account's mark moves to the latest change that stream showed (play.live.streams keeps it in
memory, per stream; one write when the stream ends, never one per change; none for a stream that showed no change).
A page opened before that write (a reload: the new page's request and the old stream's end arrive together, in
either order) counts what the account's live screens in this process showed as seen already (`shown`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from cachetools import LRUCache
from django.contrib.auth.models import AnonymousUser, User
from django.db import DatabaseError, connections
from django.urls import reverse

from campaigns.clock import spoken_duration
from play.log.recaps import seen_by
from play.log.stretch_words import Told, character_lines, companion_lines
from play.screens.drawing import Drawing, Screen, View
from rules.actions import visits
from rules.stretches import stretch

logger = logging.getLogger(__name__)

LINES = 5  # per character: the most telling ones; the rest are "y N cosas más"
CHARACTERS = 8  # per panel: the rest are "y N personajes más"


@dataclass(frozen=True)
class Panel:
    """The panel as one account reads it: the campaign time passed in words, each character told, in order (own
    first, then companions), and how many more characters there were."""

    since: int
    passed: str
    told: list[Told]
    more: int = 0


class Shown:
    """The latest change each account's live screens of a campaign (the player's page, the GM's table) have shown, in
    this process, by campaign and account: play.live.streams tells it as it hears each change, and a page opened
    meanwhile counts it as seen (its streams mark it only when they end). Kept for the SIZE accounts and campaigns heard
    or asked of most recently; shared by the event loop and the requests' threads."""

    SIZE = 4096

    def __init__(self, size: int = SIZE) -> None:
        self.latest: LRUCache[tuple[int, int], int] = LRUCache(size)
        self.lock = threading.Lock()

    def saw(self, campaign_id: int, user_ids: set[int], event: int | None) -> None:
        if event is None:  # a change no event names: nothing to mark
            return
        with self.lock:
            for user_id in user_ids:
                key = (campaign_id, user_id)
                self.latest[key] = max(self.latest.get(key, 0), event)

    def upto(self, campaign_id: int, user_id: int) -> int:
        with self.lock:
            return self.latest.get((campaign_id, user_id), 0)


shown = Shown()


def since_last_visit(drawing: Drawing, by: User | AnonymousUser) -> Panel | None:
    """Marks the page as seen by `by` and gives its panel, if anything stands since its last visit (two queries: the
    mark, then the stretch; one more when checks were called in it)."""
    if drawing.view.screen not in (Screen.TABLE, Screen.PAGE):
        return None
    seen_live = shown.upto(drawing.campaign.pk, by.pk) if by is not None and by.is_authenticated else 0
    since = visits.opened(drawing.campaign, by, seen_live)
    if since is None:
        return None
    names = {character.pk: character.name for character in drawing.state.roster.characters}
    # What the account did itself, from any page or device, is no news to it: only the others' entries are told.
    mine = by.pk if by is not None else None
    seen = seen_by(stretch(drawing.campaign, since, None, names, not_by=mine), drawing.state.roster, drawing.audience)
    told = [
        capped(row.pk, row.name, character_lines(row), sheet_url(drawing, row.pk))
        for row in seen.characters
        if character_lines(row)
    ]
    told += [
        Told(None, companion.name, lines, own=False)
        for companion in seen.companions
        if (lines := companion_lines(companion))
    ]
    if not told:
        visits.told_nothing(drawing.campaign, by, since)
        return None
    passed = spoken_duration(seen.seconds) if seen.seconds > 0 else ""
    return Panel(since, passed, told[:CHARACTERS], max(0, len(told) - CHARACTERS))


def capped(pk: int, name: str, lines: list[str], url: str) -> Told:
    return Told(pk, name, lines[:LINES], max(0, len(lines) - LINES), url)


def sheet_url(drawing: Drawing, pk: int) -> str:
    """Where the rest of a character's stretch is read: its sheet and its log (a character removed has none)."""
    if not any(character.pk == pk for character in drawing.seen):
        return ""
    return reverse("character", args=[drawing.campaign.pk, pk]) + "#sheet-log"


def stream_ended(view: View, last_event: int) -> None:
    """A live stream of the player's page or the GM's table ended (play.live.streams): its account saw everything logged
    up to `last_event`, the latest change it showed. Runs on a worker thread; never raises (the database may be down:
    the mark then stays, and the next visit tells a little more than it had to)."""
    if view.screen not in (Screen.TABLE, Screen.PAGE):
        return
    try:
        visits.watched(view.audience.campaign_id, view.audience.user_id, last_event)
    except DatabaseError:
        logger.warning(
            "could not mark campaign %s as seen by user %s", view.audience.campaign_id, view.audience.user_id
        )
    finally:
        connections["default"].close()  # give the pooled connection back
