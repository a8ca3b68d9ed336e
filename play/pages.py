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

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from play.context_processors import site
from play.forms.party import PartyViewForm
from play.kept import CSRF_MARK, contents, fill, row_state
from play.screens import HOLES, KEPT_WHOLE, Drawing, Screen, clock_form, sheet

VISIT_MARK = "\x00visit\x00"
PANEL = "components/since_visit.html"  # "Desde tu última visita" (play.visits)


def page_context(drawing: Drawing) -> dict[str, Any]:
    """A whole page: its regions come from the drawing; the rest (the clock form, the sheet's stats) from here."""
    context: dict[str, Any] = {"drawing": drawing, "campaign": drawing.campaign, "read_only": drawing.read_only}
    if drawing.view.screen == Screen.TABLE:
        context["clock_form"] = clock_form(drawing.campaign)
        context["party_view_form"] = PartyViewForm(campaign=drawing.campaign)
    if drawing.view.screen == Screen.SHEET:
        context.update(sheet(drawing))
    return context


def page(request: HttpRequest, template: str, drawing: Drawing, shown: dict[str, Any], visit: object) -> HttpResponse:
    """The page of a screen as a fresh load draws it, with `shown` (what the view passes: simple values) and the
    account's "Desde tu última visita" panel (`visit`)."""
    if drawing.view.screen not in KEPT_WHOLE:  # a sheet: drawn all of it
        return render(request, template, {**page_context(drawing), **shown, "visit": visit})
    regions = drawing.regions
    if regions is None:
        raise Http404  # the audience may no longer see the campaign: removed since its access was asked
    shown = {**shown, "live_updates": site(request)["live_updates"]}
    audience, campaign = drawing.audience, drawing.campaign
    where = (template, audience.campaign_id, audience.player_id, drawing.view.screen, drawing.site)
    key = (*where, row_state(campaign), row_state(campaign.gm), tuple(sorted(shown.items())))

    def draw() -> str:
        holed = replace(drawing, request=None, marked=True, holes=True)
        context = {**page_context(holed), **shown, "csrf_token": CSRF_MARK, "since_visit": VISIT_MARK}
        return render_to_string(f"{template}#screen", context)

    token, version = drawing.csrf_token, campaign.version
    content = HOLES.sub(lambda found: fill(regions[found[1]], token, version), contents.get(key, draw))
    panel = "" if visit is None else render_to_string(PANEL, {"visit": visit, "campaign": campaign}, request)
    content = fill(mark_safe(content), token, version).replace(VISIT_MARK, panel)  # noqa: S308 — templates' own
    return render(request, template, {"campaign": campaign, "content": mark_safe(content)})  # noqa: S308
