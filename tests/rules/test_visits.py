"""Where an account last saw a campaign (rules.actions.visits): a first visit tells nothing, a later one tells what was
logged since, a panel waits until dismissed, a stream that ends marks what it showed — and none of it is game state:
nothing logged, no version bumped."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import connection

from campaigns.models import Campaign, Event, Visit
from rules import actions
from rules.actions import visits
from rules.damage import Attack
from tests.helpers import World


def hurt(world: World, amount: int = 3) -> int:
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=amount), by=world.gm_a)
    return Event.objects.filter(campaign=world.campaign_a).latest("id").pk


def mark(world: World, user) -> Visit:
    return Visit.objects.get(user=user, campaign=world.campaign_a)


def test_a_first_visit_tells_nothing_and_marks_the_latest_event(world: World):
    latest = hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) is None
    assert (mark(world, world.player_a).seen, mark(world, world.player_a).since) == (latest, None)


def test_a_campaign_with_no_log_yet_is_marked_at_zero(world: World):
    assert visits.opened(world.campaign_b, world.gm_b) is None
    assert Visit.objects.get(user=world.gm_b, campaign=world.campaign_b).seen == 0


def test_nothing_logged_since_tells_nothing(world: World):
    hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    assert visits.opened(world.campaign_a, world.player_a) is None


def test_what_was_logged_since_is_told_from_the_old_mark_until_dismissed(world: World):
    seen = hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    latest = hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == seen
    assert visits.opened(world.campaign_a, world.player_a) == seen  # a reload: the same panel
    newer = hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == seen  # still from where they had last seen
    assert mark(world, world.player_a).seen == newer > latest

    visits.dismissed(world.campaign_a, world.player_a)
    assert visits.opened(world.campaign_a, world.player_a) is None  # another tab reloads: nothing
    hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == newer  # only what came after


def test_each_account_and_campaign_has_its_own_mark(world: World):
    first = hurt(world)
    for user in (world.player_a, world.player_a2, world.co_gm):
        visits.opened(world.campaign_a, user)
    hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    visits.dismissed(world.campaign_a, world.player_a)
    assert visits.opened(world.campaign_a, world.player_a2) == first
    assert visits.opened(world.campaign_a, world.co_gm) == first
    assert visits.opened(world.campaign_a, world.player_a) is None
    assert not Visit.objects.filter(campaign=world.campaign_b).exists()
    visits.opened(world.campaign_a, world.gm_a)
    hurt(world)
    assert visits.opened(world.campaign_a, world.gm_a) is None  # who hurt them: their own doing is no news


def test_a_stream_that_ended_marks_what_it_showed_as_seen_and_keeps_a_waiting_panel(world: World):
    first = hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    visits.opened(world.campaign_a, world.player_a2)
    shown = hurt(world)  # seen live on player_a's page
    later = hurt(world)  # after the stream had ended: news
    visits.watched(world.campaign_a.pk, world.player_a.pk, shown)
    assert mark(world, world.player_a).seen == shown
    assert visits.opened(world.campaign_a, world.player_a) == shown
    assert mark(world, world.player_a).seen == later

    visits.opened(world.campaign_a, world.player_a2)  # a panel from `first` waits
    visits.watched(world.campaign_a.pk, world.player_a2.pk, later)
    assert visits.opened(world.campaign_a, world.player_a2) == first


def test_what_live_screens_showed_is_no_news_though_not_marked_yet(world: World):
    """A page opened while the account's streams have shown changes they have not marked yet (a reload: the old
    page's stream ends after the new page is drawn) counts them as seen; what came after them is news from there."""
    visits.opened(world.campaign_a, world.player_a)
    shown = hurt(world)  # seen live
    assert visits.opened(world.campaign_a, world.player_a, shown=shown) is None
    assert mark(world, world.player_a).seen == shown
    shown = hurt(world)
    later = hurt(world)  # after what the streams showed: news, from there
    assert visits.opened(world.campaign_a, world.player_a, shown=shown) == shown
    assert mark(world, world.player_a).seen == later
    hurt(world)
    assert visits.opened(world.campaign_a, world.player_a, shown=later + 1) == shown  # a waiting panel stays


def test_a_stream_never_moves_a_mark_back_nor_makes_one(world: World):
    older = hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    newer = hurt(world)
    visits.opened(world.campaign_a, world.player_a)  # a later load marked the newer event
    visits.watched(world.campaign_a.pk, world.player_a.pk, older)  # an older tab's stream ends
    assert mark(world, world.player_a).seen == newer
    visits.watched(world.campaign_a.pk, world.player_a2.pk, newer)  # never opened: no mark to move, none made
    assert not Visit.objects.filter(user=world.player_a2).exists()


def test_told_nothing_lets_go_of_that_panel_only(world: World):
    first = hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == first
    visits.told_nothing(world.campaign_a, world.player_a, first + 1)  # another panel's: not this one
    assert mark(world, world.player_a).since == first
    visits.told_nothing(world.campaign_a, world.player_a, first)
    assert mark(world, world.player_a).since is None


def test_marks_are_not_game_state_nothing_logged_no_version_bumped(world: World):
    hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    hurt(world)
    events = Event.objects.count()
    version = Campaign.objects.get(pk=world.campaign_a.pk).version
    visits.opened(world.campaign_a, world.player_a)
    visits.watched(world.campaign_a.pk, world.player_a.pk, Event.objects.latest("id").pk)
    visits.dismissed(world.campaign_a, world.player_a)
    assert Campaign.objects.get(pk=world.campaign_a.pk).version == version
    assert Event.objects.count() == events


def test_nobody_signed_in_has_no_mark(world: World):
    hurt(world)
    assert visits.opened(world.campaign_a, AnonymousUser()) is None
    assert visits.opened(world.campaign_a, None) is None
    visits.dismissed(world.campaign_a, AnonymousUser())
    assert not Visit.objects.exists()


def test_a_deleted_campaign_takes_its_marks_along(world: World):
    visits.opened(world.campaign_b, world.gm_b)
    actions.delete_campaign(world.campaign_b, by=world.gm_b, typed_name="B")
    assert not Visit.objects.exists()


def test_a_page_load_with_nothing_new_writes_no_row(world: World):
    """Opening a page is a read when nothing was logged since the mark: the visit's row stays the same row version
    (its ctid), and the panel that waits is still told."""
    seen = hurt(world)
    visits.opened(world.campaign_a, world.player_a)
    hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == seen  # a panel waits

    def version() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT ctid::text FROM campaigns_visit WHERE user_id = %s", [world.player_a.pk])
            return str(cursor.fetchone()[0])

    before = version()
    assert visits.opened(world.campaign_a, world.player_a) == seen  # a reload: the same panel, nothing written
    assert visits.opened(world.campaign_a, world.player_a) == seen
    assert version() == before
    hurt(world)
    assert visits.opened(world.campaign_a, world.player_a) == seen
    assert version() != before  # something new: the mark moves
