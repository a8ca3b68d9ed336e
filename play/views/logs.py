"""The older pages of a log, on demand ("Sucesos anteriores"): the GM's log (of one game session's, when asked) and a
sheet's, for whoever may see the sheet."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_GET

from campaigns import access
from play.forms.fields import digits
from play.log.pages import LOG_LENGTH, SHEET_LOG_LENGTH, sheet_log, table_log
from play.screens.answers import HtmxHttpRequest
from play.screens.log import drawn_page, log_page


def page_before(request: HtmxHttpRequest) -> int | None:
    """The event a log page ends before: None for the latest page; 404 for what is not an event id."""
    if "before" not in request.GET:
        return None
    before = digits(request.GET["before"])
    if before is None:
        raise Http404
    return before


@require_GET
def campaign_log(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """A page of the GM's log: older entries on demand (the page before event `before`), of one game session's
    (`session`, its number) when asked."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    before = page_before(request)
    url = reverse("campaign_log", args=[campaign.pk])
    session = None
    if "session" in request.GET:
        number = digits(request.GET["session"])
        session = get_object_or_404(campaign.game_sessions, number=number if number is not None else 0)
        url += f"?session={session.number}"
    page = log_page(table_log(campaign, before=before, session=session), LOG_LENGTH, url)
    return HttpResponse(drawn_page(page))


@require_GET
def character_log(request: HtmxHttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """A page of a sheet's log, for whoever may see the sheet."""
    character = access.character_for_user(request.user, campaign_id, character_id)
    before = page_before(request)
    url = reverse("character_log", args=[campaign_id, character.pk])
    unseen = access.roster_of(character.campaign).kept_from(access.audience_of(request.user, character.campaign))
    page = log_page(sheet_log(character.campaign, character, before, unseen), SHEET_LOG_LENGTH, url)
    return HttpResponse(drawn_page(page))
