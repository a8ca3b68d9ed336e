"""What a live stream sends, drawn (sync: the ORM and templates; play.live is the hub and the streams): a view as one
browser sees it (`Seen`), one change's message for every view watching (`draw_change`: the campaign's rows read once
for all of them, each view drawn once), a stream's first message (`draw_state`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db import connections
from django.urls import set_script_prefix
from django.utils import translation

from campaigns import access
from config.compiled import together
from play.screens import Drawing, Screen, View, changes, whole_drawing
from play.snapshot import CAMPAIGN, EVENT, VERSION, Snapshot
from play.touch import EVERYTHING, Touch, state_for, touch_of
from rules import notify


@dataclass(frozen=True)
class Seen:
    """A view as one browser sees it: the site its links point to (invitations), the language it reads and the URL
    prefix the site is served under (every link drawn starts with it)."""

    view: View
    site: str
    language: str
    prefix: str = "/"


def sse(event: str, text: str) -> str:
    data = "\n".join(f"data: {line}" for line in text.splitlines() or [""])
    return f"event: {event}\n{data}\n\n"


# --- drawing (sync: the ORM and templates) ---------------------------------------------------------------------------


def draw_change(change: notify.Change, views: set[Seen]) -> dict[Seen, str | None]:
    """One change for each of these views (draw): its event and the campaign's rows are read once, whatever the
    number of views, which all draw from them."""
    try:
        campaigns, events = together((CAMPAIGN, {"pk": change.campaign_id}), (EVENT, {"pk": change.event or 0}))
        campaign, event = next(iter(campaigns), None), next(iter(events), None)
        touch, drawn = touch_of(event), dict[Seen, str | None]()
        # A player's page draws all its companions when one is touched: then every card is read at once.
        pages = any(seen.view.screen == Screen.PAGE for seen in views)
        gms = any(seen.view.audience.is_gm for seen in views)
        read = None if campaign is None else Snapshot(campaign) if pages else state_for(campaign, touch)
        state = None if read is None else read.knowing(event, newest=False).read_ahead(gm=gms, players=pages)
        return {seen: drawn_once(seen, touch, state, drawn) for seen in views}
    finally:
        connections["default"].close()  # give the pooled connection back: this runs on a worker thread


def draw(seen: Seen, touch: Touch, state: Snapshot | None) -> str | None:
    """The SSE message of one change (or, with EVERYTHING, the whole screen) for one view: the regions it touched, as
    a fresh load draws them; "" when it touched none; None when the audience may no longer watch the campaign (or it
    is gone: no `state`)."""
    set_script_prefix(seen.prefix)  # this worker thread's links, as the page's were drawn
    with translation.override(seen.language):
        if state is None or not state.roster.still_sees(seen.view.audience):
            return None
        html = changes(Drawing(state, seen.view, seen.site, None, touch))
        return sse("change", html) if html else ""


def drawn_once(seen: Seen, touch: Touch, state: Snapshot | None, drawn: dict[Seen, str | None]) -> str | None:
    """A view's message, drawn once for every GM (the owner and each co-GM see the same table and sheets): each GM's
    own right to watch is asked first, so a removed co-GM's streams end while the others' go on."""
    if state is None or not state.roster.still_sees(seen.view.audience):
        return None
    if seen.view.audience.is_gm:
        seen = replace(seen, view=replace(seen.view, audience=access.table_of(state.campaign)))
    if seen not in drawn:
        drawn[seen] = draw(seen, touch, state)
    return drawn[seen]


def draw_state(seen: Seen) -> str | None:
    """A view's whole screen (a stream's first message), or None when the audience may no longer watch. A screen
    kept whole (play.screens.whole_screen) is the one the page it follows drew, if nothing changed since: its
    stream's connect has just asked whether the audience may watch (play.live.admit)."""
    try:
        campaign = CAMPAIGN.first(pk=seen.view.audience.campaign_id)
        if campaign is None:
            return None
        set_script_prefix(seen.prefix)
        with translation.override(seen.language):
            drawing = whole_drawing(campaign, seen.view, seen.site)
            if drawing.regions is None:
                return draw(seen, EVERYTHING, drawing.state)
            return sse("change", changes(drawing))
    finally:
        connections["default"].close()


def campaign_version(campaign_id: int) -> int | None:
    try:
        versions = VERSION.rows(pk=campaign_id)
        return versions[0] if versions else None
    finally:
        connections["default"].close()
