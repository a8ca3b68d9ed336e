"""Rights decided at the moment of the change (issue 48): who may act, and who may undo what, is decided under the
campaign's lock in the action's own transaction. A co-GM's request that meets their removal, or a player's that meets
the hand-over of their character, lands wholly before it or is refused; a co-GM's undo never reverses what only the
owner may do. Real concurrent connections, each committing."""

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from campaigns.models import Event, GameSession, Invitation, Membership, Role
from characters.models import Character
from rules import actions
from rules.actions import Call
from rules.damage import Attack
from rules.events import EventKind
from rules.models import CalledCheck, CheckKind
from tests.helpers import HTMX, World, client_for, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)

# --- a co-GM's undo and the owner's decisions ------------------------------------------------------------------------


def link_made(world: World) -> Event:
    return actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a).event


def link_revoked(world: World) -> Event:
    link = link_made(world)
    return actions.revoke_co_gm_invitation(world.campaign_a, link.details["invitation"], by=world.gm_a).event


def co_gm_joined(world: World) -> Event:
    link = link_made(world)
    token = Invitation.objects.get(pk=link.details["invitation"]).token
    return actions.claim_invitation(token, world.ex_co_gm).event


def co_gm_removed(world: World) -> Event:
    return actions.remove_co_gm(world.campaign_a, world.co_gm.pk, by=world.gm_a).event


# Each event kind that only the owner may make, made by the owner (the join: through the owner's link), and the
# co-GM who then tries to undo it: co_gm, or (for the removal, which removes co_gm) a second co-GM.
OWNER_ONLY: dict[str, Callable[[World], Event]] = {
    EventKind.CO_GM_LINK: link_made,
    "co_gm_link_revoked": link_revoked,
    EventKind.CO_GM_JOINED: co_gm_joined,
    EventKind.CO_GM_REMOVED: co_gm_removed,
}


def roles(world: World) -> dict[int, str]:
    return dict(Membership.objects.filter(campaign=world.campaign_a).values_list("user_id", "role"))


def links(world: World) -> list[tuple]:
    rows = Invitation.objects.filter(campaign=world.campaign_a, role=Role.GM).order_by("pk")
    return list(rows.values_list("pk", "revoked_at", "claimed_by"))


@pytest.mark.django_db  # one request after another: no thread of its own needed (a browser test's loop is on this one)
@pytest.mark.parametrize("kind", OWNER_ONLY)
def test_a_co_gm_cannot_undo_what_only_the_owner_may_do_and_is_told_why(world: World, kind: str):
    undoer = world.co_gm
    if kind == EventKind.CO_GM_REMOVED:  # co_gm is the one removed: another co-GM tries
        undoer = world.outsider
        Membership.objects.create(campaign=world.campaign_a, user=undoer, role=Role.GM)
    event = OWNER_ONLY[kind](world)
    before = (roles(world), links(world))

    # The table the co-GM sees does not offer it, and says why; the owner's offers it.
    table = reverse("campaign", args=[world.campaign_a.pk])
    co_gm_page = client_for(undoer).get(table).content.decode()
    assert 'id="undo-form" class="co-gm"' in co_gm_page
    assert 'class="secondary owner-only" id="undo-submit"' in co_gm_page
    assert "solo puede deshacerlo quien creó la campaña" in co_gm_page
    owner_page = client_for(world.gm_a).get(table).content.decode()
    assert 'id="undo-form" method="post"' in owner_page  # no "co-gm" class: the button shows

    # Sent anyway (an old page, a forged form): refused in words, nothing changes.
    url = reverse("undo", args=[world.campaign_a.pk])
    answer = client_for(undoer).post(url, {"event": str(event.pk)}, **HTMX)
    assert answer.status_code == 200
    assert "solo puede deshacerlo quien creó la campaña" in answer.content.decode()
    assert (roles(world), links(world)) == before
    assert not Event.objects.get(pk=event.pk).undone
    with pytest.raises(actions.ActionError, match="quien creó la campaña"):
        actions.undo(world.campaign_a, by=undoer)

    # The owner may.
    actions.undo(world.campaign_a, by=world.gm_a, event=event.pk)
    assert Event.objects.get(pk=event.pk).undone


