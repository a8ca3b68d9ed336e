"""Campaigns and the people in them: the home page, creating a campaign, signing up, claiming an invitation."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from campaigns import access
from campaigns.forms import CampaignForm, SignupForm
from campaigns.models import Campaign, Invitation, Membership


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
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = form.save(commit=False)
        campaign.gm = access.signed_in(request)
        campaign.save()
        return redirect("campaign", campaign.pk)
    return render(request, "campaign_form.html", {"form": form}, status=400 if form.errors else 200)


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_OPEN:
        raise Http404
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        next_url = request.POST.get("next", "")
        return redirect(next_url if next_url.startswith("/") and not next_url.startswith("//") else "home")
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": request.GET.get("next", request.POST.get("next", ""))},
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    invite = get_object_or_404(Invitation.objects.select_related("campaign", "character"), token=token)
    if invite.claimed and invite.claimed_by_id != request.user.pk:
        raise Http404
    campaign = invite.campaign
    is_gm = access.is_gm(request.user, campaign)
    if request.method == "POST":
        if is_gm:
            messages.error(request, _("Eres el narrador de esta campaña: no puedes reclamar un personaje."))
            return redirect("campaign", campaign.pk)
        user = access.signed_in(request)
        with transaction.atomic():
            invite = get_object_or_404(Invitation.objects.select_for_update(), pk=invite.pk, claimed_by=None)
            invite.claimed_by = user
            invite.claimed_at = timezone.now()
            invite.save(update_fields=["claimed_by", "claimed_at"])
            Membership.objects.get_or_create(campaign=campaign, user=user)
            invite.character.player = user
            invite.character.save(update_fields=["player"])
        messages.success(request, _("Ahora juegas con %(name)s.") % {"name": invite.character.name})
        return redirect("character", campaign.pk, invite.character.pk)
    return render(request, "invitation.html", {"invite": invite, "is_gm": is_gm})
