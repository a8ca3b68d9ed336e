"""The GM's own diseases for a campaign: list, add, edit, retire and bring back.

Built-in and global diseases (campaign = None) belong to the site admins; here they are only shown for reference.
A disease someone has had is never deleted (history points at it): it is retired instead.
"""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import campaign_for_gm
from campaigns.models import Campaign
from play.forms.diseases import DiseaseForm
from play.forms.fields import posted
from rules import actions
from rules.models import Disease


def get_disease_for_gm(campaign: Campaign, disease_id: int) -> Disease:
    # Only the campaign's own diseases: built-ins and globals have campaign = None and answer 404 like any other.
    return get_object_or_404(Disease, pk=disease_id, campaign=campaign)


def disease_list(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    return render(
        request,
        "diseases.html",
        {
            "campaign": campaign,
            "own": campaign.diseases.order_by("retired", "category", "name"),
            "shared": Disease.objects.filter(campaign=None, retired=False),
        },
    )


@require_http_methods(["GET", "POST"])
def disease_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    form = DiseaseForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and form.apply(request.user) is not None:
        messages.success(request, _("Enfermedad «%(name)s» creada.") % {"name": form.sheet().name})
        return redirect("diseases", campaign.pk)
    return render(
        request, "disease_form.html", {"campaign": campaign, "form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def disease_edit(request: HttpRequest, campaign_id: int, disease_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    disease = get_disease_for_gm(campaign, disease_id)
    form = DiseaseForm(posted(request), campaign=campaign, disease=disease)
    if request.method == "POST" and form.is_valid() and form.apply(request.user) is not None:
        messages.success(request, _("Enfermedad «%(name)s» guardada.") % {"name": form.sheet().name})
        return redirect("diseases", campaign.pk)
    return render(
        request,
        "disease_form.html",
        {"campaign": campaign, "disease": disease, "form": form},
        status=400 if form.errors else 200,
    )


@require_POST
def disease_retire(request: HttpRequest, campaign_id: int, disease_id: int) -> HttpResponse:
    """Retire an active disease (no one can catch it any more) or bring a retired one back."""
    campaign = campaign_for_gm(request.user, campaign_id)
    disease = get_disease_for_gm(campaign, disease_id)
    # What the button said ("Retirar" or "Recuperar"), not the opposite of what is stored: a second click, or a
    # second tab, is told it is done already (the action's refusal) instead of undoing the first.
    retire = request.POST.get("retire", "0" if disease.retired else "1") == "1"
    try:
        if not retire:
            actions.restore_disease(campaign, disease, by=request.user)
            messages.success(request, _("Enfermedad «%(name)s» disponible de nuevo.") % {"name": disease.name})
        else:
            actions.retire_disease(campaign, disease, by=request.user)
            messages.success(
                request, _("Enfermedad «%(name)s» retirada: ya no se puede contraer.") % {"name": disease.name}
            )
    except actions.ActionError as error:
        messages.error(request, error.message)
    return redirect("diseases", campaign.pk)