@pytest.mark.django_db
def test_a_co_gm_still_undoes_what_the_table_may_do(world: World):
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    page = client_for(world.co_gm).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert 'class="secondary" id="undo-submit"' in page and "owner-only" not in page
    actions.undo(world.campaign_a, by=world.co_gm, event=event.pk)
    assert Character.objects.get(pk=world.char_a1.pk).pg == 80


# --- a request racing the change of its sender's rights --------------------------------------------------------------


def lock_waiters() -> int:
    """How many connections to this test database wait for a row lock now (a fresh read of the statistics each
    time; another pytest worker's database is not this one)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def sent_while_rights_change(
    campaign_id: int, send: Callable[[], HttpResponse], change: Callable[[], object]
) -> HttpResponse:
    """`send` a request that passes the page's own look-up and then waits for the campaign's lock, held here; while
    it waits, `change` the sender's rights and commit; then let it go. Its status."""
    statuses: list[HttpResponse] = []
    errors: list[BaseException] = []

    def request() -> None:
        try:
            statuses.append(send())
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM campaigns_campaign WHERE id = %s FOR UPDATE", [campaign_id])
        thread = threading.Thread(target=request)
        thread.start()
        deadline = time.monotonic() + 30
        while lock_waiters() == 0:
            assert thread.is_alive() and time.monotonic() < deadline, errors or statuses
            time.sleep(0.01)
        change()
    thread.join(timeout=60)
    assert not errors, errors
    return statuses[0]


def several(world: World) -> dict[str, str]:
    return {"name": "Guardia", "count": "2", "constitution": "6", "jump": "1", "heal_wounds": "0",
            "weight_kg": "80", "party_view": "band", "notes": ""}  # fmt: skip


# What a co-GM sends at the table: the url name and its form, and whether anything of it landed (beside the log).
CO_GM_REQUESTS: dict[str, tuple[str, Callable[[World], dict[str, object]]]] = {
    "damage": (
        "damage",
        lambda w: {"kind": "attack", "amount": "3", "characters": [w.char_a1.pk], "character": w.char_a1.pk},
    ),
    "add_several": ("characters_add_several", several),
    "session_start": ("game_session", lambda w: {"do": "start", "number": ""}),
    "undo": ("undo", lambda w: {"event": ""}),
}


def applied_by(world: World, user) -> list[Event]:
    return list(Event.objects.filter(campaign=world.campaign_a, actor=user).exclude(action=EventKind.CO_GM_JOINED))


def nothing_landed(world: World, removal: Event) -> None:
    """Nothing of the removed co-GM's is in the log after their removal; they are not a co-GM again; no state
    that only their request would have written."""
    assert not [e.action for e in applied_by(world, world.co_gm) if e.pk > removal.pk]
    assert not Event.objects.get(pk=removal.pk).undone
    assert not Membership.objects.filter(campaign=world.campaign_a, user=world.co_gm, role=Role.GM).exists()
    assert Character.objects.get(pk=world.char_a1.pk).pg == 80
    assert not Character.objects.filter(campaign=world.campaign_a, name__startswith="Guardia").exists()
    assert not GameSession.objects.filter(campaign=world.campaign_a).exists()


@pytest.mark.parametrize("what", CO_GM_REQUESTS)
def test_a_co_gms_request_that_meets_their_removal_is_refused(world: World, what: str):
    name, data = CO_GM_REQUESTS[what]
    url = reverse(name, args=[world.campaign_a.pk])
    client = client_for(world.co_gm)
    removal: list[Event] = []

    answer = sent_while_rights_change(
        world.campaign_a.pk,
        lambda: client.post(url, data(world), **HTMX),
        lambda: removal.append(actions.remove_co_gm(world.campaign_a, world.co_gm.pk, by=world.gm_a).event),
    )
    # Refused in words: the form again with its message, or the undo's announcement.
    assert answer.status_code in (200, 400, 422), answer.status_code
    assert "Ya no llevas esta campaña" in answer.content.decode()
    nothing_landed(world, removal[0])


def race_once(world: World, owner: Client, what: str) -> list[int]:
    """The co-GM's request and the owner's removal of them, sent at the same instant: their statuses."""
    name, data = CO_GM_REQUESTS[what]
    Membership.objects.update_or_create(campaign=world.campaign_a, user=world.co_gm, defaults={"role": Role.GM})
    co_gm = client_for(world.co_gm)
    url = reverse(name, args=[world.campaign_a.pk])
    remove = reverse("co_gm_remove", args=[world.campaign_a.pk, world.co_gm.pk])
    statuses: list[int] = []
    errors = run_at_once(
        [
            lambda: statuses.append(co_gm.post(url, data(world), **HTMX).status_code),
            lambda: statuses.append(owner.post(remove, {}, **HTMX).status_code),
        ]
    )
    assert not errors, (what, errors)
    return statuses


