"""What the regions of a screen show — a card, who rests, the log — drawn from the stored rows by one path
(play.screens): after any change, through the actions or behind their back as the Django admin does, the page shows
it, and the live stream's whole screen is the page drawn anew, region by region; each screen shows a card its own way;
and the table costs the same queries whatever its size."""

import re

import pytest
from django.db import connection
from django.middleware.csrf import _unmask_cipher_token
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns import access
from campaigns.models import Campaign, Invitation
from characters.models import Character
from play.forms.advance import AdvanceForm
from play.screens.answers import Seen, draw_views, state_of
from play.screens.drawing import Screen, View
from play.screens.snapshot import LATEST_HEADS, touch_of
from rules import actions
from rules.actions import Call
from rules.damage import Attack, Gas
from rules.models import CalledCheck, CheckKind, Disease, Illness
from tests.helpers import HTMX, World, client_for, make_user, on_a_thread, plague, streamed
from tests.regions import element_by_id, regions_in

TOKEN = re.compile(r'(value="|"X-CSRFToken": ")[A-Za-z0-9]{64}"')
FALL = Call(CheckKind.FALL, height_m=10, difficulty=15)
CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[A-Za-z0-9]{64}">')


def table_url(world: World) -> str:
    return reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})


def page(client: Client, world: World, **headers: str) -> str:
    response = client.get(table_url(world), **headers)
    assert response.status_code == 200
    return response.content.decode()


def without_tokens(html: str) -> str:
    return TOKEN.sub(r"\1TOKEN", html)


def damage(world: World) -> None:
    actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], Attack(amount=7), by=world.gm_a)


def advance(world: World) -> None:
    actions.advance_clock(world.campaign_a, 3600 * 30, resting=[world.char_a1], by=world.gm_a)


def rename_the_disease(world: World) -> None:
    Disease.objects.filter(pk=plague().pk).update(name="Fiebre del puerto")


def rename_the_player(world: World) -> None:
    type(world.player_a).objects.filter(pk=world.player_a.pk).update(username="aldara_en_el_movil")


def rename_a_character(world: World) -> None:
    Character.objects.filter(pk=world.char_a2.pk).update(name="Borin el Rojo")


def give_the_npc_a_player(world: World) -> None:
    Character.objects.filter(pk=world.npc_a.pk).update(player=world.player_a2)


def revoke_the_invitation(world: World) -> None:
    Invitation.objects.filter(pk=world.invite_a.pk).update(revoked_at=timezone.now())


def invite_again(world: World) -> None:
    revoke_the_invitation(world)
    Invitation.objects.create(campaign=world.campaign_a, character=world.npc_a)


def medicate_behind_the_actions_back(world: World) -> None:
    Illness.objects.filter(character=world.char_a1).update(medicated=True)


# Each changes what the table shows; those behind the actions' back bump no campaign version and send no notification.
CHANGES = [
    damage,
    advance,
    rename_the_disease,
    rename_the_player,
    rename_a_character,
    give_the_npc_a_player,
    revoke_the_invitation,
    invite_again,
    medicate_behind_the_actions_back,
]


def stream_draws_the_page(world: World) -> str:
    """The GM's table as a page, and the whole screen its stream sends first: every region of the stream is the
    page's element of the same id, as it is (the CSRF tokens of the page's forms aside: a stream has no request, and
    htmx sends the token in a header). Returns the page."""
    html = on_a_thread(lambda: page(client_for(world.gm_a), world))
    message = streamed(access.table_of(world.campaign_a), site="http://testserver")
    assert message is not None
    regions = regions_in(message)
    assert {region.id for region in regions} >= {"clock", "cards", "log-entries", "undo-button", "calls"}
    for region in regions:
        on_the_page = CSRF_INPUT.sub("", element_by_id(html, region.id).html)
        assert "csrfmiddlewaretoken" not in region.html
        assert region.html == on_the_page, region.id
    return html


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__)
def test_after_any_change_the_table_shows_it_and_its_stream_draws_it_alike(world: World, change):
    Disease.objects.ensure_builtin()  # a transactional test starts without them
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=2), by=world.gm_a)
    before = stream_draws_the_page(world)
    change(world)
    after = stream_draws_the_page(world)
    assert without_tokens(after) != without_tokens(before)


def test_a_change_behind_the_actions_back_shows_at_once(world: World):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    page(client_for(world.gm_a), world)
    for change in (rename_the_disease, rename_the_player, rename_a_character):
        change(world)
    html = page(client_for(world.gm_a), world)
    assert "Fiebre del puerto" in html and "aldara_en_el_movil" in html and "Borin el Rojo" in html
    assert ">player_a<" not in html and ">Borin<" not in html


