"""The table as people see it: the GM's table, a player's page, a character's sheet, their logs, and one view per
action on the table.

Views are thin: a form checks the input and applies one action of rules.actions (play.forms.base.ActionForm). An
action answers htmx with the table (or the form again, with its messages, on a refusal) and a plain browser with a
redirect (or a page with the form).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST, require_safe
from django_htmx.http import reswap, retarget

from campaigns import access
from campaigns.models import Campaign
from characters.models import Character
from play.forms.advance import AdvanceForm
from play.forms.base import IN_PLAY, TableActionForm
from play.forms.care import ExertionForm, MedicateForm, PatientForm, TreatIllnessForm, TreatWoundsForm
from play.forms.damage import DamageForm, ExposeForm
from play.forms.fields import digits, posted
from play.forms.party import PartyViewForm
from play.screens.answers import (
    PARTY_VIEW,
    HtmxHttpRequest,
    acting,
    announcement,
    answers_in_place,
    render_changes,
)
from play.screens.drawing import Drawing, View, view_of
from play.screens.pages import page
from play.screens.preview import preview_in_words
from play.screens.regions import clock_closed, gm_drawing, party_view_closed, site_of, whole_drawing
from play.screens.visits import since_last_visit
from rules import actions

type Initial = dict[str, str | list[str]]


# --- pages -----------------------------------------------------------------------------------------------------------


def stream_url(campaign: Campaign, view: View) -> str:
    url = reverse("campaign_stream", args=[campaign.pk])
    return url if view.character is None else f"{url}?sheet={view.character}"


def screen_page(
    request: HtmxHttpRequest, template: str, campaign: Campaign, view: View, is_owner: bool = False
) -> HttpResponse:
    """A screen as a fresh load draws it: every region of it (play.screens), and its live stream's address; what
    only the owner may do (export, delete) is linked for the owner only (`is_owner`); the player's page and the GM's
    table with "Desde tu última visita" (play.screens.visits), which a GET marks as seen."""
    drawing = whole_drawing(campaign, view, site_of(request), request)
    visit = since_last_visit(drawing, request.user) if request.method == "GET" else None
    return page(request, template, drawing, {"stream_url": stream_url(campaign, view), "is_owner": is_owner}, visit)


@require_safe
def campaign(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's table, or a player's page with their own characters."""
    campaign = access.campaign_for_user(request.user, campaign_id)
    audience = access.audience_of(request.user, campaign)
    template = "campaign.html" if audience.is_gm else "campaign_player.html"
    return screen_page(request, template, campaign, view_of(audience), access.is_owner(request.user, campaign))


