"""Who may see what: the one place that says it. Views, the sheet and the live streams all ask here.

A campaign's GM sees and changes everything in it; a player sees the campaign and, in full, only their own
characters, and of the other characters (their companions) what the party view allows; anyone else sees nothing,
and every lookup answers 404 (not 403) for what a user may not see, so that another campaign's ids reveal nothing.
Site admins use the Django admin.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, Q, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign, Membership, PartyView
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
    """Everyone who sees the same things of one campaign: its GM, or one player (all their tabs and phones)."""

    campaign_id: int
    user_id: int
    is_gm: bool

    @property
    def player_id(self) -> int | None:
        return None if self.is_gm else self.user_id


def table_of(campaign: Campaign) -> Audience:
    """What the campaign's GM sees, whoever that is now."""
    return Audience(campaign.pk, campaign.gm_id, is_gm=True)


def audience_of(user: Visitor, campaign: Campaign) -> Audience:
    if not user.is_authenticated:
        raise PermissionDenied
    return Audience(campaign.pk, user.pk, is_gm=is_gm(user, campaign))


def characters_seen_by(audience: Audience) -> QuerySet[Character]:
    """The characters an audience sees: every one of the campaign for its GM, only their own for a player."""
    characters = Character.objects.filter(campaign_id=audience.campaign_id)
    if not audience.is_gm:
        characters = characters.filter(player_id=audience.user_id)
    return characters


def sheets_of(audience: Audience) -> QuerySet[Character]:
    """The sheets an audience may keep open: those of the characters it sees, and of those removed from the campaign
    that it saw (an open sheet says the character left, and an undo brings it back)."""
    characters = Character.everyone.filter(campaign_id=audience.campaign_id)
    if not audience.is_gm:
        characters = characters.filter(player_id=audience.user_id)
    return characters


# The party views that show a companion at all (as its PG or as a word); "hidden" leaves it out, name and all.
SHOWN = (PartyView.EXACT, PartyView.BAND)


def companions_seen_by(audience: Audience) -> QuerySet[Character]:
    """The other characters of the campaign a player sees beside their own (their companions): those whose party
    view (seen_as) is not "hidden". Removed characters never; none for a member who plays no character here (as
    still_sees), and none for the GM, who sees every character in full (characters_seen_by)."""
    if audience.is_gm:
        return Character.objects.none()
    own = Character.objects.filter(campaign_id=audience.campaign_id, player_id=audience.user_id)
    return (
        Character.objects.filter(campaign_id=audience.campaign_id)
        .exclude(player_id=audience.user_id)
        .filter(Q(party_view__in=SHOWN) | Q(party_view="", campaign__party_view__in=SHOWN))
        .filter(Exists(own))
    )


def kept_from(audience: Audience) -> frozenset[int]:
    """The characters a player may not even see named (their party view is "hidden"): a log on their own sheet says
    "Alguien" for such a healer. None for the GM, who sees everyone; no query then."""
    if audience.is_gm:
        return frozenset()
    hidden = Q(party_view=PartyView.HIDDEN) | Q(party_view="", campaign__party_view=PartyView.HIDDEN)
    others = Character.objects.filter(campaign_id=audience.campaign_id).exclude(player_id=audience.user_id)
    return frozenset(others.filter(hidden).values_list("pk", flat=True))


def seen_as(character: Character, campaign: Campaign) -> PartyView:
    """How the other players see a character: its own party view, else its campaign's."""
    return PartyView(character.party_view or campaign.party_view)


def still_sees(audience: Audience, campaign: Campaign | None = None) -> bool:
    """Whether an audience may still watch its campaign: the GM while they are its GM, a player while they are a
    member and play a character in it. Live streams ask again at every change (the admin may have changed the GM, the
    GM may have given a character to someone else), given the campaign's row as it stands if they have it."""
    if campaign is None:
        gm_id = Campaign.objects.filter(pk=audience.campaign_id).values_list("gm_id", flat=True).first()
    else:
        gm_id = campaign.gm_id
    if gm_id is None:
        return False
    if audience.is_gm:
        return gm_id == audience.user_id
    return (
        Membership.objects.filter(campaign_id=audience.campaign_id, user_id=audience.user_id).exists()
        and characters_seen_by(audience).exists()
    )


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