def test_each_language_has_its_own_cards(world: World):
    spanish = page(client_for(world.gm_a), world)
    english = page(client_for(world.gm_a), world, HTTP_ACCEPT_LANGUAGE="en")
    assert "Daño rápido" in spanish and "Quick damage" not in spanish
    assert "Quick damage" in english and "Daño rápido" not in english
    assert without_tokens(page(client_for(world.gm_a), world)) == without_tokens(spanish)


@pytest.mark.django_db(transaction=True)
def test_each_language_has_its_own_stream(world: World):
    table = access.table_of(world.campaign_a)
    spanish, english = streamed(table), streamed(table, language="en")
    assert spanish is not None and english is not None
    assert "Daño rápido" in spanish and "Quick damage" not in spanish
    assert "Quick damage" in english and "Daño rápido" not in english


def test_each_page_carries_its_own_csrf_token_and_it_works(world: World):
    first, second = (Client(enforce_csrf_checks=True) for _ in range(2))
    for client in (first, second):
        client.force_login(world.gm_a)
    secrets, tokens = [], []
    for client in (first, second):
        html = page(client, world)
        [header] = re.findall(r'"X-CSRFToken": "([A-Za-z0-9]{64})"', html)
        in_forms = re.findall(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"', html)
        # Each region is drawn on its own, each form's token masked anew: every one is this page's secret.
        assert len(in_forms) > 3 and {_unmask_cipher_token(token) for token in [header, *in_forms]} == {
            _unmask_cipher_token(header)
        }
        assert "\x00" not in html
        secrets.append(_unmask_cipher_token(header))
        tokens.append(in_forms[-1])
    assert secrets[0] != secrets[1]
    # the quick damage form of a card, sent by a browser without htmx, with a token its page gave it
    url = reverse("damage", kwargs={"campaign_id": world.campaign_a.pk})
    pk = str(world.char_a1.pk)
    data = {"csrfmiddlewaretoken": tokens[1], "kind": "attack", "amount": "3", "characters": pk, "character": pk}
    assert first.post(url, data).status_code == 403  # another page's token does not do
    assert second.post(url, data).status_code == 302
    assert Character.objects.get(pk=world.char_a1.pk).pg == world.char_a1.max_pg - 3


@pytest.mark.django_db(transaction=True)
def test_a_live_update_draws_cards_without_a_token_and_a_page_with_it(world: World):
    html = on_a_thread(lambda: page(client_for(world.gm_a), world))
    assert f'id="card-actions-{world.npc_a.pk}"' in html and "csrfmiddlewaretoken" in html
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a).event
    for message in (
        streamed(access.table_of(world.campaign_a), event=event),
        streamed(access.table_of(world.campaign_a)),
    ):
        assert message is not None and f'id="card-{world.char_a1.pk}"' in message
        assert "csrfmiddlewaretoken" not in message and "\x00" not in message


@pytest.mark.django_db(transaction=True)
def test_each_screen_shows_a_card_its_own_way(world: World):
    """The GM's table: the card's state, its actions (with the invitation link, on the site the browser reached) and
    its forms, the form's slot empty; a player's page: the state of their own card, and nothing to act with."""
    npc = world.npc_a.pk
    table = streamed(access.table_of(world.campaign_a))
    assert table is not None
    shell = element_by_id(table, f"character-{npc}").html
    assert 'class="quick-damage"' in shell and f'<div id="slot-{npc}" class="slot"></div>' in shell
    assert f'id="card-{npc}"' in shell and "http://mesa/invite/" in element_by_id(table, f"card-actions-{npc}").html
    assert "https://otra/invite/" in (streamed(access.table_of(world.campaign_a), site="https://otra") or "")
    player = streamed(access.audience_of(world.player_a, world.campaign_a))
    assert player is not None
    aldara = element_by_id(player, f"character-{world.char_a1.pk}").html
    assert "Aldara" in aldara and f'id="card-{world.char_a1.pk}"' in aldara
    assert "quick-damage" not in player and "card-actions" not in player and "slot-" not in player
    assert "/act/" not in player and "/invite/" not in player and "Tomás" not in aldara


def test_who_rests_is_drawn_from_the_names_and_ticks(world: World):
    unbound = AdvanceForm(campaign=world.campaign_a)
    assert [row.ticked for row in unbound.resting_rows] == [True, True, True]
    bound = AdvanceForm({"resting": [str(world.char_a2.pk)]}, campaign=world.campaign_a)
    html = render_to_string("components/resting.html", {"rows": bound.resting_rows})
    assert html.count(" checked>") == 1 and f'value="{world.char_a2.pk}" id="rest-{world.char_a2.pk}" checked' in html
    rename_a_character(world)
    assert "Borin el Rojo" in [row.name for row in AdvanceForm(campaign=world.campaign_a).resting_rows]


