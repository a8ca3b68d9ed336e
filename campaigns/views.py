from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.core.handlers.asgi import ASGIRequest
from django.db import connections, transaction
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from characters.cards import cards_for

from . import live
from .forms import CampaignForm, SignupForm
from .models import Campaign, Invitation, Membership
from .table import table_context


def get_campaign_for_user(request: HttpRequest, campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign.objects.for_user(request.user), pk=campaign_id)


def get_campaign_for_gm(request: HttpRequest, campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id, gm=request.user)


def home(request: HttpRequest) -> HttpResponse:
    user = request.user
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
        campaign.gm = request.user
        campaign.save()
        return redirect("campaign", campaign.pk)
    return render(request, "campaign_form.html", {"form": form}, status=400 if form.errors else 200)


def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_user(request, campaign_id)
    if campaign.is_gm(request.user):
        context = table_context(campaign)
        context["invitations"] = campaign.invitations.filter(claimed_by=None).select_related("character")
        return render(request, "campaign.html", context)
    cards = cards_for(campaign, campaign.characters.filter(player=request.user))
    return render(request, "campaign_player.html", {"campaign": campaign, "cards": cards, "read_only": True})


def release_connection() -> None:
    connections["default"].close()  # with the pool on, this gives the connection back


async def campaign_stream(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's live Server-Sent Events stream for this user's audience (the GM, or one player)."""
    user = await request.auser()
    campaign = await Campaign.objects.for_user(user).filter(pk=campaign_id).afirst()
    if campaign is None:
        raise Http404
    if not isinstance(request, ASGIRequest):
        # Under WSGI (runserver, the test live server) a stream would hold a whole thread forever: no live updates
        # there, and 204 tells the browser's EventSource not to retry. `make run` and Docker serve ASGI.
        return HttpResponse(status=204)
    audience = live.Audience(campaign.pk, None if campaign.gm_id == user.pk else user.pk)
    # A stream lasts as long as the browser stays; its request must not keep a pooled connection all that time.
    await sync_to_async(release_connection)()
    response = StreamingHttpResponse(live.stream(audience), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


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
    if request.method == "POST":
        if campaign.is_gm(request.user):
            messages.error(request, _("Eres el narrador de esta campaña: no puedes reclamar un personaje."))
            return redirect("campaign", campaign.pk)
        with transaction.atomic():
            invite = get_object_or_404(Invitation.objects.select_for_update(), pk=invite.pk, claimed_by=None)
            invite.claimed_by = request.user
            invite.claimed_at = timezone.now()
            invite.save(update_fields=["claimed_by", "claimed_at"])
            Membership.objects.get_or_create(campaign=campaign, user=request.user)
            invite.character.player = request.user
            invite.character.save(update_fields=["player"])
        messages.success(request, _("Ahora juegas con %(name)s.") % {"name": invite.character.name})
        return redirect("character", campaign.pk, invite.character.pk)
    return render(request, "invitation.html", {"invite": invite, "is_gm": campaign.is_gm(request.user)})
