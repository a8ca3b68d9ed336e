"""Time between sessions on the GM's table: its control (on or off, rate, hour, time zone) and the next tick's preview.
The ticks themselves are the task queue's (rules.tasks)."""

from __future__ import annotations

from functools import partial

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django_htmx.http import reswap, retarget

from campaigns import access
from play.forms.base import IN_PLAY
from play.forms.fields import posted
from play.forms.running_time import RunningTimeForm
from play.screens.answers import PARTY_VIEW, HtmxHttpRequest, acting, answers_in_place, render_changes
from play.screens.running_time import control_closed, tick_preview


@answers_in_place
@require_http_methods(["GET", "POST"])
def running_time(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """Whether the campaign's time runs between sessions, how fast and at what hour: the GM's control."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = RunningTimeForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(acting(request))) is not None:
        if not request.htmx:
            return redirect("campaign", campaign.pk)
        closing = partial(control_closed, request)
        return render_changes(request, campaign, outcome, PARTY_VIEW, closing=closing, focus="running-rate")
    template = "components/running_time_form.html"
    context = {
        "campaign": campaign,
        "form": form,
        "control": form.control(),
        "title": _("Tiempo entre sesiones"),
        "template": template,
    }
    if not request.htmx:
        return render(request, "action_page.html", context, status=400 if form.errors else 200)
    response = render(request, "components/running_time_control.html", context, status=422 if form.errors else 200)
    return reswap(retarget(response, "#running-time-control"), "innerHTML")  # inside the form, which stays put


@require_safe
def preview(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """What the next tick will do, as a time skip's preview shows it (under the clock; without JavaScript, a page)."""
    campaign, roster = access.table_for_gm(request.user, campaign_id, IN_PLAY)
    found = tick_preview(campaign, roster)
    title = _("Próximo paso del tiempo")
    context = {"campaign": campaign, "tick": True, "title": title}
    if found is None:
        context["note"] = _("No hay ningún paso del tiempo en camino: el tiempo no corre o se está jugando una sesión.")
    else:
        context["preview"], context["in_words"] = found
    if not request.htmx:
        context.update(template="components/advance_preview.html", page=True)
        return render(request, "action_page.html", context)
    response = render(request, "components/advance_preview.html", context)
    response["X-Focus"] = "advance-preview"
    return reswap(retarget(response, "#advance-preview"), "innerHTML")
