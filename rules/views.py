"""The GM's table: every rules action from the browser. Thin views: a form checks the input, one action runs."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import reswap, retarget

from campaigns.models import Campaign
from campaigns.table import table_context
from campaigns.views import get_campaign_for_gm
from rules import actions, forms

# action → (form, needs a patient)
ACTIONS: dict[str, tuple[type[forms.CampaignForm], bool]] = {
    "damage": (forms.DamageForm, False),
    "expose": (forms.ExposeForm, False),
    "advance": (forms.AdvanceForm, False),
    "treat_wounds": (forms.TreatWoundsForm, True),
    "treat_illness": (forms.TreatIllnessForm, True),
    "medicate": (forms.MedicateForm, True),
    "exertion": (forms.ExertionForm, True),
}

TITLES = {
    "damage": gettext_lazy("Aplicar daño"),
    "expose": gettext_lazy("Exponer a una enfermedad"),
    "advance": gettext_lazy("Avanzar el reloj"),
    "treat_wounds": gettext_lazy("Tratar heridas"),
    "treat_illness": gettext_lazy("Tratar una enfermedad"),
    "medicate": gettext_lazy("Dar medicamentos"),
    "exertion": gettext_lazy("Tirada de esfuerzo"),
}


def render_table(request: HttpRequest, campaign: Campaign, announce: str = "") -> HttpResponse:
    context = table_context(campaign)
    context["announce"] = announce
    return render(request, "campaign.html#table", context)


def build_form(request: HttpRequest, campaign: Campaign, action: str):
    if action not in ACTIONS:
        raise Http404
    form_class, needs_patient = ACTIONS[action]
    data = request.POST if request.method == "POST" else None
    kwargs: dict = {"campaign": campaign, "auto_id": f"{slot_of(request)}-%s"}
    initial: dict = {}
    character_id = request.POST.get("character") or request.GET.get("character")
    patient = None
    if character_id is not None:
        if not str(character_id).isdigit():
            raise Http404
        patient = get_object_or_404(campaign.characters, pk=int(character_id))
        initial = {"characters": [patient]}
    if needs_patient:
        if patient is None:
            raise Http404
        kwargs["patient"] = patient
    else:
        kwargs["dice_for"] = patient
    if request.method == "GET" and "kind" in request.GET:
        # The kind select reloads the form with that kind's fields, keeping what was typed, as initial values.
        initial = {name: request.GET.getlist(name) if name == "characters" else value
                   for name, value in request.GET.items() if name not in ("csrfmiddlewaretoken", "slot", "character")}
        if patient is not None and "characters" not in initial:
            initial["characters"] = [patient]
    form = form_class(data, initial=initial, **kwargs)
    return form, patient


def slot_of(request: HttpRequest) -> str:
    """Where on the page the form sits: a card's slot (its character id), "party" or "advance"."""
    slot = request.GET.get("slot") or request.POST.get("slot") or request.GET.get("character") \
        or request.POST.get("character") or "party"
    return slot if slot.isalnum() and len(slot) <= 20 else "party"


def form_context(request: HttpRequest, campaign: Campaign, action: str, form, patient) -> dict:
    slot = slot_of(request)
    return {"campaign": campaign, "action": action, "form": form, "patient": patient, "slot": slot,
            "title": TITLES[action]}


@require_http_methods(["GET", "POST"])
def act(request: HttpRequest, campaign_id: int, action: str) -> HttpResponse:
    """GET: the action's form (a fragment for htmx, a page without it). POST: run the action."""
    campaign = get_campaign_for_gm(request, campaign_id)
    if request.method == "GET" and request.GET.get("cancel"):
        return HttpResponse("")
    form, patient = build_form(request, campaign, action)
    context = form_context(request, campaign, action, form, patient)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = form.perform(request.user)
        except actions.ActionError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            if not request.htmx:
                return redirect("campaign", campaign.pk)
            campaign.refresh_from_db()
            return render_table(request, campaign, announce=announcement(outcome))
    status = 422 if request.method == "POST" else 200
    if request.htmx:
        response = render(request, "campaign.html#action_form", context, status=status)
        if request.method == "POST":
            response = reswap(retarget(response, f"#form-{context['slot']}"), "outerHTML")
        return response
    return render(request, "action_page.html", context, status=400 if status == 422 else 200)


def announcement(outcome: actions.Outcome) -> str:
    """What a screen reader says after an action: each affected character's PG."""
    return "; ".join(f"{c.name}: {c.pg}/{c.max_pg} PG" for c in outcome.characters)


@require_POST
def undo(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request, campaign_id)
    try:
        announce = _("Deshecho. ") + announcement(actions.undo(campaign, by=request.user))
    except actions.ActionError as error:
        announce = error.message  # nothing left to undo: say so, change nothing
    if not request.htmx:
        return redirect("campaign", campaign.pk)
    campaign.refresh_from_db()
    return render_table(request, campaign, announce=announce)
