"""Who may see what: the one place that says it. Views, the sheet and the live streams all ask here.

A campaign's GM sees and changes everything in it; a player sees the campaign and, in full, only their own
characters; anyone else sees nothing, and every lookup answers 404 (not 403) for what a user may not see, so that
another campaign's ids reveal nothing. Site admins use the Django admin.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign
from characters.models import Character

type Visitor = User | AnonymousUser


def signed_in(request: HttpRequest) -> User:
    """The user behind a request; LoginRequiredMiddleware lets no anonymous visitor reach a view that asks."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def campaigns_of(user: Visitor) -> QuerySet[Campaign]:
    """The campaigns a user may see: those they run and those they play in."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(Q(gm=user) | Q(memberships__user=user)).distinct()


def campaign_for_user(user: Visitor, campaign_id: int) -> Campaign:
    return get_object_or_404(campaigns_of(user), pk=campaign_id)


def campaign_for_gm(user: Visitor, campaign_id: int) -> Campaign:
    return get_object_or_404(Campaign, pk=campaign_id, gm_id=user.pk)


def is_gm(user: Visitor, campaign: Campaign) -> bool:
    return user.is_authenticated and campaign.gm_id == user.pk


@dataclass(frozen=True)
class Audience:
    """Everyone who sees the same things of one campaign: its GM (player_id None) or one player."""

    campaign_id: int
    player_id: int | None = None

    @property
    def is_gm(self) -> bool:
        return self.player_id is None


def audience_of(user: Visitor, campaign: Campaign) -> Audience:
    return Audience(campaign.pk, None if is_gm(user, campaign) else user.pk)


def characters_seen_by(audience: Audience) -> QuerySet[Character]:
    """The characters an audience sees: every one of the campaign for its GM, only their own for a player."""
    characters = Character.objects.filter(campaign_id=audience.campaign_id)
    if audience.player_id is not None:
        characters = characters.filter(player_id=audience.player_id)
    return characters


def character_for_user(user: Visitor, campaign_id: int, character_id: int) -> Character:
    """A character whose sheet this user may read: the GM's campaign's, or the player's own."""
    campaign = campaign_for_user(user, campaign_id)
    seen = characters_seen_by(audience_of(user, campaign))
    character = get_object_or_404(seen.select_related("player"), pk=character_id)
    character.campaign = campaign
    return character


def character_for_gm(user: Visitor, campaign_id: int, character_id: int) -> Character:
    campaign = campaign_for_gm(user, campaign_id)
    character = get_object_or_404(campaign.characters.select_related("player"), pk=character_id)
    character.campaign = campaign
    return character