def add_characters(world: World, first: int, last: int) -> None:
    """Characters in play, each wounded, a third of them ill, some of them with a pending invitation link."""
    for n in range(first, last):
        player = make_user(f"jugador-{n}") if n % 2 else None
        character = Character.objects.create(
            campaign=world.campaign_a, name=f"Extra {n}", constitution=10, player=player
        )
        actions.apply_damage(world.campaign_a, [character], Attack(amount=3), by=world.gm_a)
        if n % 3 == 0:
            actions.expose(world.campaign_a, [character], plague(), dice_by_character={character.pk: 1}, by=world.gm_a)
        if n % 4 == 0 and player is None:
            Invitation.objects.create(campaign=world.campaign_a, character=character)


# A quick damage from a card, answered in place: the session, the user; the campaign with its characters in play, read
# together (the form's choices, the dead, the dice, the card it came from and the choice checked against them:
# play.views.table.gm_table); the action (the lock with the characters, wounds and illnesses it changes, read together;
# then its writes with the campaign's version, the event and the NOTIFY in one round trip; in a transaction, its BEGIN
# and COMMIT counted); the answer's regions, from the campaign's rows read together in one round trip after the commit
# (play.screens.answers.drawn_here: the characters, the checks still waiting, the touched characters' wounds and
# illnesses, the log's page, the calls, the invitation links; the event the action logged is at hand: it is the log's
# new entry and what the undo button names). A count is of round trips: the rows read together are one.
DAMAGE_QUERIES = 8


def damage_queries(world: World, django_assert_max_num_queries) -> int:
    client = client_for(world.gm_a)
    card = world.char_a1.pk
    data = {"kind": "attack", "amount": "1", "characters": card, "character": card, "slot": card}
    url = reverse("damage", args=[world.campaign_a.pk])
    with django_assert_max_num_queries(DAMAGE_QUERIES) as queries:
        response = client.post(url, data, HTTP_HX_REQUEST="true", HTTP_X_TAB="a" * 24)
    assert response.status_code == 200 and response["X-Regions"] == "1"
    return len(queries)


def test_a_quick_damage_costs_the_same_queries_with_4_or_40_characters(world: World, django_assert_max_num_queries):
    add_characters(world, 0, 4)
    few = damage_queries(world, django_assert_max_num_queries)
    add_characters(world, 4, 40)
    assert damage_queries(world, django_assert_max_num_queries) == few <= DAMAGE_QUERIES


def test_an_answer_is_what_the_screens_stream_draws_of_the_change(world: World):
    """The quick damage's answer (play.screens.answers.drawn_here) is the GM table's regions the change touched, exactly
    as the table's stream draws them from the campaign's rows (play.screens.streamed)."""
    add_characters(world, 0, 4)
    card = world.char_a1.pk
    data = {"kind": "attack", "amount": "2", "characters": card, "character": card, "slot": card}
    response = client_for(world.gm_a).post(reverse("damage", args=[world.campaign_a.pk]), data, **HTMX)
    assert response.status_code == 200
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    event = campaign.events.latest("id")
    seen = Seen(View(access.table_of(campaign), Screen.TABLE), "http://testserver", "es")
    touch = touch_of(event)
    drawn = draw_views({seen}, touch, state_of(campaign, touch, [seen], event, newest=True, gm=True))[seen]
    assert drawn and f'id="card-{card}"' in drawn and response.content.decode().startswith(drawn)


def test_an_action_that_writes_after_its_log_entry_is_answered_with_all_it_wrote(world: World):
    """An action that writes after its log entry (a cancelled call: the entry, then the calls closed) is drawn from
    rows read after the commit: its answer shows the calls closed, as a reload does."""
    outcome = actions.call_check(world.campaign_a, [world.char_a1, world.char_a2], FALL, by=world.gm_a)
    pending = [str(check.pk) for check in CalledCheck.objects.filter(called=outcome.event)]
    response = client_for(world.gm_a).post(
        reverse("cancel_check", args=[world.campaign_a.pk]), {"checks": pending}, **HTMX
    )
    assert response.status_code == 200
    calls = element_by_id(response.content.decode(), "calls").html
    assert calls == element_by_id(page(client_for(world.gm_a), world), "calls").html
    assert "Tiradas pedidas" not in calls


