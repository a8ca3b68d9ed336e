"""\"Desde tu última visita\" on the player's page and the GM's table (play.screens.visits): what each account may read
of what happened since it last saw the campaign, short; nothing at a first visit or when nothing happened; it stays on
reloads until "Entendido"; a player never reads a hidden companion's name or id in it; another campaign's people see
nothing."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, reset_queries
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import access
from campaigns.models import Campaign, Event, Visit
from characters.models import Character
from play.screens.drawing import Screen, View
from play.screens.visits import LINES, Shown, stream_ended
from rules import actions
from rules.damage import Attack, Collision, Drowning, Gas
from rules.models import CheckKind
from tests.helpers import HTMX, World, client_for

TITLE = "Desde tu última visita"


def page(client: Client, world: World) -> str:
    response = client.get(reverse("campaign", args=[world.campaign_a.pk]))
    assert response.status_code == 200
    return response.content.decode()


def panel(html: str) -> str:
    """The panel's bytes ("" when there is none)."""
    found = re.search(r'<section id="since-visit".*?</section>', html, re.DOTALL)
    return found.group(0) if found else ""


def unsigned(html: str) -> str:
    """Without its CSRF token (a new one each page)."""
    return re.sub(r'<input type="hidden" name="csrfmiddlewaretoken"[^>]*>', "", html)


def hidden_companion(world: World) -> Character:
    gm = world.gm_a
    nyx = actions.add_character(world.campaign_a, actions.Sheet("Nyx la Sombra", 4, party_view="hidden"), by=gm)
    return nyx.characters[0]


def hurt(world: World, characters: list[Character], amount: int = 3, by=None) -> None:
    actions.apply_damage(world.campaign_a, characters, Attack(amount=amount), by=by or world.gm_a)


def test_a_first_visit_shows_no_panel(world: World):
    hurt(world, [world.char_a1])
    assert TITLE not in page(client_for(world.player_a), world)
    assert TITLE not in page(client_for(world.gm_a), world)


def test_nothing_happened_no_panel_at_all(world: World):
    client = client_for(world.player_a)
    page(client, world)
    html = page(client, world)
    assert TITLE not in html and "since-visit" not in html  # no empty box either


def test_a_player_reads_their_own_in_full_companions_by_the_party_view_and_never_a_hidden_one(world: World):
    nyx = hidden_companion(world)
    actions.edit_character(world.campaign_a, world.npc_a, actions.Sheet("Tomás", 5, party_view="exact"), by=world.gm_a)
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1, world.char_a2, world.npc_a, nyx])
    actions.advance_clock(world.campaign_a, 2 * 3600, by=world.gm_a)  # too short for any wound to heal

    told = panel(page(client, world))
    assert TITLE in told and "Tiempo pasado en la campaña: 2 h." in told
    names = [re.sub(r"<[^>]+>", "", name) for name in re.findall(r"<h3>(.*?)</h3>", told)]
    assert names == ["Aldara", "Borin", "Tomás"]  # own first, then companions
    assert "1 herida de Ataque físico directo: 3 PG" in told
    assert "Ileso → Herido." in told  # Borin: the campaign's party view gives words only
    assert "PG: 50 → 47 de 50." in told  # Tomás: exact
    assert told.count("PG:") == 2  # Aldara's and Tomás's; never a number for Borin
    assert "Nyx" not in told and "Sombra" not in told
    assert set(re.findall(r"/characters/([0-9]+)/", told)) == {str(world.char_a1.pk)}  # the only id: their own sheet's
    assert not re.search(r'(id|data-[a-z-]+|value)="[^"]*[0-9]', unsigned(told))  # no other id in any attribute


def test_a_hidden_companion_alone_is_no_news(world: World):
    nyx = hidden_companion(world)
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [nyx], 20)
    html = page(client, world)
    assert TITLE not in html and "Nyx" not in html
    assert Visit.objects.get(user=world.player_a).since is None  # nothing waits for a later visit


