"""Where an account last saw a campaign (campaigns.models.Visit): the marker behind "Desde tu última visita".

Moving it is a change of state, but not of the game's: nothing here is logged in the campaign's log, bumps the
campaign's version or notifies anyone (no screen but the account's own next page load shows it), and no campaign lock
is taken — an account's marker is its own row, each write one statement, so that two tabs opening or dismissing at
once cannot lose a step. Every function costs one query.

- `opened`: a page (the player's page, the GM's table) is drawn now. Marks the campaign's latest event as seen and
  says where an undismissed panel counts from: the old mark when someone else logged something since it, kept while a
  panel waits; None at an account's first visit and when nothing but its own actions was logged since the last.
  What the account's live screens showed (`shown`: their latest change, which their streams mark only when they
  end) counts as seen already.
- `watched`: a live stream of that page ended having shown every change up to an event: those are not news at the
  next visit.
- `dismissed`: the panel's "Entendido": no panel until something new is logged.
- `told_nothing`: the panel counted from `since` had nothing for this account (all of it hidden from them, or since
  undone): it waits no more.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BigIntegerField, Value
from django.db.models.functions import Greatest

from campaigns.models import Campaign, Visit
from rules.actions.core import Actor, user_of

# One statement: the first visit is created with nothing to tell; a later one moves `seen` to the latest event and,
# if something logged beyond the old mark and what the account's live screens showed (`shown`) is news — done by
# anyone but the account itself: its own actions, from any page or device, are never news to it — keeps (or starts)
# `since` there. The right-hand sides all read the row as it was. When nothing was logged since the mark, no row is
# written (a page load is then a read: nothing to flush to disk), and the row as it stands says where a waiting panel
# counts from.
_OPENED = """
WITH moved AS (
    INSERT INTO campaigns_visit (user_id, campaign_id, seen, since)
    VALUES (
        %(user)s, %(campaign)s, COALESCE((SELECT max(id) FROM campaigns_event WHERE campaign_id = %(campaign)s), 0),
        NULL
    )
    ON CONFLICT (user_id, campaign_id) DO UPDATE SET
        since = CASE
            WHEN EXISTS (
                SELECT 1 FROM campaigns_event
                WHERE campaign_id = %(campaign)s AND id > GREATEST(campaigns_visit.seen, %(shown)s)
                AND actor_id IS DISTINCT FROM %(user)s
            )
            THEN COALESCE(campaigns_visit.since, GREATEST(campaigns_visit.seen, %(shown)s))
            ELSE campaigns_visit.since
        END,
        seen = EXCLUDED.seen
    WHERE EXCLUDED.seen > campaigns_visit.seen
    RETURNING since
)
SELECT since FROM moved
UNION ALL
SELECT since FROM campaigns_visit
WHERE user_id = %(user)s AND campaign_id = %(campaign)s AND NOT EXISTS (SELECT 1 FROM moved)
"""


def opened(campaign: Campaign, by: Actor, shown: int = 0) -> int | None:
    """`by` opens the campaign's page now: the event its panel counts from (after), or None for no panel. `shown`:
    the latest event the account's live screens of the campaign have shown (not news, though not marked yet)."""
    user = user_of(by)
    if user is None:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_OPENED, {"user": user.pk, "campaign": campaign.pk, "shown": shown})
        row = cursor.fetchone()
    return None if row is None or row[0] is None else int(row[0])


def watched(campaign_id: int, user_id: int, upto: int) -> None:
    """A live stream of the account's page ended having shown every change up to event `upto` (a mark only moves on;
    an account that never opened the page has none to move)."""
    Visit.objects.filter(user_id=user_id, campaign_id=campaign_id).update(
        seen=Greatest("seen", Value(upto, BigIntegerField()))
    )


def dismissed(campaign: Campaign, by: Actor) -> None:
    """The account put its panel away ("Entendido"): only what is logged from now on is news."""
    if (user := user_of(by)) is not None:
        Visit.objects.filter(user_id=user.pk, campaign_id=campaign.pk).update(since=None)


def told_nothing(campaign: Campaign, by: Actor, since: int) -> None:
    """The panel counted from `since` had nothing this account may read: none waits (unless another tab moved it)."""
    if (user := user_of(by)) is not None:
        Visit.objects.filter(user_id=user.pk, campaign_id=campaign.pk, since=since).update(since=None)
