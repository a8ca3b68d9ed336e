"""What a live stream sends, drawn (sync: the ORM and templates; play.live.streams is the hub and the streams): one
change's message for every view watching (`draw_change`: the campaign's rows read once for all of them, each view drawn
once) and a stream's first message (`draw_state`)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cached_property
from typing import cast

from django.db import connections
from django.urls import get_script_prefix, set_script_prefix
from django.utils import translation

from campaigns import access
from campaigns.models import Campaign, Event
from config.compiled import together
from play.live import streams
from play.live.messages import Ending, sse
from play.live.streams import Screens
from play.screens.drawing import Drawing, Screen, View
from play.screens.regions import changes, whole_drawing
from play.screens.snapshot import CAMPAIGN, EVENT, EVERYTHING, VERSION, Snapshot, Touch, state_for, touch_of
from play.screens.visits import shown, stream_ended
from rules import notify


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

    @property
    def campaign_id(self) -> int:
        return self.view.audience.campaign_id

    @property
    def user_id(self) -> int:
        return self.view.audience.user_id


def ending_of(roster: access.Roster, audience: access.Audience) -> Ending | None:
    """Whether an audience's screen ends, and why (None: it goes on). A screen is drawn for one role, the table for a
    GM, a page or a sheet for a player: once its person holds the other role, a fresh load draws another screen."""
    runs = roster.campaign.gm_id == audience.user_id or roster.is_co_gm(audience.user_id)
    if roster.still_sees(audience):
        return Ending.ROLE if runs and not audience.is_gm else None
    other = replace(audience, is_gm=not audience.is_gm)
    return Ending.ROLE if roster.still_sees(other) else Ending.GONE


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
    after."""
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


def draw_state(seen: Seen) -> str | None:
    """A view's whole screen (a stream's first message), or None when the audience may no longer watch. A screen
    kept whole (play.screens.whole_screen) is the one the page it follows drew, if nothing changed since: its
    stream's connect has just asked whether the audience may watch (play.live.connects.admit)."""
    try:
        campaign = CAMPAIGN.first(pk=seen.view.audience.campaign_id)
        if campaign is None:
            return None
        set_script_prefix(seen.prefix)
        with translation.override(seen.language):
            drawing = whole_drawing(campaign, seen.view, seen.site)
            if drawing.kept_whole is None:
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


# --- a change drawn by the request that made it -----------------------------------------------------------------------

type Drawn = dict[Seen, str | None]
PROMISE_SECONDS = 5.0  # a request's drawing not kept by then (it cannot be: a hung request) is made by the listener


class Promises:
    """A change drawn for this process's streams by the request that made it (play.screens.answers.drawn_here), which
    reads the campaign's rows for its own answer anyway: the listener, which hears the change at the commit, waits
    for that drawing (`promised`) instead of reading and drawing the change a second time. Measured: with each
    drawing its own, click → last screen lost its goal (≤ 2× the stack floor) at 10 clients and at 100 campaigns × 6
    (2.2 and 2.3×, bench/RESULTS.md). A tab's request promises before it acts (play.screens.answers.answers_in_place),
    under the campaign and the tab its change's notification names; it keeps the promise with the event it logged
    and what it drew, or releases it: the listener then draws the change itself, as it does for a change drawn for
    another event (the same tab acting twice at once, or two requests that name no tab: a client without
    static/js/screen.js) and for one no request of this process made."""

    KEPT_SECONDS = 30.0  # a promise is let go after this (its request and its listener have it: neither waits)

    def __init__(self) -> None:
        self.made: dict[tuple[int, str], tuple[float, Future[tuple[int | None, Drawn]]]] = {}  # oldest first
        self.lock = threading.Lock()  # for those who make promises; `of` only looks (a dict's get is atomic)

    def promise(self, campaign_id: int, tab: str) -> Future[tuple[int | None, Drawn]]:
        """Made on the request's thread before it acts. The promises older than KEPT_SECONDS are let go first, from
        the oldest on: as many steps as promises let go, however many are kept."""
        now = time.monotonic()
        future: Future[tuple[int | None, Drawn]] = Future()
        with self.lock:
            while self.made:
                oldest = next(iter(self.made))
                if now - self.made[oldest][0] <= self.KEPT_SECONDS:
                    break
                del self.made[oldest]
            self.made.pop((campaign_id, tab), None)
            self.made[(campaign_id, tab)] = (now, future)
        return future

    def of(self, campaign_id: int, tab: str) -> Future[tuple[int | None, Drawn]] | None:
        """The drawing this tab's latest request in this process promised of a change of this campaign, if any ("":
        a request that names no tab, or a change that names none)."""
        made = self.made.get((campaign_id, tab))
        return None if made is None else made[1]


promises = Promises()


def drawn_for_tab(campaign: Campaign, touch: Touch, event: Event | None, seen: Seen, tab: str) -> tuple[Snapshot, str]:
    """The acting tab's screen (`seen`) as the change left it (what it touched, as its stream would draw it) and the
    rows it is drawn from; from the same one read of the campaign's rows (after the commit), the change drawn for
    every other view this process's streams show, as this tab promised (`Promises`): the listener then has nothing
    to read or draw when it hears of it."""
    future = promises.of(campaign.pk, tab)
    # The hub's views of this campaign are Seen's: the screens registered with it (play.apps) are these.
    views = cast(set[Seen], streams.hub.views_of(campaign.pk, tab)) if future is not None else set()
    state = state_of(campaign, touch, views, event, newest=True, gm=True)  # `event` was logged under the lock
    drawn = draw_views({*views, seen}, touch, state)
    if future is not None:
        keep(future, None if event is None else event.pk, {view: drawn[view] for view in views})
    return state, drawn[seen] or ""


def keep(future: Future[tuple[int | None, Drawn]], event: int | None, drawn: Drawn) -> None:
    """Keep a promise: the event logged and its drawings (no event: released, the listener draws). A promise kept or
    released already stays as it is."""
    with suppress(InvalidStateError):
        future.set_result((event, drawn))


async def promised(change: notify.Change) -> Drawn:
    """What the request that made this change drew of it for this process's views ({}: none, or not this change)."""
    future = promises.of(change.campaign_id, change.tab)
    if future is None or change.event is None:
        return {}
    done, _pending = await asyncio.wait({asyncio.wrap_future(future)}, timeout=PROMISE_SECONDS)
    if not done:
        return {}
    event, drawn = next(iter(done)).result()
    return drawn if event == change.event else {}


# --- what the streams showed ----------------------------------------------------------------------------------------


def showed(campaign_id: int, views: list[Seen], event: int | None) -> None:
    """These views' live streams showed a change: for the accounts whose page or table they are, it is no news at
    their next visit (play.screens.visits.shown; a sheet is no page)."""
    shown.saw(campaign_id, {seen.user_id for seen in views if seen.view.screen != Screen.SHEET}, event)


def ended(seen: Seen, last_event: int) -> None:
    stream_ended(seen.view, last_event)


SCREENS = Screens[Seen](
    changed=draw_change, promised=promised, whole=draw_state, version=campaign_version, showed=showed, ended=ended
)
