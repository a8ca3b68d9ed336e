"""A character's sheet data, as the GM keeps it: add, edit, remove, and invite a player to take it. Each page calls
one action of rules.actions, so every change is locked, logged, undoable and seen live. (An invitation link is made
from the card on the table: play.views.invite.)"""

from django.contrib import messages
from django.forms.models import model_to_dict
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from campaigns.access import campaign_for_gm, character_for_gm
from characters.forms import CharacterForm
from rules import actions
from rules.actions import SHEET_FIELDS
from rules.forms import posted, refuse


def sheet_form_page(request: HttpRequest, form: CharacterForm, context: dict[str, object]) -> HttpResponse:
    return render(request, "character_form.html", {**context, "form": form}, status=400 if form.errors else 200)


def refused(form: CharacterForm, error: actions.ActionError) -> None:
    refuse(form, error, {"player_id": "player"})


@require_http_methods(["GET", "POST"])
def character_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    form = CharacterForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = actions.add_character(campaign, form.sheet(), by=request.user)
        except actions.ActionError as error:
            refused(form, error)
        else:
            [character] = outcome.characters
            messages.success(request, _("Personaje «%(name)s» creado.") % {"name": character.name})
            return redirect("campaign", campaign.pk)
    return sheet_form_page(request, form, {"campaign": campaign})


@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    initial = model_to_dict(character, fields=[name.removesuffix("_id") for name in SHEET_FIELDS])
    # No instance: the form never writes into the character; the action re-reads it under the campaign's lock.
    form = CharacterForm(posted(request), initial=initial, campaign=character.campaign)
    if request.method == "POST" and form.is_valid():
        try:
            outcome = actions.edit_character(character.campaign, character, form.sheet(), by=request.user)
        except actions.ActionError as error:
            refused(form, error)
        else:
            if outcome.event is None:
                messages.info(request, _("Nada que guardar: la hoja ya decía eso."))
            else:
                messages.success(request, _("Personaje «%(name)s» guardado.") % {"name": outcome.characters[0].name})
            return redirect("campaign", campaign_id)
    return sheet_form_page(request, form, {"campaign": character.campaign, "character": character})


@require_http_methods(["GET", "POST"])
def character_delete(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    if request.method == "POST":
        actions.remove_character(character.campaign, character, by=request.user)
        messages.success(
            request,
            _("«%(name)s» ha salido de la campaña. «Deshacer» en el registro lo trae de vuelta.")
            % {"name": character.name},
        )
        return redirect("campaign", campaign_id)
    return render(request, "character_confirm_delete.html", {"campaign": character.campaign, "character": character})
