"""The table as people see it: the GM's table, a player's page, a character's sheet, and one view per rules action.

Views are thin: a form checks the input and one action of rules.actions runs. An action answers htmx with the table
(or the form again, with its messages, on a refusal) and a plain browser with a redirect (or a page with the form).
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST, require_safe
from django_htmx.http import reswap, retarget, trigger_client_event
from django_htmx.middleware import HtmxDetails

from campaigns import access
from campaigns.models import Campaign
from characters.models import Character
from play import forms
from play.cards import cards_for
from play.checks import CheckLine, open_calls
from play.log import LOG_LENGTH, SHEET_LOG_LENGTH, outcome_lines, sheet_log, table_log
from play.preview import foreseen
from play.screens import changes_context, log_page, my_checks, player_context, sheet_context, table_context
from rules import actions
from rules.forms import digits, posted
from rules.models import CalledCheck

type Initial = dict[str, str | list[str]]

PARTY_VIEW = "partyview"  # the GM's party view control, as the slot an answer closes and focuses


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


# --- pages -----------------------------------------------------------------------------------------------------------


@require_safe
def campaign(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's table, or a player's page with their own characters."""
    campaign = access.campaign_for_user(request.user, campaign_id)
    audience = access.audience_of(request.user, campaign)
    if not audience.is_gm:
        return render(request, "campaign_player.html", player_context(campaign, audience))
    return render(request, "campaign.html", table_context(campaign))


