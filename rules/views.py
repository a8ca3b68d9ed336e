"""The GM's own diseases for a campaign: list, add, edit, retire and bring back.

Built-in and global diseases (campaign = None) belong to the site admins; here they are only shown for reference.
A disease someone has had is never deleted (history points at it): it is retired instead.
"""

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import campaign_for_gm
from campaigns.models import Campaign
from rules.forms import DiseaseForm, name_taken
from rules.models import Disease


def lock_campaign(campaign: Campaign) -> None:
    # Serialises the GM's disease edits in one campaign, so that two tabs cannot both pass the name check.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()


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
    form = DiseaseForm(request.POST or None, campaign=campaign)
    if request.method == "POST":
        with transaction.atomic():
            lock_campaign(campaign)
            if form.is_valid():
                disease = form.save(commit=False)
                disease.campaign = campaign
                disease.save()
                messages.success(request, _("Enfermedad «%(name)s» creada.") % {"name": disease.name})
                return redirect("diseases", campaign.pk)
    return render(
        request, "disease_form.html", {"campaign": campaign, "form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def disease_edit(request: HttpRequest, campaign_id: int, disease_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    disease = get_disease_for_gm(campaign, disease_id)
    form = DiseaseForm(request.POST or None, instance=disease, campaign=campaign)
    if request.method == "POST":
        with transaction.atomic():
            lock_campaign(campaign)
            if form.is_valid():
                # Illnesses copy the numbers when they start, so this rewrites no one's history.
                form.save()
                messages.success(request, _("Enfermedad «%(name)s» guardada.") % {"name": disease.name})
                return redirect("diseases", campaign.pk)
        # A failed ModelForm has already written the bad values into the instance; show the saved name instead.
        disease.refresh_from_db()
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
    with transaction.atomic():
        lock_campaign(campaign)
        disease = get_disease_for_gm(campaign, disease_id)
        if not disease.retired:
            disease.retired = True
            disease.save(update_fields=["retired"])
            messages.success(
                request, _("Enfermedad «%(name)s» retirada: ya no se puede contraer.") % {"name": disease.name}
            )
        elif name_taken(campaign, disease.name, exclude=disease):
            messages.error(
                request,
                _("No se puede recuperar «%(name)s»: ya hay una enfermedad activa con ese nombre.")
                % {"name": disease.name},
            )
        else:
            disease.retired = False
            disease.save(update_fields=["retired"])
            messages.success(request, _("Enfermedad «%(name)s» disponible de nuevo.") % {"name": disease.name})
    return redirect("diseases", campaign.pk)
