"""Who may see what: the one place that says it. Views, the sheet and the live streams all ask here.

A campaign's GMs — its owner (Campaign.gm) and its co-GMs (a Membership with the role "gm") — see and change
everything at its table; only the owner deletes it, exports it and names or removes co-GMs (is_owner). A player sees
the campaign and, in full, only their own characters, and of the other characters (their companions) what the party
view allows; anyone else sees nothing, and every lookup answers 404 (not 403) for what a user may not see, so that
another campaign's ids reveal nothing; a co-GM asking for what only the owner may do gets 404 too. Site admins use the
Django admin.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import BigIntegerField, Exists, Model, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Cast
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from campaigns.models import Campaign, GameSession, Membership, PartyView, Role
from characters.models import Character
from config.compiled import Compiled, Slot, together

type Visitor = User | AnonymousUser


def signed_in(request: HttpRequest) -> User:
    """The user behind a request; LoginRequiredMiddleware lets no anonymous visitor reach a view that asks."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def campaigns_of(user: Visitor) -> QuerySet[Campaign]:
    """The campaigns a user may see: those they run and those they play in, each with its owner and with whether
    this user is its co-GM (`viewer`, `viewer_co_gm`: is_gm asks no query of its own then)."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return seen_by(user.pk)


def seen_by(user: int | Slot) -> QuerySet[Campaign]:
    """campaigns_of for a user id, or for a compiled query's slot."""
    co_gm = Membership.objects.filter(campaign=OuterRef("pk"), user=user, role=Role.GM)
    viewer = Cast(Value(user) if isinstance(user, int) else user, BigIntegerField())
    return (
        Campaign.objects.with_session_head()
        .filter(Q(gm=user) | Q(memberships__user=user))
        .select_related("gm")
        .annotate(viewer=viewer, viewer_co_gm=Exists(co_gm))
        .distinct()
    )


# The reads every page and action make, compiled once (config.compiled).
CAMPAIGN_SEEN = Compiled(lambda user, campaign: seen_by(user).filter(pk=campaign))
CAMPAIGN_RUN = Compiled(lambda user, campaign: run_by(user).filter(pk=campaign))
ROLES = Compiled(lambda campaign: Membership.objects.filter(campaign=campaign).values_list("user_id", "role"))
ROSTER = Compiled(
    lambda campaign: Character.everyone.filter(campaign=campaign).select_related("player").order_by("name", "id")
)


def campaign_for_user(user: Visitor, campaign_id: int) -> Campaign:
    found = CAMPAIGN_SEEN.first(user=user.pk, campaign=campaign_id) if user.is_authenticated else None
    if found is None:
        raise Http404
    return found


def campaigns_run_by(user: Visitor) -> QuerySet[Campaign]:
    """The campaigns a user runs: those they own and those they are a co-GM of."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return run_by(user.pk)


def run_by(user: int | Slot) -> QuerySet[Campaign]:
    return Campaign.objects.filter(Q(gm=user) | Q(memberships__user=user, memberships__role=Role.GM)).distinct()


def campaign_for_gm(user: Visitor, campaign_id: int) -> Campaign:
    """A campaign whose table this user runs (its owner or a co-GM): the table's powers."""
    found = CAMPAIGN_RUN.first(user=user.pk, campaign=campaign_id) if user.is_authenticated else None
    if found is None:
        raise Http404
    return found


def table_for_gm[M: Model](user: Visitor, campaign_id: int, read: Compiled[M]) -> tuple[Campaign, list[M]]:
    """`campaign_for_gm`, and the rows `read` gives of that campaign (its one value: the campaign's id) in the same
    round trip: what the table's forms offer. A user who does not run the campaign gets 404, and none of them."""
    if not user.is_authenticated:
        raise Http404
    found, rows = together(
        (CAMPAIGN_RUN, {"user": user.pk, "campaign": campaign_id}), (read, {"campaign": campaign_id})
    )
    if not found:
        raise Http404
    return found[0], rows


def campaign_for_owner(user: Visitor, campaign_id: int) -> Campaign:
    """A campaign this user owns: deleting, exporting, naming and removing co-GMs (404 for a co-GM too)."""
    return get_object_or_404(Campaign, pk=campaign_id, gm_id=user.pk)


