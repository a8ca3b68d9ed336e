"""Time between sessions on the screens: when the next tick falls and how much it carries (the GM's table and a
player's page: the region "running-time"), the GM's control of it (the region "running-time-control") and the next
tick's preview, exactly as a time skip's (play.screens.preview)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import formats
from django.utils.translation import gettext as _

from campaigns import running_time
from campaigns.clock import SPOKEN_UNITS, format_clock, format_duration
from campaigns.models import Campaign
from characters.models import Character
from play.forms.running_time import RunningTimeForm, control_of
from play.screens.drawing import part
from play.screens.preview import PreviewInWords, preview_in_words
from rules import queries

if TYPE_CHECKING:
    from play.screens.drawing import Drawing


@dataclass(frozen=True)
class NextTick:
    """What the screens say of the next tick: not running (`runs` False), waiting for a game session to end
    (`playing`: its number), or when it falls (in the campaign's time zone, and as ISO 8601) and what it carries."""

    runs: bool
    playing: int | None = None
    when: str = ""
    moment: str = ""
    seconds: int = 0
    schedule: str = ""

    @property
    def carries(self) -> str:
        """As people say it: "1 día", "4 días 13 h" (the preview says it to the second)."""
        return format_duration(self.seconds, units=SPOKEN_UNITS)


def next_tick_of(campaign: Campaign, playing: int | None) -> NextTick:
    if not campaign.runs or campaign.run_from is None or campaign.run_next is None:
        return NextTick(runs=False)
    schedule = running_time.said(campaign.run_rate, campaign.run_hour, campaign.run_zone)
    if playing is not None:
        return NextTick(runs=True, playing=playing, schedule=schedule)
    local = campaign.run_next.astimezone(running_time.zone_of(campaign.run_zone))
    return NextTick(
        runs=True,
        when=formats.date_format(local, _("l j \\d\\e F, H:i")),
        moment=campaign.run_next.isoformat(),
        seconds=running_time.campaign_seconds(campaign.run_rate, campaign.run_from, campaign.run_next),
        schedule=schedule,
    )


def next_tick(drawing: Drawing) -> dict[str, Any]:
    """The region "running-time": the next tick, for the GM (with its preview's button) and the players."""
    playing = drawing.state.session_head[1] if drawing.campaign.runs else None
    return {"next": next_tick_of(drawing.campaign, playing), "is_gm": drawing.audience.is_gm}


def next_tick_touched(drawing: Drawing) -> bool:
    """Its schedule set, a game session started or ended (both touch `sessions`), or a tick (the clock moved, while the
    time runs): nothing else changes when the next tick falls or what it carries."""
    touch = drawing.touch
    return touch.sessions or touch.clock and drawing.campaign.runs


def control_touched(drawing: Drawing) -> bool:
    return drawing.touch.sessions  # its schedule set (rules.events.RunningTimeSet), or a session's end moved it


def control(drawing: Drawing) -> dict[str, Any]:
    """The region "running-time-control": the GM's form as the campaign's row has it now, in plain values (kept)."""
    return {"control": control_of(drawing.campaign)}


def control_closed(request: HttpRequest, drawing: Drawing) -> list[str]:
    """After the control acted: the whole form drawn fresh, what was typed ("12 horas por día") said as the campaign
    keeps it ("12 h"), as a reload draws it — unless the GM typed on meanwhile (static/js/screen.js)."""
    context = {"campaign": drawing.campaign, "form": RunningTimeForm(campaign=drawing.campaign), "drawing": drawing}
    return [part("form-running-time", render_to_string("components/running_time_form.html", context, request), "outer")]


def tick_preview(campaign: Campaign, roster: list[Character]) -> tuple[queries.AdvancePreview, PreviewInWords] | None:
    """What the next tick will do, in the words of a time skip's preview: None when none is coming (the time does not
    run, or a game session is open)."""
    found = next_tick_of(campaign, None)
    if not found.runs or found.seconds == 0:
        return None
    resting = [character for character in roster if character.rests_between_sessions]
    preview = queries.preview_advance(campaign, found.seconds, resting=resting)
    values = {
        "when": found.when,
        "duration": format_duration(found.seconds),
        "start": format_clock(preview.clock),
        "end": format_clock(preview.clock + preview.seconds),
    }
    title = _("El próximo paso del tiempo, el %(when)s: %(duration)s (%(start)s → %(end)s)") % values
    return preview, replace(preview_in_words(preview), title=title)
