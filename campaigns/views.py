"""Campaigns and the people in them: the home page, creating, exporting, importing and deleting a campaign, signing
up, claiming an invitation."""

import json
import re
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header, url_has_allowed_host_and_scheme
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from campaigns import access, throttle
from campaigns.forms import CampaignDeleteForm, CampaignForm, CampaignImportForm, LoginForm, SignupForm
from campaigns.models import TOKEN_PATTERN, Campaign, Invitation
from rules import actions
from rules.actions.campaign import DOCUMENT_BYTES
from rules.forms import posted, posted_files, refuse


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    user = access.signed_in(request)
    return render(
        request,
        "home.html",
        {
            "campaigns_run": Campaign.objects.filter(gm=user),
            "campaigns_played": Campaign.objects.filter(memberships__user=user).exclude(gm=user),
        },
    )


@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(posted(request))
    if request.method == "POST" and form.is_valid():
        try:
            campaign = actions.create_campaign(form.cleaned_data["name"], access.signed_in(request))
        except actions.ActionError as error:
            refuse(form, error)
        else:
            return redirect("campaign", campaign.pk)
    return render(request, "campaign_form.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
def campaign_export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM downloads the whole campaign as one JSON document (rules.actions.export_campaign)."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    document = json.dumps(actions.export_campaign(campaign), ensure_ascii=False, indent=1)
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
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            data = upload.read(DOCUMENT_BYTES + 1)
            campaign = actions.import_campaign(actions.read_document(data), user)
        except actions.ActionError as error:
            form.add_error("file", error.message)
        else:
            messages.success(request, _("Campaña «%(name)s» importada.") % {"name": campaign.name})
            return redirect("campaign", campaign.pk)
    context = {"form": form, "max_mb": DOCUMENT_BYTES // (1024 * 1024)}
    return render(request, "campaign_import.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def campaign_delete(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM deletes the campaign after typing its name."""
    campaign = access.campaign_for_gm(request.user, campaign_id)
    form = CampaignDeleteForm(posted(request))
    if request.method == "POST" and form.is_valid():
        try:
            actions.delete_campaign(campaign, by=request.user, typed_name=form.cleaned_data["name"])
        except actions.ActionError as error:
            form.add_error("name", error.message)
        else:
            messages.success(request, _("Campaña «%(name)s» borrada.") % {"name": campaign.name})
            return redirect("home")
    context = {"campaign": campaign, "form": form, "export_url": reverse("campaign_export", args=[campaign.pk])}
    return render(request, "campaign_confirm_delete.html", context, status=400 if form.errors else 200)


def invitation_in(next_url: str) -> Invitation | None:
    """The pending invitation a visitor is on their way to (`next=/invite/<token>/`), so that the login and sign-up
    pages can say who invited them and to play whom."""
    match = re.fullmatch(f"/invite/({TOKEN_PATTERN})/", next_url)
    if match is None:
        return None
    return (
        Invitation.objects.pending()
        .filter(token=match[1], character__removed=False)
        .select_related("campaign", "character")
        .first()
    )


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_invalid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        return self.render_to_response(self.get_context_data(form=form), status=400)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["invite"] = invitation_in(str(context.get("next") or ""))
        return context


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_OPEN:
        raise Http404
    form = SignupForm(posted(request))
    next_url = request.GET.get("next", request.POST.get("next", ""))
    context = {"form": form, "next": next_url, "invite": invitation_in(next_url)}
    if request.method == "POST" and not throttle.signup_allowed(request):
        return render(request, "registration/signup.html", context | {"refused": throttle.signup_refused()}, status=429)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        throttle.record_signup(request)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        next_url = request.POST.get("next", "")
        safe = url_has_allowed_host_and_scheme(next_url, allowed_hosts=None) and next_url.startswith("/")
        return redirect(next_url if safe else "home")
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """A player opens the link the GM sent: a claimed (by someone else) or revoked link is 404, as is a made-up one."""
    invite = get_object_or_404(
        Invitation.objects.select_related("campaign", "character").filter(revoked_at=None, character__removed=False),
        token=token,
    )
    if invite.claimed and invite.claimed_by_id != request.user.pk:
        raise Http404
    campaign = invite.campaign
    is_gm = access.is_gm(request.user, campaign)
    if request.method == "POST":
        try:
            actions.claim_invitation(token, access.signed_in(request))
        except actions.InvitationGone as gone:
            raise Http404 from gone
        except actions.ActionError as error:
            messages.error(request, error.message)
            return redirect("campaign", campaign.pk)
        messages.success(request, _("Ahora juegas con %(name)s.") % {"name": invite.character.name})
        return redirect("character", campaign.pk, invite.character.pk)
    return render(request, "invitation.html", {"invite": invite, "is_gm": is_gm})
