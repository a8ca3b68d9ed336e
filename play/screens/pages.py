"""A screen as a page (the GM's table, a player's page, a character's sheet): its regions (play.screens) in the page's
own template, with what else a fresh load shows — the clock's and the party view's forms, the links, "Desde tu última
visita".

A page of a screen kept whole (play.screens.whole_screen) keeps its content too (the template's partial "screen"):
drawn once with a hole where each region goes and marks where the CSRF token and "Desde tu última visita" go, kept
under everything it shows besides its regions — the page, the view, the site, the campaign's row and its GM's, what
the view passes (`shown`) — and made whole at each load with the regions as kept, the page's token and the account's
panel. A reload draws nothing again but that panel.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from campaigns.models import Campaign
from play.context_processors import site
from play.forms.party import PartyViewForm
from play.forms.running_time import RunningTimeForm
from play.screens.drawing import HOLES, Drawing, Screen, fill
from play.screens.kept import CSRF_MARK, contents, frames, row_state
from play.screens.regions import KEPT_WHOLE, clock_form, sheet

VISIT_MARK = "\x00visit\x00"
CONTENT_MARK = "\x00content\x00"
PANEL = "components/since_visit.html"  # "Desde tu última visita" (play.screens.visits)


def page_context(drawing: Drawing) -> dict[str, Any]:
    """A whole page: its regions come from the drawing; the rest (the clock form, the sheet's stats) from here."""
    context: dict[str, Any] = {"drawing": drawing, "campaign": drawing.campaign, "read_only": drawing.read_only}
    if drawing.view.screen == Screen.TABLE:
        context["clock_form"] = clock_form(drawing.campaign)
        context["party_view_form"] = PartyViewForm(campaign=drawing.campaign)
        context["running_time_form"] = RunningTimeForm(campaign=drawing.campaign)
    if drawing.view.screen == Screen.SHEET:
        context.update(sheet(drawing))
    return context


def page(request: HttpRequest, template: str, drawing: Drawing, shown: dict[str, Any], visit: object) -> HttpResponse:
    """The page of a screen as a fresh load draws it, with `shown` (what the view passes: simple values) and the
    account's "Desde tu última visita" panel (`visit`)."""
    if drawing.view.screen not in KEPT_WHOLE:  # a sheet: drawn all of it
        return render(request, template, {**page_context(drawing), **shown, "visit": visit})
    shown = {**shown, "live_updates": site(request)["live_updates"]}
    campaign = drawing.campaign
    panel = "" if visit is None else render_to_string(PANEL, {"visit": visit, "campaign": campaign}, request)
    regions = drawing.kept_whole
    if regions is None:  # a member the live screens no longer serve (no character left here): drawn, not kept
        context = {**page_context(drawing), **shown, "since_visit": panel}
        content: str = render_to_string(f"{template}#screen", context, request)
    else:  # the content kept, made whole: the regions kept, this page's token, this account's panel
        token, version = drawing.csrf_token, campaign.version
        content = HOLES.sub(
            lambda found: fill(regions[found[1]], token, version), kept_content(drawing, template, shown)
        )
        content = fill(mark_safe(content), token, version).replace(VISIT_MARK, panel)  # noqa: S308 — templates' own
    return framed(request, template, campaign, content, drawing.csrf_token)


def framed(request: HttpRequest, template: str, campaign: Campaign, content: str, token: str | None) -> HttpResponse:
    """The page around a screen's content (the template's blocks and base.html: the account, the language form),
    kept as the content is: drawn once with marks where the CSRF token and the content go, under all it shows — the
    template, the campaign's name, the account, the address asked (the language by `frames` itself). Drawn afresh
    while messages wait, which show once."""
    if len(get_messages(request)):
        return render(request, template, {"campaign": campaign, "content": mark_safe(content)})  # noqa: S308 — ours
    user = request.user
    key = (template, campaign.pk, campaign.name, user.pk, user.get_username(), request.get_full_path())

    def draw() -> SafeString:
        context = {"campaign": campaign, "content": CONTENT_MARK, "csrf_token": CSRF_MARK}
        return mark_safe(render_to_string(template, context, request))  # noqa: S308 — a template's own output

    return HttpResponse(fill(frames.get(key, draw), token, campaign.version).replace(CONTENT_MARK, content))


def kept_content(drawing: Drawing, template: str, shown: dict[str, Any]) -> SafeString:
    """A page's content with a hole where each region goes and the marks of play.screens.kept, kept under everything
    else it shows."""
    audience, campaign = drawing.audience, drawing.campaign
    where = (template, audience.campaign_id, audience.player_id, drawing.view.screen, drawing.site)
    key = (*where, row_state(campaign), row_state(campaign.gm), tuple(sorted(shown.items())))

    def draw() -> SafeString:
        holed = replace(drawing, request=None, marked=True, holes=True)
        context = {**page_context(holed), **shown, "csrf_token": CSRF_MARK, "since_visit": VISIT_MARK}
        return mark_safe(render_to_string(f"{template}#screen", context))  # noqa: S308 — a template's own output

    return contents.get(key, draw)
