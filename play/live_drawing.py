"""What a live stream sends, drawn (sync: the ORM and templates; play.live is the hub and the streams): a view as one
browser sees it (`Seen`), one change's message for every view watching (`draw_change`: the campaign's rows read once
for all of them, each view drawn once), a stream's first message (`draw_state`), and the drawings of a change promised
by the request that made it (`Promises`: that request draws it for its process's streams with its own answer)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property

from django.db import connections
from django.urls import get_script_prefix, set_script_prefix
from django.utils import translation

from campaigns import access
from campaigns.models import Campaign, Event
from config.compiled import together
from play.screens import Drawing, Screen, View, changes, whole_drawing
from play.snapshot import CAMPAIGN, EVENT, VERSION, Snapshot
from play.touch import EVERYTHING, Touch, state_for, touch_of
from rules import notify


class Ending(StrEnum):
    """Why a stream ends (its last message, play.live.ending); its page says it in words (screen_end.html)."""

    GONE = "gone"  # the campaign is gone, or this audience may no longer watch it
    SESSION = "session"  # the session behind the stream ended
    ROLE = "role"  # its person still sees the campaign, in the other role: a player made co-GM, a co-GM removed


def ending_of(roster: access.Roster, audience: access.Audience) -> Ending | None:
    """Whether an audience's screen ends, and why (None: it goes on). A screen is drawn for one role, the table for a
    GM, a page or a sheet for a player: once its person holds the other role, a fresh load draws another screen."""
    runs = roster.campaign.gm_id == audience.user_id or roster.is_co_gm(audience.user_id)
    if roster.still_sees(audience):
        return Ending.ROLE if runs and not audience.is_gm else None
    other = replace(audience, is_gm=not audience.is_gm)
    return Ending.ROLE if roster.still_sees(other) else Ending.GONE


@dataclass(frozen=True)
class Seen:
    """A view as one browser sees it: the site its links point to (invitations), the language it reads and the URL
    prefix the site is served under (every link drawn starts with it)."""

    view: View
    site: str
    language: str
    prefix: str = "/"

    def __hash__(self) -> int:
        return self.hashed

    @cached_property  # a change looks its views up by this for every stream: hashed once, not level by level
    def hashed(self) -> int:
        return hash((self.view, self.site, self.language, self.prefix))


def sse(event: str, text: str) -> str:
    data = "\ndata: ".join(text.splitlines() or [""])
    return f"event: {event}\ndata: {data}\n\n"


# --- drawing (sync: the ORM and templates) ---------------------------------------------------------------------------


def draw_change(change: notify.Change, views: set[Seen]) -> dict[Seen, str | None]:
    """One change for each of these views (draw): its event and the campaign's rows are read once, whatever the
    number of views, which all draw from them."""
    try:
        campaigns, events = together((CAMPAIGN, {"pk": change.campaign_id}), (EVENT, {"pk": change.event or 0}))
        campaign, event = next(iter(campaigns), None), next(iter(events), None)
        touch = touch_of(event)
        state = None if campaign is None else state_of(campaign, touch, views, event, newest=False)
        return draw_views(views, touch, state)
    finally:
        connections["default"].close()  # give the pooled connection back: this runs on a worker thread


def state_of(
    campaign: Campaign, touch: Touch, views: Iterable[Seen], event: Event | None, newest: bool, gm: bool = False
) -> Snapshot:
    """The rows these views (and a GM's screen, with `gm`) draw a change from, read in one round trip."""
    read, gm, pages = unread(campaign, touch, views, gm)
    return read.knowing(event, newest=newest).read_ahead(gm=gm, players=pages)


def unread(campaign: Campaign, touch: Touch, views: Iterable[Seen], gm: bool) -> tuple[Snapshot, bool, bool]:
    """The snapshot these views (and a GM's screen, with `gm`) draw a change from, its rows not yet read, and what
    it reads them for: a GM's screen, players' pages. A player's page draws all its companions when one is touched:
    then every card is read at once."""
    pages = any(seen.view.screen == Screen.PAGE for seen in views)
    gm = gm or any(seen.view.audience.is_gm for seen in views)
    return (Snapshot(campaign) if pages else state_for(campaign, touch)), gm, pages


def draw_views(views: Iterable[Seen], touch: Touch, state: Snapshot | None) -> dict[Seen, str | None]:
    """Each view's drawing of one change (`draw`), each drawn once for every GM. The thread's URL prefix is put back
    after: a request's thread draws for its process's streams too (Promises)."""
    prefix, drawn = get_script_prefix(), dict[Seen, str | None]()
    try:
        return {seen: drawn_once(seen, touch, state, drawn) for seen in views}
    finally:
        set_script_prefix(prefix)


def draw(seen: Seen, touch: Touch, state: Snapshot | None) -> str | None:
    """The regions of one view a change touched (with EVERYTHING, the whole screen), as a fresh load draws them; ""
    when it touched none; None when the audience may no longer watch the campaign (or it is gone: no `state`)."""
    set_script_prefix(seen.prefix)  # this thread's links, as the page's were drawn
    with translation.override(seen.language):
        if state is None or not state.roster.still_sees(seen.view.audience):
            return None
        return changes(Drawing(state, seen.view, seen.site, None, touch))


def drawn_once(seen: Seen, touch: Touch, state: Snapshot | None, drawn: dict[Seen, str | None]) -> str | None:
    """A view's drawing, made once for every GM (the owner and each co-GM see the same table and sheets): each GM's
    own right to watch is asked first, so a removed co-GM's streams end while the others' go on; and a screen drawn
    for the role its person no longer holds ends saying so (Ending.ROLE: a player's page once they are co-GM)."""
    if state is None:
        return None
    ended = ending_of(state.roster, seen.view.audience)
    if ended is not None:
        return None if ended == Ending.GONE else ended
    if seen.view.audience.is_gm:
        seen = replace(seen, view=replace(seen.view, audience=access.table_of(state.campaign)))
    if seen not in drawn:
        drawn[seen] = draw(seen, touch, state)
    return drawn[seen]


def message(html: str | None) -> bytes | str | None:
    """A change's drawing as its streams send it: an SSE message (encoded once for all of them), "" (nothing to send),
    an Ending other than GONE (the stream ends, saying why) or None (the stream ends: GONE)."""
    if isinstance(html, Ending):
        return None if html == Ending.GONE else html
    return sse("change", html).encode() if html else html


class Promises:
    """Changes drawn for this process's streams by the request that made them (play.answers.render_changes), which
    reads the campaign's rows for its own answer anyway: the request promises each event it logs before its
    transaction commits (rules.notify.on_logged), so the listener, which hears the change only after the commit,
    waits for that drawing instead of reading and drawing the change a second time. A promise not kept (the request
    drew nothing for streams) is released when the request ends, and the listener then draws the change itself."""

    KEPT_SECONDS = 30.0  # a promise is let go after this (its request and its listener have it: neither waits)

    def __init__(self) -> None:
        self.made: dict[tuple[int, int], tuple[float, Future[dict[Seen, str | None] | None]]] = {}  # oldest first
        self.lock = threading.Lock()  # for those who make promises; `of` only looks (a dict's get is atomic)

    def promise(self, campaign_id: int, event_id: int) -> Future[dict[Seen, str | None] | None]:
        """Made on the request's thread, in the action's transaction. The promises older than KEPT_SECONDS are let go
        first, from the oldest on: as many steps as promises let go, however many are kept (a busy process makes
        hundreds in that time)."""
        now = time.monotonic()
        future: Future[dict[Seen, str | None] | None] = Future()
        with self.lock:
            while self.made:
                oldest = next(iter(self.made))
                if now - self.made[oldest][0] <= self.KEPT_SECONDS:
                    break
                del self.made[oldest]
            self.made[(campaign_id, event_id)] = (now, future)
        return future

    def of(self, campaign_id: int, event_id: int | None) -> Future[dict[Seen, str | None] | None] | None:
        """The drawing promised for this change, if its request made one in this process (the listener may hear of
        the change before the request is back from its action: the promise stays until let go)."""
        made = self.made.get((campaign_id, event_id)) if event_id is not None else None
        return None if made is None else made[1]


promises = Promises()


def keep(future: Future[dict[Seen, str | None] | None], drawn: dict[Seen, str | None] | None) -> None:
    """Keep a promise (None: release it, the listener draws); a promise kept or released already stays as it is."""
    with suppress(InvalidStateError):
        future.set_result(drawn)


def draw_state(seen: Seen) -> str | None:
    """A view's whole screen (a stream's first message), or None when the audience may no longer watch. A screen
    kept whole (play.screens.whole_screen) is the one the page it follows drew, if nothing changed since: its
    stream's connect has just asked whether the audience may watch (play.connects.admit)."""
    try:
        campaign = CAMPAIGN.first(pk=seen.view.audience.campaign_id)
        if campaign is None:
            return None
        set_script_prefix(seen.prefix)
        with translation.override(seen.language):
            drawing = whole_drawing(campaign, seen.view, seen.site)
            if drawing.regions is None:
                html = draw(seen, EVERYTHING, drawing.state)
                return None if html is None else sse("change", html)
            return sse("change", changes(drawing))
    finally:
        connections["default"].close()


def campaign_version(campaign_id: int) -> int | None:
    try:
        versions = VERSION.rows(pk=campaign_id)
        return versions[0] if versions else None
    finally:
        connections["default"].close()