def is_owner(user: Visitor, campaign: Campaign) -> bool:
    return user.is_authenticated and campaign.gm_id == user.pk


def is_gm(user: Visitor, campaign: Campaign) -> bool:
    """Whether a user has the GM's powers at this campaign's table: its owner, or a co-GM (one query, unless the
    campaign was read for this user by campaigns_of)."""
    if not isinstance(user, User):
        return False
    if is_owner(user, campaign):
        return True
    if getattr(campaign, "viewer", None) == user.pk:
        return bool(campaign.viewer_co_gm)  # type: ignore[attr-defined]
    return Membership.objects.filter(campaign=campaign, user=user, role=Role.GM).exists()


class Right(StrEnum):
    """What a change asks of whoever makes it. Decided by `holds`, under the campaign's lock, in the change's own
    transaction (rules.actions.core.lock_campaign): a removal, a hand-over or a new owner committed before the lock
    counts, and one that comes later waits for the change. An undo asks the right of what it undoes."""

    OWNER = "owner"  # the campaign's owner alone: naming or removing co-GMs, deleting the campaign
    TABLE = "table"  # the table's powers: the owner or a co-GM
    PLAYER = "player"  # the player of every character the change is about, or one of the campaign's GMs


def holds(campaign: Campaign, user: Visitor, right: Right, characters: Iterable[Character] = ()) -> bool:
    """Whether an account holds a right at this campaign now. `campaign` and `characters` are rows read under the
    campaign's lock; a co-GM's role is read here, under it too (the owner asks no query). A site admin holds every
    right, as in the Django admin, where they change any campaign (no page of the table lets them in: the lookups
    above answer 404)."""
    if not isinstance(user, User):
        return False
    if campaign.gm_id == user.pk or user.is_superuser:
        return True
    if right == Right.OWNER:
        return False
    if Membership.objects.filter(campaign=campaign, user=user, role=Role.GM).exists():
        return True
    characters = list(characters)
    return right == Right.PLAYER and bool(characters) and all(c.player_id == user.pk for c in characters)


@dataclass(frozen=True)
class Audience:
    """Everyone who sees the same things of one campaign: one of its GMs (the owner or a co-GM, who see the same
    table: play.live.streams draws it once for them all), or one player (all their tabs and phones)."""

    campaign_id: int
    user_id: int
    is_gm: bool

    @property
    def player_id(self) -> int | None:
        return None if self.is_gm else self.user_id


def table_of(campaign: Campaign) -> Audience:
    """What the campaign's GMs see (drawn as its owner sees it: every GM sees the same table)."""
    return Audience(campaign.pk, campaign.gm_id, is_gm=True)


def audience_of(user: Visitor, campaign: Campaign) -> Audience:
    if not user.is_authenticated:
        raise PermissionDenied
    return Audience(campaign.pk, user.pk, is_gm=is_gm(user, campaign))


def sees(audience: Audience, character: Character) -> bool:
    """Whether an audience sees a character in full: the GM every one in play, a player only their own."""
    return not character.removed and may_open(audience, character)


def may_open(audience: Audience, character: Character) -> bool:
    """Whether an audience may keep a character's sheet open: those it sees, and those removed from the campaign that
    it saw (an open sheet says the character left, and an undo brings it back)."""
    in_campaign = character.campaign_id == audience.campaign_id
    return in_campaign and (audience.is_gm or character.player_id == audience.user_id)


# The party views that show a companion at all (as its PG or as a word); "hidden" leaves it out, name and all.
SHOWN = (PartyView.EXACT, PartyView.BAND)


def seen_as(character: Character, campaign: Campaign) -> PartyView:
    """How the other players see a character: its own party view, else its campaign's."""
    return PartyView(character.party_view or campaign.party_view)