@require_safe
def character(request: HtmxHttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """A character's sheet, for its player and for the GM."""
    found = access.character_for_user(request.user, campaign_id, character_id)
    audience = access.audience_of(request.user, found.campaign)
    return screen_page(request, "character_sheet.html", found.campaign, view_of(audience, found.pk))


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


def gm_table(request: HtmxHttpRequest, campaign_id: int) -> tuple[Campaign, list[Character]]:
    """The campaign whose table this user runs (or 404), with its characters in play: what its forms offer and the
    card a form was opened from are among them. One round trip."""
    return access.table_for_gm(request.user, campaign_id, IN_PLAY)


def chosen_character(request: HtmxHttpRequest, campaign: Campaign, roster: list[Character]) -> Character | None:
    """The card the form was opened from, if any: one of this campaign's characters in play, or 404."""
    character_id = request.POST.get("character") or request.GET.get("character")
    if character_id is None:
        return None
    character = next((character for character in roster if str(character.pk) == character_id), None)
    if character is None:
        raise Http404
    character.campaign = campaign  # as campaign.characters gives it: no query for it again
    return character


def patient_of(request: HtmxHttpRequest, campaign: Campaign, roster: list[Character]) -> Character:
    patient = chosen_character(request, campaign, roster)
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


def form_kwargs(request: HtmxHttpRequest, campaign: Campaign, roster: list[Character]) -> dict[str, object]:
    return {
        "data": request.POST if request.method == "POST" else None,
        "campaign": campaign,
        "roster": roster,
        "auto_id": f"{slot_of(request)}-%s",
    }


def answer(
    request: HtmxHttpRequest,
    campaign: Campaign,
    form: TableActionForm,
    title: str,
    url_name: str,
    patient: Character | None = None,
    template: str = "components/action_form.html",
    on_action_error: Callable[[actions.ActionError], HttpResponse | None] | None = None,
    drawing: Drawing | None = None,
) -> HttpResponse:
    """GET: the form (a fragment for htmx, a page without). POST: apply the action and answer with the table, or with
    the form and its messages when something is wrong or its choices changed since it was drawn (or with what
    `on_action_error` answers to the action's error, if anything). The clock's form draws who rests as the table's
    region does, from the table's `drawing`."""
    slot = slot_of(request)
    # A form drawn again after a refusal looks as it did the first time (a choice of one already made).
    form.preselect_single_choices()
    if request.method == "GET":
        pass
    elif form.stale():
        form.is_valid()  # the errors of what was typed still show; the new choices are drawn
        message = _("La mesa ha cambiado desde que abriste este formulario: revisa las opciones y vuelve a enviarlo.")
        form.add_error(None, message)
    elif form.is_valid():
        outcome = form.apply(acting(request))
        if outcome is not None:
            if not request.htmx:
                return redirect("campaign", campaign.pk)
            closing = partial(clock_closed, request) if slot == "advance" else None
            return render_changes(request, campaign, outcome, slot, closing=closing)
        error = form.action_error
        if on_action_error is not None and error is not None and (answered := on_action_error(error)) is not None:
            return answered
    context = {
        "campaign": campaign,
        "form": form,
        "patient": patient,
        "slot": slot,
        "title": title,
        "action_url": reverse(url_name, args=[campaign.pk]),
        "filled": "kind" if request.method == "GET" and "kind" in request.GET else "",
        "drawing": drawing,
    }
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


def on_characters(
    request: HtmxHttpRequest, campaign_id: int, form_class: type[DamageForm | ExposeForm], title: str, action: str
) -> HttpResponse:
    """A blow or an exposure to the characters ticked (the card's, when opened from a card): its form, then its
    answer."""
    campaign, roster = gm_table(request, campaign_id)
    patient = chosen_character(request, campaign, roster)
    form = form_class(**form_kwargs(request, campaign, roster), initial=initial_of(request, patient), dice_for=patient)
    return answer(request, campaign, form, title, action, patient)


@answers_in_place
@require_http_methods(["GET", "POST"])
def damage(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return on_characters(request, campaign_id, DamageForm, _("Aplicar daño"), "damage")


@answers_in_place
@require_http_methods(["GET", "POST"])
def expose(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return on_characters(request, campaign_id, ExposeForm, _("Exponer a una enfermedad"), "expose")


@answers_in_place
@require_http_methods(["GET", "POST"])
def advance(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign, roster = gm_table(request, campaign_id)
    form = AdvanceForm(**form_kwargs(request, campaign, roster))
    if request.method == "POST" and not form.stale() and form.is_valid() and form.previewing:
        return render_preview(request, campaign, form, "")

    def fresh_preview(error: actions.ActionError) -> HttpResponse | None:
        # Something changed since the preview the GM applied: nothing is done, they get the new one to read.
        return render_preview(request, campaign, form, error.message) if error.field == "version" else None

    title = _("Avanzar el reloj")
    template, drawing = "components/clock_form.html", gm_drawing(campaign, request)
    return answer(
        request, campaign, form, title, "advance", template=template, on_action_error=fresh_preview, drawing=drawing
    )


def render_preview(request: HtmxHttpRequest, campaign: Campaign, form: AdvanceForm, note: str) -> HttpResponse:
    """What the advance will do, under the clock (#advance-preview), with "Aplicar" to commit exactly that; without
    JavaScript, as a page of its own with the same button and a way back."""
    title = _("Avanzar el reloj")
    preview = form.attempt(form.preview)
    if preview is None:
        context = {"campaign": campaign, "form": form, "drawing": gm_drawing(campaign, request)}
        if not request.htmx:
            context.update(template="components/clock_form.html", title=title)
            return render(request, "action_page.html", context, status=400)
        response = render(request, "components/clock_form.html", context, status=422)
        return reswap(retarget(response, "#form-advance"), "outerHTML")
    redrawn = bool(form.cleaned_data.get("redraw"))  # the table changed under an open preview: this one takes its place
    context = {
        "campaign": campaign,
        "form": form,
        "preview": preview,
        "in_words": preview_in_words(preview),
        "note": note,
        "redrawn": redrawn,
    }
    if not request.htmx:
        context.update(template="components/advance_preview.html", title=title, page=True)
        return render(request, "action_page.html", context)
    response = render(request, "components/advance_preview.html", context)
    if not redrawn:  # asked for by the GM: the keyboard goes to "Aplicar"; redrawn, it stays where it is
        response["X-Focus"] = "advance-preview"
    return reswap(retarget(response, "#advance-preview"), "innerHTML")


def care(
    request: HtmxHttpRequest, campaign_id: int, form_class: type[PatientForm], title: str, action: str
) -> HttpResponse:
    """A care action on one patient (treat wounds or an illness, medicine, exertion): its form, then its answer."""
    campaign, roster = gm_table(request, campaign_id)
    patient = patient_of(request, campaign, roster)
    form = form_class(**form_kwargs(request, campaign, roster), patient=patient)
    return answer(request, campaign, form, title, action, patient)


@answers_in_place
@require_http_methods(["GET", "POST"])
def treat_wounds(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return care(request, campaign_id, TreatWoundsForm, _("Tratar heridas"), "treat_wounds")


@answers_in_place
@require_http_methods(["GET", "POST"])
def treat_illness(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return care(request, campaign_id, TreatIllnessForm, _("Tratar una enfermedad"), "treat_illness")


@answers_in_place
@require_http_methods(["GET", "POST"])
def medicate(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return care(request, campaign_id, MedicateForm, _("Dar medicamentos"), "medicate")


@answers_in_place
@require_http_methods(["GET", "POST"])
def exertion(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    return care(request, campaign_id, ExertionForm, _("Tirada de esfuerzo"), "exertion")


@answers_in_place
@require_http_methods(["GET", "POST"])
def party_view(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """What the other players see of the characters, for the whole campaign: the GM's control on the table."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = PartyViewForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(acting(request))) is not None:
        if not request.htmx:
            return redirect("campaign", campaign.pk)
        return render_changes(request, campaign, outcome, PARTY_VIEW, closing=partial(party_view_closed, request))
    template = "components/party_view_form.html"
    context = {"campaign": campaign, "form": form, "title": _("Lo que ven los demás jugadores"), "template": template}
    if not request.htmx:
        return render(request, "action_page.html", context, status=400 if form.errors else 200)
    response = render(request, "components/party_view_control.html", context, status=422 if form.errors else 200)
    return reswap(retarget(response, "#party-view"), "innerHTML")  # inside the form, which stays put


@require_GET
def close_form(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    """An action form's Cancel: the form goes, the slot it sat in stays."""
    access.campaign_for_gm(request.user, campaign_id)
    return HttpResponse("")


@answers_in_place
@require_POST
def undo(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_gm(request.user, campaign_id)
    # The button names the event it undoes; a second tab or a double submit that comes later undoes nothing more.
    event = request.POST.get("event", "")
    expected = None if event == "" else (digits(event) or 0)
    try:
        outcome = actions.undo(campaign, by=acting(request), event=expected)
        announce = _("Deshecho. ") + announcement(outcome)
    except actions.ActionError as error:
        outcome = actions.Outcome(None, [])
        announce = error.message  # nothing left to undo, or not that: say so, change nothing
        if not request.htmx:
            messages.error(request, error.message)
    if not request.htmx:
        return redirect("campaign", campaign.pk)
    return render_changes(request, campaign, outcome, "undo", announce)


@answers_in_place
@require_POST
def invite(request: HtmxHttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    """The GM makes an invitation link for a character nobody plays: it shows in the character's card."""
    character = access.character_for_gm(request.user, campaign_id, character_id)
    try:
        outcome = actions.create_invitation(character.campaign, character, by=acting(request))
    except actions.ActionError as error:
        return said_on_table(request, character.campaign, error.message, error=True)
    if outcome.event is None:
        said = _("%(name)s ya tiene un enlace de invitación pendiente.") % {"name": character.name}
    else:
        said = _("Invitación creada: copia el enlace y envíalo al jugador.")
    # The keyboard goes to the link itself, its Copy button next: what the GM came for.
    return said_on_table(request, character.campaign, said, outcome, f"invitation-{character.pk}")


@answers_in_place
@require_POST
def revoke_invitation(request: HtmxHttpRequest, campaign_id: int, invitation_id: int) -> HttpResponse:
    """The GM cancels a pending link: it hands over nothing from now on."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    try:
        outcome = actions.revoke_invitation(campaign, invitation_id, by=acting(request))
    except actions.ActionError as error:
        return said_on_table(request, campaign, error.message, error=True)
    said = _("Enlace anulado: ya no sirve para reclamar el personaje.")
    focus = f"character-{outcome.characters[0].pk}" if outcome.characters else "cards"
    return said_on_table(request, campaign, said, outcome, focus)


def said_on_table(
    request: HtmxHttpRequest,
    campaign: Campaign,
    said: str,
    outcome: actions.Outcome | None = None,
    focus: str = "",
    error: bool = False,
) -> HttpResponse:
    """An action of a card's own (an invitation link): the table as after any action, with what happened in words;
    without htmx, the table again with the words as a message."""
    if not request.htmx:
        (messages.error if error else messages.success)(request, said)
        return redirect("campaign", campaign.pk)
    return render_changes(request, campaign, outcome or actions.Outcome(None, []), "", said, focus, said)
