"""A character's sheet data, as the GM keeps it: add, edit, delete, and invite a player to take it."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import campaign_for_gm, character_for_gm
from campaigns.models import Invitation
from characters.forms import CharacterForm
from rules import actions


@require_http_methods(["GET", "POST"])
def character_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    form = CharacterForm(request.POST or None, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        character = form.save(commit=False)
        character.campaign = campaign
        actions.save_character(character, by=request.user)
        messages.success(request, _("Personaje «%(name)s» creado.") % {"name": character.name})
        return redirect("campaign", campaign.pk)
    return render(
        request, "character_form.html", {"campaign": campaign, "form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    form = CharacterForm(request.POST or None, instance=character, campaign=character.campaign)
    if request.method == "POST" and form.is_valid():
        actions.save_character(form.save(commit=False), by=request.user)
        messages.success(request, _("Personaje «%(name)s» guardado.") % {"name": character.name})
        return redirect("campaign", campaign_id)
    return render(
        request,
        "character_form.html",
        {"campaign": character.campaign, "character": character, "form": form},
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
def character_delete(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    if request.method == "POST":
        character.delete()
        messages.success(request, _("Personaje «%(name)s» eliminado.") % {"name": character.name})
        return redirect("campaign", campaign_id)
    return render(request, "character_confirm_delete.html", {"campaign": character.campaign, "character": character})


@require_POST
def character_invite(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    Invitation.objects.get_or_create(campaign=character.campaign, character=character, claimed_by=None)
    messages.success(request, _("Invitación creada: copia el enlace y envíalo al jugador."))
    return redirect("campaign", campaign_id)
