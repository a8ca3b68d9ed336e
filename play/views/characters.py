"""A character's sheet data, as the GM keeps it: add, edit, remove. Each page applies one action of rules.actions, so
every change is locked, logged, undoable and seen live. (An invitation link is made from the card on the table:
play.views.table.invite.)"""

from django.contrib import messages
from django.forms.models import model_to_dict
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import campaign_for_gm, character_for_gm
from characters.models import Character
from play.forms.characters import CharacterForm
from play.forms.fields import digits, posted
from play.forms.npcs import RemoveSeveralForm, SeveralCharactersForm, template_initial
from rules import actions
from rules.actions import SHEET_FIELDS


def sheet_form_page(request: HttpRequest, form: CharacterForm, context: dict[str, object]) -> HttpResponse:
    return render(request, "character_form.html", {**context, "form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def character_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    form = CharacterForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(request.user)) is not None:
        [character] = outcome.characters
        messages.success(request, _("Personaje «%(name)s» creado.") % {"name": character.name})
        return redirect("campaign", campaign.pk)
    return sheet_form_page(request, form, {"campaign": campaign})


@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    character = character_for_gm(request.user, campaign_id, character_id)
    initial = model_to_dict(character, fields=[name.removesuffix("_id") for name in SHEET_FIELDS])
    form = CharacterForm(posted(request), initial=initial, campaign=character.campaign, character=character)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(request.user)) is not None:
        if outcome.event is None:
            messages.info(request, _("Nada que guardar: la hoja ya decía eso."))
        else:
            messages.success(request, _("Personaje «%(name)s» guardado.") % {"name": outcome.characters[0].name})
        return redirect("campaign", campaign_id)
    return sheet_form_page(request, form, {"campaign": character.campaign, "character": character})


@require_http_methods(["GET", "POST"])
def character_delete(request: HttpRequest, campaign_id: int, character_id: int) -> HttpResponse:
    if request.method == "POST":
        # Found even when removed already (a second tab, a double click): said, not a 404
        campaign = campaign_for_gm(request.user, campaign_id)
        character = get_object_or_404(Character.everyone, campaign=campaign, pk=character_id)
        try:
            actions.remove_character(campaign, character, by=request.user)
        except actions.ActionError:  # removed meanwhile (a second tab, a double click, an undo raced): said, no 500
            messages.info(request, _("«%(name)s» ya no está en la campaña.") % {"name": character.name})
            return redirect("campaign", campaign_id)
        messages.success(
            request,
            _("«%(name)s» ha salido de la campaña. «Deshacer» en el registro lo trae de vuelta.")
            % {"name": character.name},
        )
        return redirect("campaign", campaign_id)
    character = character_for_gm(request.user, campaign_id, character_id)
    return render(request, "character_confirm_delete.html", {"campaign": character.campaign, "character": character})


# --- quick NPCs: several at once -------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def characters_add_several(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """ "Añadir varios", with the campaign's templates: one to fill the form (`?template=`), the form's values kept as
    one ("Guardar como plantilla"), or one deleted."""
    campaign = campaign_for_gm(request.user, campaign_id)
    templates = list(campaign.npc_templates.all())
    chosen = digits(request.GET.get("template"))
    template = get_object_or_404(campaign.npc_templates, pk=chosen) if "template" in request.GET else None
    initial = {} if template is None else template_initial(template)
    form = SeveralCharactersForm(posted(request), initial=initial, campaign=campaign)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(request.user)) is not None:
        if form.keeping:
            name = form.kept_name
            messages.success(request, _("Plantilla «%(name)s» guardada.") % {"name": name})
            kept = campaign.npc_templates.filter(name=name).values_list("pk", flat=True).first()
            page = reverse("characters_add_several", args=[campaign.pk])
            return redirect(page if kept is None else f"{page}?template={kept}")
        names = [character.name for character in outcome.characters]
        messages.success(request, _("Añadidos: %(names)s.") % {"names": ", ".join(names)})
        return redirect("campaign", campaign.pk)
    context = {"campaign": campaign, "form": form, "templates": templates, "template": template}
    return render(request, "characters_add_several.html", context, status=400 if form.errors else 200)


@require_POST
def template_delete(request: HttpRequest, campaign_id: int, template_id: int) -> HttpResponse:
    """A template gone meanwhile (a second click, another tab) is said on the page, as any stale second removal is,
    never a 404 page: the action, under the campaign's lock, is what knows whether it is still there."""
    campaign = campaign_for_gm(request.user, campaign_id)
    name = campaign.npc_templates.filter(pk=template_id).values_list("name", flat=True).first()
    try:
        actions.delete_template(campaign, template_id, by=request.user)
    except actions.ActionError as error:
        messages.info(request, error.message)
    else:
        messages.success(
            request, _("Plantilla «%(name)s» borrada. «Deshacer» en el registro la recupera.") % {"name": name}
        )
    return redirect("characters_add_several", campaign.pk)


@require_http_methods(["GET", "POST"])
def characters_remove_several(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_for_gm(request.user, campaign_id)
    form = RemoveSeveralForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and (outcome := form.apply(request.user)) is not None:
        names = ", ".join(character.name for character in outcome.characters)
        messages.success(
            request,
            _("Han salido de la campaña: %(names)s. «Deshacer» en el registro los trae de vuelta.") % {"names": names},
        )
        return redirect("campaign", campaign.pk)
    context = {"campaign": campaign, "form": form}
    return render(request, "characters_remove_several.html", context, status=400 if form.errors else 200)
