"""Game sessions: the GM's control on the table (start, end), the campaign's sessions, each session's recap (the GM's,
and a player's once the GM shares it) and sharing it."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from campaigns import access
from play.forms.fields import digits
from play.log.pages import LOG_LENGTH, table_log
from play.screens.answers import HtmxHttpRequest, acting, answers_in_place, render_changes
from play.screens.game_sessions import recap_of
from play.screens.log import drawn_page, log_page
from play.screens.snapshot import Snapshot
from rules import actions


@answers_in_place
@require_POST
def game_session(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """Start the next session or end the one being played (`do`), as the button named it (`number`)."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    sent = request.POST.get("number", "")
    number = digits(sent)
    what = request.POST.get("do", "")
    if what not in ("start", "end"):  # no button of the table sends that: a forged form
        return HttpResponseBadRequest(_("Elige empezar o terminar la sesión."))
    try:
        if sent and number is None:  # "٣", "-1", 100,000 digits: no session the button named; nothing is done
            raise actions.ActionError(_("Ese número de sesión no vale: no se ha hecho nada. Recarga la página."))
        if what == "start":
            outcome = actions.start_session(campaign, by=acting(request), number=number)
            said = _("Empieza la sesión %(number)s.")
        else:
            outcome = actions.end_session(campaign, by=acting(request), number=number)
            said = _("Termina la sesión %(number)s.")
        said %= {"number": outcome.event.details["number"] if outcome.event is not None else ""}
    except actions.ActionError as error:
        outcome, said = actions.Outcome(None, []), error.message
        if not request.htmx:
            messages.error(request, said)
    else:
        if not request.htmx:
            messages.success(request, said)
    if not request.htmx:
        return redirect("campaign", campaign.pk)
    return render_changes(request, campaign, outcome, "", said, "session-submit", said)


@require_GET
def sessions(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's sessions, each with its recap and its stretch of the log: the log read by session (the GM's)."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    listed = list(reversed(Snapshot(campaign).sessions))
    return render(request, "sessions.html", {"campaign": campaign, "sessions": listed})


@require_GET
def recap(request: HtmxHttpRequest, campaign_id: int, number: int) -> HttpResponse:
    """A session's recap, as its reader may read it; for the GM with the session's log and the share control."""
    session = access.session_for_user(request.user, campaign_id, number)
    campaign = session.campaign
    audience = access.audience_of(request.user, campaign)
    context = {
        "campaign": campaign,
        "session": session,
        "recap": recap_of(campaign, session, audience),
        "is_gm": audience.is_gm,
    }
    if audience.is_gm:
        url = f"{reverse('campaign_log', args=[campaign.pk])}?session={session.number}"
        context["log_page"] = drawn_page(log_page(table_log(campaign, session=session), LOG_LENGTH, url), whole=True)
    return render(request, "recap.html", context)


@require_POST
def recap_share(request: HtmxHttpRequest, campaign_id: int, number: int) -> HttpResponse:
    """Show a session's recap to the players, or no longer (`shared`: "1" or "0")."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    if request.POST.get("shared") not in ("1", "0"):  # the page's button sends one or the other: a forged form
        return HttpResponseBadRequest(_("Elige compartir el resumen o dejar de compartirlo."))
    shared = request.POST["shared"] == "1"
    try:
        actions.share_recap(campaign, number, by=request.user, shared=shared)
    except actions.ActionError as error:
        messages.error(request, error.message)
    else:
        said = _("Los jugadores ya pueden leer este resumen.") if shared else _("Los jugadores ya no ven este resumen.")
        messages.success(request, said)
    if not campaign.game_sessions.filter(number=number).exists():
        return redirect("sessions", campaign.pk)
    return redirect("session_recap", campaign.pk, number)
