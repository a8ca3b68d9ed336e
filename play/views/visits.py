"""The "Desde tu última visita" panel's "Entendido" (play.screens.visits): it goes, and stays gone until something
new."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from campaigns import access
from play.screens.answers import HtmxHttpRequest
from rules.actions import visits


@require_POST
def dismiss_visit(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """Moves nothing but the account's own mark: htmx removes the panel; a plain browser goes back to the page."""
    campaign = access.campaign_for_user(request.user, campaign_id)
    visits.dismissed(campaign, request.user)
    if request.htmx:
        answer = HttpResponse("")
        answer["X-Focus"] = "characters-title"  # the keyboard goes on to the characters, not back to the page's top
        return answer
    return redirect("campaign", campaign.pk)