def test_twenty_rounds_of_a_co_gm_acting_as_the_owner_removes_them(world: World):
    """Free races, as at a table: the co-GM's request and the owner's removal sent at the same instant, each kind
    five times; whatever lands of the co-GM's is logged before the removal, and the removal stands."""
    owner = client_for(world.gm_a)
    for round_ in range(20):
        what = list(CO_GM_REQUESTS)[round_ % len(CO_GM_REQUESTS)]
        statuses = race_once(world, owner, what)
        assert len(statuses) == 2 and all(status < 500 for status in statuses), (what, statuses)
        removal = Event.objects.filter(campaign=world.campaign_a, action=EventKind.CO_GM_REMOVED).latest("pk")
        assert not removal.undone, what
        assert not [e.action for e in applied_by(world, world.co_gm) if e.pk > removal.pk], what
        assert not Membership.objects.filter(campaign=world.campaign_a, user=world.co_gm, role=Role.GM).exists()


def test_a_players_answer_that_meets_the_hand_over_of_their_character_is_refused(world: World):
    fall = Call(CheckKind.FALL, height_m=10, difficulty=15)
    called = actions.call_check(world.campaign_a, [world.char_a1], fall, by=world.gm_a).event
    check = CalledCheck.objects.get(called=called)
    url = reverse("answer_check", args=[world.campaign_a.pk])
    client = client_for(world.player_a)

    def hand_over() -> None:
        current = actions.Sheet.of(Character.objects.get(pk=world.char_a1.pk))
        sheet = actions.Sheet(**{**vars(current), "player_id": world.player_a2.pk})
        actions.edit_character(world.campaign_a, world.char_a1, sheet, by=world.gm_a)

    answer = sent_while_rights_change(
        world.campaign_a.pk,
        lambda: client.post(url, {"check": str(check.pk), "die": "20", "where": "page"}, **HTMX),
        hand_over,
    )
    assert answer.status_code < 500
    assert CalledCheck.objects.get(pk=check.pk).status == "pending"  # the new player answers it, not the old
    assert not Event.objects.filter(campaign=world.campaign_a, actor=world.player_a).exists()
    assert Character.objects.get(pk=world.char_a1.pk).player_id == world.player_a2.pk


def test_a_co_gms_api_token_that_meets_their_removal_is_refused(world: World):
    """Through the API (play.api) as through the pages: the token's account is asked again under the lock."""
    from campaigns.models import TokenScope
    from rules.actions import tokens

    token = tokens.create_token(world.co_gm, name="bot", scope=TokenScope.ACT)[1]
    url = f"/api/v1/campaigns/{world.campaign_a.pk}/damage"
    blow = {"characters": [world.char_a1.pk], "kind": "attack", "amount": 5}
    removal: list[Event] = []
    answer = sent_while_rights_change(
        world.campaign_a.pk,
        lambda: Client().post(url, blow, content_type="application/json", headers={"Authorization": f"Bearer {token}"}),
        lambda: removal.append(actions.remove_co_gm(world.campaign_a, world.co_gm.pk, by=world.gm_a).event),
    )
    assert answer.status_code == 403 and answer["Content-Type"] == "application/problem+json"
    assert "Ya no llevas esta campaña" in answer.json()["title"]
    nothing_landed(world, removal[0])


def test_a_co_gms_time_between_sessions_that_meets_their_removal_is_refused(world: World):
    client = client_for(world.co_gm)
    url = reverse("running_time", args=[world.campaign_a.pk])
    removal: list[Event] = []
    answer = sent_while_rights_change(
        world.campaign_a.pk,
        lambda: client.post(url, {"runs": "on", "rate": "1 día", "hour": "6", "zone": "Europe/Madrid"}, **HTMX),
        lambda: removal.append(actions.remove_co_gm(world.campaign_a, world.co_gm.pk, by=world.gm_a).event),
    )
    assert answer.status_code == 422 and "Ya no llevas esta campaña" in answer.content.decode()
    nothing_landed(world, removal[0])
    world.campaign_a.refresh_from_db()
    assert not world.campaign_a.runs