def test_the_gm_reads_everyone_and_checks_with_their_results(world: World):
    nyx = hidden_companion(world)
    client = client_for(world.gm_a)
    page(client, world)
    hurt(world, [world.char_a1, nyx], by=world.co_gm)  # the co-GM's doings are news to the owner
    actions.call_check(world.campaign_a, [world.char_a1], actions.Call(CheckKind.FALL, height_m=4), by=world.co_gm)
    told = panel(page(client, world))
    assert "Aldara" in told and "Nyx la Sombra" in told
    assert "Tirada de caída: pendiente." in told
    assert "cosas más" not in told  # three lines each: nothing left out


def test_a_long_stretch_is_capped_with_a_link_to_the_rest(world: World):
    client = client_for(world.player_a)
    page(client, world)
    for harm in (Attack(amount=2), Gas(turns=2), Drowning(turns=2), Collision(speed_kmh=40)):
        actions.apply_damage(world.campaign_a, [world.char_a1], harm, by=world.gm_a)
    actions.call_check(world.campaign_a, [world.char_a1], actions.Call(CheckKind.FALL, height_m=4), by=world.gm_a)
    told = panel(page(client, world))
    lines = re.findall(r"<li>(.*?)</li>", told)
    assert len(lines) == LINES and lines[0].startswith("PG: ")  # PG, four kinds of wound, a check owed: 6 lines
    sheet = f"/campaigns/{world.campaign_a.pk}/characters/{world.char_a1.pk}/#sheet-log"
    assert re.search(f'<a href="{sheet}">y [0-9]+ cosas? más</a>', told)


def test_the_panel_stays_on_reloads_until_dismissed_in_any_tab(world: World):
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1])
    first = unsigned(panel(page(client, world)))
    assert first and unsigned(panel(page(client, world))) == first  # a reload: the same panel

    url = reverse("visit_dismiss", args=[world.campaign_a.pk])
    answer = client.post(url, **HTMX)
    assert answer.status_code == 200 and answer.content == b"" and answer["X-Focus"] == "characters-title"
    assert TITLE not in page(client_for(world.player_a), world)  # another tab (another session) reloads: nothing

    hurt(world, [world.char_a1])
    assert TITLE in page(client, world)  # something new: a new panel
    assert client.post(url).status_code == 302  # without JavaScript: back to the page
    assert TITLE not in page(client, world)


@pytest.mark.django_db(transaction=True)  # stream_ended gives its connection back, as on the stream's worker thread
def test_what_a_live_page_showed_is_not_news_at_the_next_visit(world: World):
    def visits() -> None:
        client = client_for(world.player_a)
        page(client, world)
        hurt(world, [world.char_a1])  # reached the open page live
        stream_ended(View(_audience(world, world.player_a), Screen.PAGE), Event.objects.latest("id").pk)
        assert TITLE not in page(client, world)

    # On a thread of its own, as a stream's end runs: where the browser tests have run first in the same session,
    # Playwright keeps an event loop running on this one, and the test client's sync-to-async bridge refuses it.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(visits).result()


def test_what_live_pages_showed_is_kept_by_campaign_and_account_the_latest_only_and_the_most_recent_ones():
    shown = Shown()
    shown.saw(1, {10, 11}, 5)
    shown.saw(1, {10}, 3)  # heard late: never moves back
    shown.saw(2, {10}, 7)
    shown.saw(1, {12}, None)  # no event named: nothing to mark
    assert (shown.upto(1, 10), shown.upto(1, 11), shown.upto(2, 10), shown.upto(1, 12)) == (5, 5, 7, 0)
    small = Shown(size=2)
    small.saw(1, {11}, 5)
    small.saw(2, {10}, 7)
    small.saw(3, {10}, 9)
    assert (small.upto(1, 11), small.upto(2, 10), small.upto(3, 10)) == (0, 7, 9)  # the least recently used goes


def test_a_sheets_stream_marks_nothing(world: World):
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1])
    stream_ended(View(_audience(world, world.player_a), Screen.SHEET, world.char_a1.pk), Event.objects.latest("id").pk)
    assert TITLE in page(client, world)  # the sheet shows one character: the page's news still wait


