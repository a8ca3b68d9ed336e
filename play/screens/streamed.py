"""What a live stream sends, drawn (sync: the ORM and templates; play.live.streams is the hub and the streams): one
change's message for every view watching (`draw_change`: the campaign's rows read once for all of them, each view drawn
once, as the request that made a change draws it: play.screens.answers), the drawing that request made of it
(`promised`), and a stream's first message (`draw_state`)."""

from __future__ import annotations

import asyncio

from django.db import connections
from django.urls import set_script_prefix
from django.utils import translation

from config.compiled import together
from play.live.messages import sse
from play.live.streams import Screens
from play.screens.answers import Drawn, Seen, draw, draw_views, promises, state_of
from play.screens.drawing import Screen, changes
from play.screens.regions import whole_drawing
from play.screens.snapshot import CAMPAIGN, EVENT, EVERYTHING, VERSION, touch_of
from play.screens.visits import shown, stream_ended
from rules import notify

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


# --- a change drawn by the request that made it (play.screens.answers.Promises) ---------------------------------------

PROMISE_SECONDS = 5.0  # a request's drawing not kept by then (it cannot be: a hung request) is made by the listener


async def promised(change: notify.Change) -> Drawn:
    """What the request that made this change drew of it for this process's views ({}: none, or not this change:
    play.screens.answers.Promises)."""
    promise = promises.of(change.campaign_id, change.tab)
    if promise is None or change.event is None:
        return {}
    done, _pending = await asyncio.wait({asyncio.wrap_future(promise.drawn)}, timeout=PROMISE_SECONDS)
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