# The table: the session, the user and the campaign; the digests of the rows its regions draw from (the screen is kept
# whole under them: play.screens.whole_screen), and those rows only if it is not kept yet, read together in one round
# trip (play.screens.snapshot.read_ahead: the characters, the checks waiting, the calls, the invitation links, the
# wounds, the illnesses, the log's page, whose newest entry the undo button names); the account's visit marked as seen
# (play.screens.visits); and "Desde tu última visita"'s stretch of the log with the characters it names (one more when
# checks were called in its stretch). Measured here with a panel waiting, on a reload: the screen is kept, the
# characters are read for the panel.
TABLE_QUERIES = 7


def table_queries(world: World, django_assert_max_num_queries) -> int:
    client = client_for(world.gm_a)
    # What the process keeps (play.screens.kept) is drawn: tests/play/test_kept.py counts a first load.
    page(client, world)
    with django_assert_max_num_queries(TABLE_QUERIES) as queries:
        page(client, world)
    return len(queries)


def test_the_table_costs_the_same_queries_with_4_or_40_characters(world: World, django_assert_max_num_queries):
    page(client_for(world.gm_a), world)  # the GM saw the table: what follows waits in "Desde tu última visita"
    actions.remove_character(world.campaign_a, world.char_a2, by=world.gm_a)  # the log still names it
    add_characters(world, 0, 4)
    few = table_queries(world, django_assert_max_num_queries)
    add_characters(world, 4, 40)
    assert table_queries(world, django_assert_max_num_queries) == few <= TABLE_QUERIES


# What a change costs the live fan-out: the event (whole: it is the log's new entry) and the campaign's row (one round
# trip), then the rows every view draws from, read together once for all of them (play.screens.snapshot.read_ahead: the
# characters, the members, the checks still waiting, the wounds, the illnesses, the log's page, the calls, the
# invitation links). A player's page or a second one adds nothing.
FAN_OUT_QUERIES = 2


@pytest.mark.django_db(transaction=True)  # a drawing gives its connection back, as on the hub's worker thread
def test_a_change_costs_the_fan_out_the_same_queries_for_1_or_3_views_and_4_or_40_characters(
    world: World, django_assert_max_num_queries
):
    from play.screens.answers import Seen
    from play.screens.drawing import view_of
    from play.screens.streamed import draw_change
    from rules.notify import Change

    def costs(*users) -> int:
        event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=1), by=world.gm_a).event
        views = {Seen(view_of(access.audience_of(user, world.campaign_a)), "http://mesa", "es") for user in users}
        with django_assert_max_num_queries(FAN_OUT_QUERIES) as queries:
            drawn = draw_change(Change(world.campaign_a.pk, None, event.pk), views)
        assert all(drawn[seen] for seen in views if seen.view.audience.user_id != world.player_a2.pk)
        return len(queries)

    def crowd(size: int) -> None:  # no builtin disease: a transactional test's database has none after a flush
        for n in range(size):
            extra = Character.objects.create(campaign=world.campaign_a, name=f"Extra {n}", constitution=10)
            actions.apply_damage(world.campaign_a, [extra], Gas(turns=2), by=world.gm_a)

    crowd(4)
    alone = costs(world.gm_a)
    assert costs(world.gm_a, world.player_a) == alone == FAN_OUT_QUERIES
    crowd(36)
    assert costs(world.gm_a, world.player_a, world.player_a2) == FAN_OUT_QUERIES


def test_the_logs_latest_page_is_read_from_the_end_of_an_index_however_long_the_log(world: World):
    """Every change and every GM's page read the log's latest page (play.screens.snapshot.LATEST_HEADS): of a campaign
    with thousands of entries, its last ones since fifty other campaigns logged many thousands more, PostgreSQL takes
    them from the end of the index on (campaign, id), sorting none and skipping none of the others' — with the plan made
    for these values and with the generic plan a prepared statement comes to use."""
    others = Campaign.objects.bulk_create(Campaign(name=f"Otra {n}", gm=world.gm_b) for n in range(50))
    with connection.cursor() as cursor:
        for campaign, entries in ((world.campaign_a, 3000), *((other, 600) for other in others)):
            cursor.execute(
                "INSERT INTO campaigns_event (campaign_id, action, clock_before, clock_after, created, characters,"
                " details, before, after, undone, actor_name, undone_by_name)"
                " SELECT %s, 'damage', 0, 0, now(), '{}', '{}', '{}', '{}', false, '', '' FROM generate_series(1, %s)",
                [campaign.pk, entries],
            )
        cursor.execute("ANALYZE campaigns_event")
        sql, params = LATEST_HEADS.statement(campaign=world.campaign_a.pk)
        for mode in ("force_custom_plan", "force_generic_plan"):
            cursor.execute(f"SET plan_cache_mode = {mode}")
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Index Scan Backward using event_campaign_log" in plan and "Sort" not in plan, (mode, plan)
        cursor.execute("RESET plan_cache_mode")