def _audience(world: World, user):
    return access.audience_of(user, world.campaign_a)


@pytest.mark.parametrize("persona", ["gm_b", "outsider"])
def test_another_campaigns_people_see_nothing_and_move_no_mark(world: World, persona: str):
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1])
    page(client, world)
    before = list(Visit.objects.order_by("id").values())
    other = client_for(getattr(world, persona))
    assert other.get(reverse("campaign", args=[world.campaign_a.pk])).status_code == 404
    assert other.post(reverse("visit_dismiss", args=[world.campaign_a.pk]), **HTMX).status_code == 404
    assert list(Visit.objects.order_by("id").values()) == before
    assert TITLE in page(client, world)


def test_a_player_with_no_character_left_reads_nothing(world: World):
    client = client_for(world.player_a2)
    page(client, world)
    Character.objects.filter(player=world.player_a2).update(player=None)
    hurt(world, [world.char_a1])
    assert TITLE not in page(client, world)


def test_the_panel_costs_the_table_two_queries_more(world: World):
    """tests/play/test_fragments.py's TABLE_QUERIES counts the mark; a panel adds the stretch's query and, the screen
    being kept whole (its rows not read: play.screens.whole_screen), the characters it names."""
    client = client_for(world.gm_a)
    page(client, world)
    hurt(world, [world.char_a1], by=world.co_gm)
    page(client, world)  # the panel's first drawing (its cards, its undo button's entry: play.screens.kept)
    reset_queries()  # a request empties the log of queries: counted from an empty one, nothing is left out
    with CaptureQueriesContext(connection) as queries:
        assert TITLE in page(client, world)
    with_panel = len(queries)  # now: the log it reads is emptied by the next request
    client.post(reverse("visit_dismiss", args=[world.campaign_a.pk]))
    reset_queries()
    with CaptureQueriesContext(connection) as queries:
        assert TITLE not in page(client, world)
    assert with_panel == len(queries) + 2 <= 11


def test_the_players_page_costs_one_query_for_the_mark_and_one_for_a_panel(world: World, django_assert_num_queries):
    client = client_for(world.player_a)
    page(client, world)
    reset_queries()
    with django_assert_num_queries(PAGE_QUERIES):
        assert TITLE not in page(client, world)
    hurt(world, [world.char_a1])
    reset_queries()
    with django_assert_num_queries(PAGE_QUERIES + 2):  # the page changed: its rows are read; and the panel's stretch
        assert TITLE in page(client, world)
    reset_queries()
    with django_assert_num_queries(PAGE_QUERIES + 2):  # unchanged, kept whole: the panel's stretch and characters
        assert TITLE in page(client, world)


# A player's page, on a reload with nothing new: the session, the user, the campaign; the digests of the rows its
# regions are drawn from (the members, the characters, the checks waiting, the wounds, the illnesses and the game
# sessions): the screen is kept whole under them (play.screens.whole_screen), and those rows are read, together in one
# round trip (play.screens.snapshot.read_ahead), only when it is not; the visit's mark (play.screens.visits). A panel
# adds the stretch (one more when checks were called in it) and the characters it names.
PAGE_QUERIES = 5


def test_marks_are_not_logged_and_bump_no_version(world: World):
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1])
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    events = Event.objects.count()
    page(client, world)
    client.post(reverse("visit_dismiss", args=[world.campaign_a.pk]))
    assert Campaign.objects.get(pk=world.campaign_a.pk).version == campaign.version
    assert Event.objects.count() == events


def test_english_words(world: World):
    client = client_for(world.player_a)
    page(client, world)
    hurt(world, [world.char_a1])
    actions.advance_clock(world.campaign_a, 2 * 3600, by=world.gm_a)
    english = client.get(reverse("campaign", args=[world.campaign_a.pk]), HTTP_ACCEPT_LANGUAGE="en")
    told = panel(english.content.decode())
    assert "Since your last visit" in told and "Campaign time passed: 2 h." in told and "Got it" in told
