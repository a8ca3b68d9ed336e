"""Called checks at the table: a player answers their character's check from the phone (their page or the sheet),
or the GM answers or takes back a call from the table. Each answer is one action of rules.actions, answered in place
like any other (play.screens.answers)."""

from __future__ import annotations

from django.contrib import messages
from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django_htmx.http import reswap, retarget

from campaigns import access
from campaigns.models import Campaign
from play.forms.checks import CheckAnswerForm, CheckCancelForm
from play.log import outcome_lines
from play.screens.answers import HtmxHttpRequest, acting, answers_in_place, in_place, render_changes, touched_by
from play.screens.checks import CheckLine, with_penalties
from play.screens.drawing import Drawing, part, view_of
from play.screens.regions import site_of
from play.screens.snapshot import Snapshot, state_for
from rules import actions
from rules.models import CalledCheck


@answers_in_place
@require_POST
def answer_check(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """A called check's die, from the player's phone (their page or their sheet) or from the GM's table; or the
    server's roll. Only the checks of characters this user sees, and only while they wait."""
    campaign = access.campaign_for_user(request.user, campaign_id)
    audience = access.audience_of(request.user, campaign)
    seen = {character.pk for character in access.roster_of(campaign).seen_by(audience)}
    checks = CalledCheck.objects.filter(campaign=campaign).select_related("character", "disease")
    form = CheckAnswerForm(request.POST, checks=checks, answerable=seen)
    where = request.POST.get("where", "page")
    where = where if where in ("page", "sheet", "table") and (where != "table" or audience.is_gm) else "page"
    if form.is_valid() and (outcome := form.apply(acting(request))) is not None:
        return checked(request, campaign, audience, outcome, where)
    errors = [str(message) for messages in form.errors.values() for message in messages]
    if not request.htmx:
        return checks_with_reasons_page(request, campaign, audience, form, errors)
    check = form.cleaned_data.get("check") if "check" not in form.errors else None
    if check is None:
        # Answered or cancelled meanwhile (another tab, the GM): the list as it is now, with the reason.
        return owed_checks(request, campaign, audience, where, " ".join(errors), status=422)
    # Drawn again as it was drawn the first time: the penalties the roll will take are said.
    [line] = with_penalties([CheckLine(check)], Snapshot(campaign).health)
    context = {"campaign": campaign, "line": line, "where": where, "errors": errors}
    context["value"] = request.POST.get("die", "")[:20]
    response = render(request, "components/check_answer.html", context, status=422)
    return reswap(retarget(response, f"#check-{check.pk}"), "outerHTML")


def checked(
    request: HtmxHttpRequest, campaign: Campaign, audience: access.Audience, outcome: actions.Outcome, where: str
) -> HttpResponse:
    """The answer to a die: the GM's table as after any action; a player's list of checks, or their sheet, with the
    roll in words."""
    names = {character.pk: character.name for character in outcome.characters}
    lines = [] if outcome.event is None else outcome_lines(outcome.event, names, outcome.characters[0].pk, who=False)
    said = ". ".join(str(line) for line in lines)
    if not request.htmx:
        messages.success(request, said)
        if where == "sheet" and outcome.characters:
            return redirect("character", campaign.pk, outcome.characters[0].pk)
        return redirect("campaign", campaign.pk)
    if where == "table":
        return render_changes(request, campaign, outcome, "checks")
    campaign.refresh_from_db()
    sheet = outcome.characters[0].pk if where == "sheet" and outcome.characters else None
    view = view_of(audience, sheet)
    touch = touched_by(outcome)
    drawing = Drawing(state_for(campaign, touch), view, site_of(request), request, touch)
    # The keyboard goes to the next check still owed on this screen, else to what the die did.
    owed = drawing.state.pending_lines([sheet] if sheet is not None else [c.pk for c in drawing.seen])
    focus = f"die-{where}-{owed[0].pk}" if owed else "check-said"
    return in_place(drawing, [part("check-said", said)], focus)


def owed_checks(
    request: HtmxHttpRequest, campaign: Campaign, audience: access.Audience, where: str, said: str, status: int = 200
) -> HttpResponse:
    """The checks still owed where the answer came from: the player's page list, or the GM's calls."""
    state = Snapshot(campaign)
    if where == "table":
        context = {"campaign": campaign, "calls": state.calls, "said": said}
        response = render(request, "components/called_checks.html", context, status=status)
        return reswap(retarget(response, "#calls"), "innerHTML")
    owed = state.pending_lines(character.pk for character in state.roster.seen_by(audience))
    context = {"campaign": campaign, "my_checks": owed, "where": "page", "said": said}
    if where == "sheet":
        context["where"] = "sheet"
        response = render(request, "components/my_checks.html", context, status=status)
        return reswap(retarget(response, "closest .my-checks"), "innerHTML")
    response = render(request, "components/my_checks.html", context, status=status)
    return reswap(retarget(response, "#my-checks"), "innerHTML")


def checks_with_reasons_page(
    request: HtmxHttpRequest, campaign: Campaign, audience: access.Audience, form: Form, errors: list[str]
) -> HttpResponse:
    """Without htmx, a refused die or cancellation: its reasons and the checks still waiting; nothing done (400)."""
    context = {"campaign": campaign, "form": form, "title": _("Tiradas pedidas"), "said": " ".join(errors)}
    state = Snapshot(campaign)
    if audience.is_gm:
        context.update(template="components/called_checks.html", calls=state.calls)
    else:
        owed = state.pending_lines(character.pk for character in state.roster.seen_by(audience))
        context.update(template="components/my_checks.html", my_checks=owed, where="page")
    return render(request, "action_page.html", context, status=400)


@answers_in_place
@require_POST
def cancel_check(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """The GM takes back called checks still waiting."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = CheckCancelForm(request.POST, campaign=campaign)
    if form.is_valid() and (outcome := form.apply(acting(request))) is not None:
        if not request.htmx:
            return redirect("campaign", campaign.pk)
        return render_changes(request, campaign, outcome, "checks")
    errors = [str(message) for messages in form.errors.values() for message in messages]
    said = " ".join(errors)
    if not request.htmx:
        return checks_with_reasons_page(request, campaign, access.table_of(campaign), form, errors)
    return owed_checks(request, campaign, access.table_of(campaign), "table", said, status=422)