@dataclass
class Roster:
    """A campaign's characters (those removed too, with their players) and members, read once (roster_of) for every
    audience that asks what it sees: a change draws the GM's table and each player's page from the same rows."""

    campaign: Campaign
    characters: tuple[Character, ...]  # in name order, as ROSTER reads them

    def __post_init__(self) -> None:
        for character in self.characters:
            character.campaign = self.campaign  # as campaign.characters gives it: no query for it again

    @property
    def table(self) -> Audience:
        """What its GMs see (`table_of`)."""
        return table_of(self.campaign)

    @cached_property
    def roles(self) -> dict[int, str]:
        """The campaign's members (players and co-GMs) by user id, with their role: read when first asked."""
        return dict(ROLES.rows(campaign=self.campaign.pk))

    @property
    def members(self) -> frozenset[int]:
        """The user ids of the campaign's members (a co-GM who plays a character plays it as any player)."""
        return frozenset(self.roles)

    def is_co_gm(self, user_id: int) -> bool:
        return self.roles.get(user_id) == Role.GM

    def seen_by(self, audience: Audience) -> list[Character]:
        """The characters an audience sees in full: every one in play for its GM, only their own for a player."""
        return [character for character in self.characters if sees(audience, character)]

    def sheet(self, audience: Audience, pk: int | None) -> Character | None:
        """A character whose sheet this audience may keep open (may_open), or None."""
        return next((c for c in self.characters if c.pk == pk and may_open(audience, c)), None)

    def companions_of(self, audience: Audience) -> list[Character]:
        """The other characters in play a player sees beside their own (their companions): those whose party view
        (seen_as) is not "hidden". None for a member who plays no character here (as still_sees), and none for the GM,
        who sees every character in full."""
        if audience.is_gm or not self.seen_by(audience):
            return []
        return [c for c in self.others(audience) if not c.removed and seen_as(c, self.campaign) in SHOWN]

    def kept_from(self, audience: Audience) -> frozenset[int]:
        """The characters a player may not even see named (their party view is "hidden"): a log on their own sheet
        says "Alguien" for such a healer. None for the GM, who sees everyone."""
        hidden = [c.pk for c in self.others(audience) if seen_as(c, self.campaign) == PartyView.HIDDEN]
        return frozenset(hidden)

    def others(self, audience: Audience) -> list[Character]:
        """The characters that are not this player's (none for the GM)."""
        if audience.is_gm:
            return []
        return [character for character in self.characters if character.player_id != audience.user_id]

    def still_sees(self, audience: Audience) -> bool:
        """Whether an audience may still watch the campaign: a GM while they own it or are its co-GM, a player while
        they are a member and play a character in it. Live streams ask again at every change (the admin may have
        changed the owner, the owner may have removed a co-GM, the GM may have given a character to someone else)."""
        if audience.is_gm:
            return self.campaign.gm_id == audience.user_id or self.is_co_gm(audience.user_id)
        return audience.user_id in self.members and bool(self.seen_by(audience))


def roster_of(campaign: Campaign) -> Roster:
    """The campaign's roster: one query (and one for its members when a player's access is asked)."""
    return Roster(campaign, tuple(ROSTER.list(campaign=campaign.pk)))


def still_sees(audience: Audience) -> bool:
    """Whether an audience may still watch its campaign (Roster.still_sees): False when it is gone."""
    campaign = Campaign.objects.filter(pk=audience.campaign_id).first()
    return campaign is not None and roster_of(campaign).still_sees(audience)


def character_for_user(user: Visitor, campaign_id: int, character_id: int) -> Character:
    """A character whose sheet this user may read: the GM's campaign's, or the player's own."""
    campaign = campaign_for_user(user, campaign_id)
    character = get_object_or_404(campaign.characters.select_related("player"), pk=character_id)
    if not sees(audience_of(user, campaign), character):
        raise Http404
    character.campaign = campaign
    return character


def character_for_gm(user: Visitor, campaign_id: int, character_id: int) -> Character:
    campaign = campaign_for_gm(user, campaign_id)
    character = get_object_or_404(campaign.characters.select_related("player"), pk=character_id)
    character.campaign = campaign
    return character


def session_for_user(user: Visitor, campaign_id: int, number: int) -> GameSession:
    """A game session whose recap this user may read: any of the GM's campaign, and for a player of the campaign one
    whose recap the GM shared (which one of it they read is play.log.recaps'); else 404."""
    campaign = campaign_for_user(user, campaign_id)
    session = get_object_or_404(
        GameSession.objects.select_related("started", "ended"), campaign=campaign, number=number
    )
    if not is_gm(user, campaign) and not session.shared:
        raise Http404
    session.campaign = campaign
    return session