@require_safe
def character(request: HtmxHttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """A character's sheet, for its player and for the GM."""
    found = access.character_for_user(request.user, campaign_id, character_id)
    [card] = cards_for(found.campaign, [found])
    audience = access.audience_of(request.user, found.campaign)
    context = sheet_context(found.campaign, card, access.kept_from(audience))
    context["is_gm"] = audience.is_gm
    return render(request, "character_sheet.html", context)


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
    """A page of the GM's log: older entries on demand (the page before event `before`)."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    before = page_before(request)
    url = reverse("campaign_log", args=[campaign.pk])
    page = log_page(table_log(campaign, before=before), LOG_LENGTH, url)
    return render(request, "components/log.html", {**page, "older": True})


@require_GET
def character_log(request: HtmxHttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """A page of a sheet's log, for whoever may see the sheet."""
    character = access.character_for_user(request.user, campaign_id, character_id)
    before = page_before(request)
    url = reverse("character_log", args=[campaign_id, character.pk])
    unseen = access.kept_from(access.audience_of(request.user, character.campaign))
    page = log_page(sheet_log(character.campaign, character, before, unseen), SHEET_LOG_LENGTH, url)
    return render(request, "components/log.html", {**page, "older": True})


# --- the answer every action view gives ------------------------------------------------------------------------------


def slot_of(request: HtmxHttpRequest) -> str:
    """Where on the page the form sits: a card's slot (its character id), "party" or "advance"."""
    slot = (
        request.POST.get("slot")
        or request.GET.get("slot")
        or request.POST.get("character")
        or request.GET.get("character")
        or "party"
    )
    return slot if slot.isascii() and slot.isalnum() and len(slot) <= 20 else "party"


def chosen_character(request: HtmxHttpRequest, campaign: Campaign) -> Character | None:
    """The card the form was opened from, if any: one of this campaign's characters, or 404."""
    character_id = request.POST.get("character") or request.GET.get("character")
    if character_id is None:
        return None
    pk = digits(character_id)
    if pk is None:
        raise Http404
    return get_object_or_404(campaign.characters, pk=pk)


def patient_of(request: HtmxHttpRequest, campaign: Campaign) -> Character:
    patient = chosen_character(request, campaign)
    if patient is None:
        raise Http404
    return patient


def initial_of(request: HtmxHttpRequest, patient: Character | None) -> Initial:
    """A form's first values: the card's character ticked; after a change of the damage kind, what was typed."""
    initial: Initial = {"characters": [str(patient.pk)]} if patient is not None else {}
    if request.method == "GET" and "kind" in request.GET:
        # The kind select reloads the form with that kind's fields, keeping what was typed, as initial values.
        for name in request.GET:
            if name not in ("csrfmiddlewaretoken", "slot", "character"):
                initial[name] = request.GET.getlist(name) if name == "characters" else request.GET.get(name, "")
    return initial


def form_kwargs(request: HtmxHttpRequest, campaign: Campaign) -> dict[str, object]:
    return {
        "data": request.POST if request.method == "POST" else None,
        "campaign": campaign,
        "auto_id": f"{slot_of(request)}-%s",
    }


def answer(
    request: HtmxHttpRequest,
    campaign: Campaign,
    form: forms.CampaignForm,
    title: str,
    url_name: str,
    patient: Character | None = None,
    template: str = "components/action_form.html",
    on_refusal: Callable[[actions.ActionError], HttpResponse | None] | None = None,
) -> HttpResponse:
    """GET: the form (a fragment for htmx, a page without). POST: run the action and answer with the table, or with
    the form and its messages when something is wrong or its choices changed since it was drawn."""
    slot = slot_of(request)
    context = {
        "campaign": campaign,
        "form": form,
        "patient": patient,
        "slot": slot,
        "title": title,
        "action_url": reverse(url_name, args=[campaign.pk]),
        "filled": "kind" if request.method == "GET" and "kind" in request.GET else "",
    }
    if request.method == "GET":
        form.preselect_single_choices()
    elif form.stale():
        form.is_valid()  # the errors of what was typed still show; the new choices are drawn
        message = _("La mesa ha cambiado desde que abriste este formulario: revisa las opciones y vuelve a enviarlo.")
        form.add_error(None, message)
    elif form.is_valid():
        try:
            outcome = form.perform(request.user)
        except actions.ActionError as error:
            if on_refusal is not None and (answered := on_refusal(error)) is not None:
                return answered
            form.refuse(error)
        else:
            if not request.htmx:
                return redirect("campaign", campaign.pk)
            return render_changes(request, campaign, outcome, slot)
    if not request.htmx:
        status = 400 if request.method == "POST" else 200
        return render(request, "action_page.html", {**context, "template": template}, status=status)
    if request.method == "GET":
        return render(request, template, context)
    response = render(request, template, context, status=422)
    if slot == "advance":
        return reswap(retarget(response, "#form-advance"), "outerHTML")
    # Into the slot, which is always on the table (a quick-damage box has no form open there yet).
    return reswap(retarget(response, f"#slot-{slot}"), "innerHTML")


def focus_of(slot: str, outcome: actions.Outcome) -> str:
    """Where the keyboard goes after an action: the card acted on, the group buttons, or the duration field."""
    if slot == "advance":
        return "advance-duration"
    if slot == PARTY_VIEW:
        return "party_view"
    if slot.isdigit():
        return f"character-{slot}"
    if slot == "checks":
        return "calls"
    if len(outcome.characters) == 1:
        return f"character-{outcome.characters[0].pk}"
    return "party-damage"


def render_changes(
    request: HtmxHttpRequest, campaign: Campaign, outcome: actions.Outcome, closed_slot: str
) -> HttpResponse:
    """The answer to an action: only what it changed, swapped out of band (the cards it touched — all the cards when the
    clock moved, since healing times count from now — the clock, who rests, the undo button, the log) and the form
    it came from closed. Other forms left open stay as they are (their slots are preserved)."""
    clock_before = campaign.clock
    campaign.refresh_from_db()
    every_card = campaign.clock != clock_before
    if every_card:
        context = table_context(campaign)
    else:
        changed = [character.pk for character in outcome.characters]
        if closed_slot.isdigit():
            changed.append(int(closed_slot))  # its form closes even if its character did not change
        context = changes_context(campaign, changed)
    context.update(announce=announcement(outcome), closed_slot=closed_slot, oob=True, every_card=every_card)
    response = reswap(render(request, "components/changes.html", context), "none")
    trigger_client_event(response, "twelveplus:focus", {"value": focus_of(closed_slot, outcome)}, after="settle")
    return response


def render_table(request: HtmxHttpRequest, campaign: Campaign, announce: str, focus: str) -> HttpResponse:
    """The whole table, after an undo (which may bring back anything: a character, a disease). Forms left open stay
    open (hx-preserve)."""
    campaign.refresh_from_db()
    context = table_context(campaign)
    context["announce"] = announce
    response = render(request, "campaign.html#table", context)
    trigger_client_event(response, "twelveplus:focus", {"value": focus}, after="settle")
    return response


def announcement(outcome: actions.Outcome) -> str:
    """What a screen reader says after an action: each affected character's PG."""
    return "; ".join(f"{c.name}: {c.pg}/{c.max_pg} PG" for c in outcome.characters)


# --- one view per action ---------------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def damage(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = chosen_character(request, campaign)
    form = forms.DamageForm(**form_kwargs(request, campaign), initial=initial_of(request, patient), dice_for=patient)
    return answer(request, campaign, form, _("Aplicar daño"), "damage", patient)


@require_http_methods(["GET", "POST"])
def expose(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = chosen_character(request, campaign)
    form = forms.ExposeForm(**form_kwargs(request, campaign), initial=initial_of(request, patient), dice_for=patient)
    return answer(request, campaign, form, _("Exponer a una enfermedad"), "expose", patient)


@require_http_methods(["GET", "POST"])
def advance(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = forms.AdvanceForm(**form_kwargs(request, campaign))
    if request.method == "POST" and request.htmx and not form.stale() and form.is_valid() and form.previewing:
        return render_preview(request, campaign, form, "")

    def fresh_preview(error: actions.ActionError) -> HttpResponse | None:
        # Something changed since the preview the GM applied: nothing is done, they get the new one to read.
        return render_preview(request, campaign, form, error.message) if error.field == "version" else None

    title = _("Avanzar el reloj")
    return answer(
        request, campaign, form, title, "advance", template="components/clock_form.html", on_refusal=fresh_preview
    )


def render_preview(request: HtmxHttpRequest, campaign: Campaign, form: forms.AdvanceForm, note: str) -> HttpResponse:
    """What the advance will do, under the clock (#advance-preview), with "Aplicar" to commit exactly that."""
    try:
        preview = form.preview()
    except actions.ActionError as error:
        form.refuse(error)
        response = render(request, "components/clock_form.html", {"campaign": campaign, "form": form}, status=422)
        return reswap(retarget(response, "#form-advance"), "outerHTML")
    context = {"campaign": campaign, "form": form, "preview": preview, "foreseen": foreseen(preview), "note": note}
    response = render(request, "components/advance_preview.html", context)
    trigger_client_event(response, "twelveplus:focus", {"value": "advance-preview"}, after="settle")
    return reswap(retarget(response, "#advance-preview"), "innerHTML")


@require_http_methods(["GET", "POST"])
def treat_wounds(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = patient_of(request, campaign)
    form = forms.TreatWoundsForm(**form_kwargs(request, campaign), patient=patient)
    return answer(request, campaign, form, _("Tratar heridas"), "treat_wounds", patient)


@require_http_methods(["GET", "POST"])
def treat_illness(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = patient_of(request, campaign)
    form = forms.TreatIllnessForm(**form_kwargs(request, campaign), patient=patient)
    return answer(request, campaign, form, _("Tratar una enfermedad"), "treat_illness", patient)


@require_http_methods(["GET", "POST"])
def medicate(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = patient_of(request, campaign)
    form = forms.MedicateForm(**form_kwargs(request, campaign), patient=patient)
    return answer(request, campaign, form, _("Dar medicamentos"), "medicate", patient)


@require_http_methods(["GET", "POST"])
def exertion(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    patient = patient_of(request, campaign)
    form = forms.ExertionForm(**form_kwargs(request, campaign), patient=patient)
    return answer(request, campaign, form, _("Tirada de esfuerzo"), "exertion", patient)


@require_POST
def answer_check(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """A called check's die, from the player's phone (their page or their sheet) or from the GM's table; or the
    server's roll. Only the checks of characters this user sees, and only while they wait."""
    campaign = access.campaign_for_user(request.user, campaign_id)
    audience = access.audience_of(request.user, campaign)
    checks = CalledCheck.objects.filter(campaign=campaign, character__in=access.characters_seen_by(audience))
    form = forms.CheckAnswerForm(request.POST, checks=checks.select_related("character", "disease"))
    where = request.POST.get("where", "page")
    where = where if where in ("page", "sheet", "table") and (where != "table" or audience.is_gm) else "page"
    if form.is_valid():
        try:
            outcome = form.perform(request.user)
        except actions.ActionError as error:
            form.add_error("die" if error.field == "die" else None, error.message)
        else:
            return checked(request, campaign, audience, outcome, where)
    errors = [str(message) for messages in form.errors.values() for message in messages]
    if not request.htmx:
        return refused_page(request, campaign, audience, form, errors)
    check = form.cleaned_data.get("check") if "check" not in form.errors else None
    if check is None:
        # Answered or cancelled meanwhile (another tab, the GM): the list as it is now, with the reason.
        return owed_checks(request, campaign, audience, where, " ".join(errors), status=422)
    context = {"campaign": campaign, "line": CheckLine(check), "where": where, "errors": errors}
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
    if where == "sheet" and outcome.characters:
        [card] = cards_for(campaign, [outcome.characters[0]])
        context = {
            **sheet_context(campaign, card, access.kept_from(audience)),
            "is_gm": audience.is_gm,
            "answered": said,
        }
        return render(request, "character_sheet.html#state", context)
    return owed_checks(request, campaign, audience, where, said)


def owed_checks(
    request: HtmxHttpRequest, campaign: Campaign, audience: access.Audience, where: str, said: str, status: int = 200
) -> HttpResponse:
    """The checks still owed where the answer came from: the player's page list, or the GM's calls."""
    if where == "table":
        context = {"campaign": campaign, "calls": open_calls(campaign), "said": said}
        response = render(request, "components/called_checks.html", context, status=status)
        return reswap(retarget(response, "#calls"), "innerHTML")
    context = {"campaign": campaign, **my_checks(campaign, audience), "answered": said}
    if where == "sheet":
        context["where"] = "sheet"
        response = render(request, "components/my_checks.html", context, status=status)
        return reswap(retarget(response, "closest .my-checks"), "innerHTML")
    response = render(request, "components/my_checks.html", context, status=status)
    return reswap(retarget(response, "#my-checks"), "innerHTML")


def refused_page(
    request: HtmxHttpRequest, campaign: Campaign, audience: access.Audience, form: Form, errors: list[str]
) -> HttpResponse:
    """Without htmx, a refused die or cancellation: its reasons and the checks still waiting; nothing done (400)."""
    context = {"campaign": campaign, "form": form, "title": _("Tiradas pedidas"), "said": " ".join(errors)}
    if audience.is_gm:
        context.update(template="components/called_checks.html", calls=open_calls(campaign))
    else:
        context.update(template="components/my_checks.html", **my_checks(campaign, audience))
    return render(request, "action_page.html", context, status=400)


@require_POST
def cancel_check(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """The GM takes back called checks still waiting."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = forms.CheckCancelForm(request.POST, campaign=campaign)
    if form.is_valid():
        try:
            outcome = form.perform(request.user)
        except actions.ActionError as error:
            form.add_error(None, error.message)
        else:
            if not request.htmx:
                return redirect("campaign", campaign.pk)
            return render_changes(request, campaign, outcome, "checks")
    errors = [str(message) for messages in form.errors.values() for message in messages]
    said = " ".join(errors)
    if not request.htmx:
        return refused_page(request, campaign, access.table_of(campaign), form, errors)
    return owed_checks(request, campaign, access.table_of(campaign), "table", said, status=422)


@require_http_methods(["GET", "POST"])
def party_view(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """What the other players see of the characters, for the whole campaign: the GM's control on the table."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = forms.PartyViewForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = form.perform(request.user)
        except actions.ActionError as error:
            form.refuse(error)
        else:
            if not request.htmx:
                return redirect("campaign", campaign.pk)
            return render_changes(request, campaign, outcome, PARTY_VIEW)
    template = "components/party_view_form.html"
    context = {"campaign": campaign, "form": form, "title": _("Lo que ven los demás jugadores"), "template": template}
    if not request.htmx:
        return render(request, "action_page.html", context, status=400 if form.errors else 200)
    response = render(request, f"{template}#control", context, status=422 if form.errors else 200)
    return reswap(retarget(response, "#party-view"), "innerHTML")  # inside the form, which stays put


@require_GET
def close_form(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """An action form's Cancel: the form goes, the slot it sat in stays."""
    access.campaign_for_gm(request.user, campaign_id)
    return HttpResponse("")


@require_POST
def undo(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    # The button names the event it undoes; a second tab or a double submit that comes later undoes nothing more.
    event = request.POST.get("event", "")
    expected = None if event == "" else (digits(event) or 0)
    try:
        announce = _("Deshecho. ") + announcement(actions.undo(campaign, by=request.user, event=expected))
    except actions.ActionError as error:
        announce = error.message  # nothing left to undo, or not that: say so, change nothing
        if not request.htmx:
            messages.error(request, error.message)
    if not request.htmx:
        return redirect("campaign", campaign.pk)
    return render_table(request, campaign, announce, "undo-form")
