"""Campaigns and the people in them: the home page, creating, exporting, importing and deleting a campaign, and
claiming an invitation to play a character."""

import json

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from campaigns import access
from campaigns.models import Campaign, Invitation, Role
from play.forms.campaigns import CampaignDeleteForm, CampaignImportForm, CampaignNameForm
from play.forms.fields import posted, posted_files
from rules import actions, backup


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    user = access.signed_in(request)
    return render(
        request,
        "home.html",
        {
            "campaigns_run": access.campaigns_run_by(user).select_related("gm"),
            "campaigns_played": Campaign.objects.filter(memberships__user=user, memberships__role=Role.PLAYER)
            .exclude(gm=user)
            .select_related("gm"),
        },
    )


@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignNameForm(posted(request))
    if request.method == "POST" and form.is_valid():
        campaign = form.apply(access.signed_in(request))
        if campaign is not None:
            return redirect("campaign", campaign.pk)
    return render(request, "campaign_form.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
def campaign_export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The owner downloads the whole campaign as one JSON document (rules.backup.export_campaign)."""
    campaign = access.campaign_for_owner(request.user, campaign_id)
    try:
        exported = backup.export_campaign(campaign)
    except actions.ActionError as error:  # deleted meanwhile (another tab): gone, as any other missing page
        raise Http404(error.message) from error
    document = json.dumps(exported, ensure_ascii=False, indent=1)
    filename = f"{slugify(campaign.name) or 'campana'}-{timezone.localdate():%Y-%m-%d}.json"
    return HttpResponse(
        document,
        content_type="application/json; charset=utf-8",
        headers={"Content-Disposition": content_disposition_header(True, filename)},
    )


@require_http_methods(["GET", "POST"])
def campaign_import(request: HttpRequest) -> HttpResponse:
    """Anyone signed in restores an exported campaign as a new one of their own."""
    user = access.signed_in(request)
    form = CampaignImportForm(posted(request), posted_files(request))
    if request.method == "POST" and form.is_valid() and (campaign := form.apply(user)) is not None:
        messages.success(request, _("Campaña importada: %(name)s.") % {"name": campaign.name})
        return redirect("campaign", campaign.pk)
    context = {"form": form, "max_mb": backup.DOCUMENT_BYTES // (1024 * 1024)}
    return render(request, "campaign_import.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def campaign_delete(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The owner deletes the campaign after typing its name."""
    campaign = access.campaign_for_owner(request.user, campaign_id)
    form = CampaignDeleteForm(posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid() and form.apply(request.user) is not None:
        messages.success(request, _("Campaña «%(name)s» borrada.") % {"name": campaign.name})
        return redirect("home")
    context = {"campaign": campaign, "form": form, "export_url": reverse("campaign_export", args=[campaign.pk])}
    return render(request, "campaign_confirm_delete.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """A player opens the link the GM sent: a claimed (by someone else) or revoked link is 404, as is a made-up one."""
    invite = get_object_or_404(
        Invitation.objects.select_related("campaign", "character").in_play().filter(revoked_at=None), token=token
    )
    if invite.claimed and invite.claimed_by_id != request.user.pk:
        raise Http404
    campaign = invite.campaign
    if request.method == "POST":
        try:
            actions.claim_invitation(token, access.signed_in(request))
        except actions.InvitationGone as gone:
            raise Http404 from gone
        except actions.ActionError as error:  # theirs already, claimed or revoked meanwhile: said, changes nothing
            messages.error(request, error.message)
            member = access.campaigns_of(request.user).filter(pk=campaign.pk).exists()
            return redirect("campaign", campaign.pk) if member else redirect("home")
        if invite.character is None:
            messages.success(request, _("Ahora eres co-narrador de «%(name)s».") % {"name": campaign.name})
            return redirect("campaign", campaign.pk)
        messages.success(request, _("Ahora juegas con %(name)s.") % {"name": invite.character.name})
        return redirect("character", campaign.pk, invite.character.pk)
    context = {"invite": invite, "is_owner": access.is_owner(request.user, campaign)}
    return render(request, "invitation.html", {**context, "is_gm": access.is_gm(request.user, campaign)})
