"""A campaign's co-GMs: the page where the owner names them (an invitation link "como co-narrador", with its copy
button and QR code, as a character's) and removes them. Co-GMs see the list, not the buttons; only the owner acts
(campaigns.access.campaign_for_owner: anyone else gets 404). Each change is a rules action: logged and undoable."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from campaigns import access
from campaigns.models import Campaign, Role
from play.screens.regions import site_of
from rules import actions


@require_safe
def co_gms(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The owner and the co-GMs, for every GM of the campaign; the owner's buttons and pending link for the owner."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    is_owner = access.is_owner(request.user, campaign)
    # A co-GM the admin made owner keeps their membership (an undo may give the campaign back): listed as the owner.
    members = campaign.memberships.filter(role=Role.GM).exclude(user=campaign.gm_id).select_related("user")
    members = members.order_by("user__username")
    link = campaign.invitations.pending().filter(role=Role.GM).first() if is_owner else None
    context = {"campaign": campaign, "co_gms": members, "is_owner": is_owner, "link": link, "site": site_of(request)}
    return render(request, "co_gms.html", context)


def done(request: HttpRequest, campaign: Campaign, said: str) -> HttpResponse:
    messages.success(request, said)
    return redirect("co_gms", campaign.pk)


def refused(request: HttpRequest, campaign: Campaign, error: actions.ActionError) -> HttpResponse:
    messages.error(request, error.message)
    return redirect("co_gms", campaign.pk)


@require_POST
def co_gm_invite(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = access.campaign_for_owner(request.user, campaign_id)
    try:
        outcome = actions.create_co_gm_invitation(campaign, by=request.user)
    except actions.ActionError as error:
        return refused(request, campaign, error)
    if outcome.event is None:
        return done(request, campaign, _("Ya tienes un enlace de co-narrador pendiente: es este."))
    return done(request, campaign, _("Enlace creado: cópialo y envíalo a quien vaya a narrar contigo."))


@require_POST
def co_gm_revoke(request: HttpRequest, campaign_id: int, invitation_id: int) -> HttpResponse:
    campaign = access.campaign_for_owner(request.user, campaign_id)
    try:
        actions.revoke_co_gm_invitation(campaign, invitation_id, by=request.user)
    except actions.ActionError as error:
        return refused(request, campaign, error)
    return done(request, campaign, _("Enlace anulado: ya no sirve para unirse como co-narrador."))


@require_POST
def co_gm_remove(request: HttpRequest, campaign_id: int, user_id: int) -> HttpResponse:
    campaign = access.campaign_for_owner(request.user, campaign_id)
    try:
        outcome = actions.remove_co_gm(campaign, user_id, by=request.user)
    except actions.ActionError as error:
        return refused(request, campaign, error)
    name = outcome.event.details.get("name", "") if outcome.event is not None else ""
    return done(request, campaign, _("%(name)s ya no es co-narrador. Puedes deshacerlo en la mesa.") % {"name": name})
