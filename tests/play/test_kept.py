"""Kept drawings are never stale (play.screens.kept, issue 22): after any change, every screen drawn with what the
process keeps — cards, their shells, log entries — equals the same screen drawn with nothing kept, byte for byte but for
the page's CSRF token; and a second load of the table reads no log entry whole."""

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from campaigns import access
from campaigns.models import Campaign
from characters.models import Character
from play.screens.kept import Kept, contents, frames, kept, screens, titles
from play.screens.snapshot import Snapshot
from rules import actions
from rules.actions import DiseaseSheet, Sheet
from rules.damage import Attack
from rules.engine import DAY
from rules.models import Category, Disease
from tests.helpers import World, client_for, fall_ill, on_a_thread, plague, reload
from tests.regions import element_by_id, regions_in

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]*"')
CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[A-Za-z0-9]{64}">')


def forget_everything() -> None:
    for drawings in (kept, titles, screens, contents, frames):
        drawings.clear()


def screens_of(world: World) -> dict[str, str]:
    """The GM's table, a player's page, and a sheet as its player and as the GM see it."""
    campaign, character = world.campaign_a.pk, world.char_a1.pk
    urls = {
        "table": (world.gm_a, f"/campaigns/{campaign}/"),
        "page": (world.player_a, f"/campaigns/{campaign}/"),
        "sheet": (world.player_a, f"/campaigns/{campaign}/characters/{character}/"),
        "gm sheet": (world.gm_a, f"/campaigns/{campaign}/characters/{character}/"),
        "co-GM table": (world.co_gm, f"/campaigns/{campaign}/"),
    }
    drawn = {}
    for name, (user, url) in urls.items():
        response = client_for(user).get(url)
        assert response.status_code == 200, (name, response.status_code)
        drawn[name] = CSRF.sub(r'\1"…"', response.content.decode())
    return drawn


def rename(world: World) -> None:
    row = reload(world.char_a1)
    sheet = Sheet(row.name + " la Roja", row.constitution, row.jump, row.heal_wounds, row.weight_kg, row.notes)
    actions.edit_character(
        world.campaign_a, row, Sheet(**{**sheet.__dict__, "player_id": row.player_id}), by=world.gm_a
    )


def disease_edited(world: World) -> None:
    actions.add_disease(world.campaign_a, DiseaseSheet("Fiebre amarilla", Category.SERIOUS, -1, 1), by=world.gm_a)
    found = Disease.objects.get(campaign=world.campaign_a, name="Fiebre amarilla")
    fall_ill(world, world.char_a1, found)
    screens_of(world)
    actions.edit_disease(world.campaign_a, found, DiseaseSheet("Fiebre negra", Category.SERIOUS, -3, 2), by=world.gm_a)


def actor_renamed(world: World) -> None:
    """Every log entry names who acted by their account's name now: a rename is a new key, never a stale name."""
    world.gm_a.username = "narradora-nueva"
    world.gm_a.save()


def player_renamed(world: World) -> None:
    world.player_a.username = "ana-la-nueva"
    world.player_a.save()


def near_death(world: World) -> None:
    """PG 3: the exertion check, a card action of its own, appears (and so do its penalties)."""
    world.char_a1.refresh_from_db()
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=world.char_a1.pg - 3), by=world.gm_a)


CHANGES: dict[str, Callable[[World], object]] = {
    "damage": lambda w: actions.apply_damage(w.campaign_a, [w.char_a1], Attack(amount=3), by=w.gm_a),
    # Changes of what a card's actions offer (their drawing is kept under less than the card's: Card.actions_from).
    "near death": near_death,
    "killed": lambda w: actions.apply_damage(w.campaign_a, [w.char_a1], Attack(amount=200), by=w.gm_a),
    "falls ill": lambda w: fall_ill(w, w.char_a1, plague()),
    "a day passes": lambda w: actions.advance_clock(w.campaign_a, DAY, by=w.gm_a),
    "undo": lambda w: actions.undo(w.campaign_a, by=w.gm_a),
    "rename": rename,
    "invitation revoked": lambda w: actions.revoke_invitation(w.campaign_a, w.invite_a, by=w.gm_a),
    "invitation made": lambda w: actions.create_invitation(w.campaign_a, w.npc_a, by=w.gm_a),
    "disease edited": disease_edited,
    "the player renamed": player_renamed,
    "a co-GM acts": lambda w: actions.apply_damage(w.campaign_a, [w.char_a1], Attack(amount=2), by=w.co_gm),
    "the actor's username changes": actor_renamed,
    "removed": lambda w: actions.remove_character(w.campaign_a, w.char_a2, by=w.gm_a),
    "several added": lambda w: actions.add_characters(w.campaign_a, Sheet("Guardia", 10), 3, by=w.gm_a),
    "several removed": lambda w: actions.remove_characters(w.campaign_a, [w.char_a2, w.npc_a], by=w.gm_a),
    "removal undone": lambda w: (
        actions.remove_characters(w.campaign_a, [w.char_a2, w.npc_a], by=w.gm_a),
        screens_of(w),
        actions.undo(w.campaign_a, by=w.gm_a),
    ),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_kept_drawing_equals_a_fresh_one_after_any_change(world: World, change: str):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=5), by=world.gm_a)
    screens_of(world)  # what every screen shows is kept now
    CHANGES[change](world)
    with_kept = screens_of(world)
    forget_everything()
    fresh = screens_of(world)
    for name, html in fresh.items():
        assert with_kept[name] == html, (change, name)
    if change == "the actor's username changes":
        assert "· narradora-nueva" in with_kept["table"] and "· gm_a" not in with_kept["table"]


def test_a_second_load_of_the_table_reads_no_entry_whole(
    world: World, django_assert_num_queries, django_assert_max_num_queries
):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
    client = client_for(world.gm_a)
    url = f"/campaigns/{world.campaign_a.pk}/"
    forget_everything()
    with django_assert_max_num_queries(8):  # the rows, the undo button's entry and the log's, read whole to be worded
        client.get(url)
    with django_assert_num_queries(5):  # tests/play/test_fragments.py's TABLE_QUERIES, with no panel waiting
        second = client.get(url)
    assert "Ataque físico directo" in second.content.decode()


def test_cards_kept_for_one_campaign_are_not_another_campaigns(world: World):
    """Two characters with equal rows in two campaigns are drawn alike but link to their own campaign."""
    other = Campaign.objects.get(pk=world.campaign_b.pk)
    twin = Character.objects.create(campaign=other, name=world.npc_a.name, constitution=world.npc_a.constitution)
    screens_of(world)
    page = client_for(world.gm_b).get(f"/campaigns/{other.pk}/").content.decode()
    assert f"/campaigns/{other.pk}/characters/{twin.pk}/" in page
    assert f"/campaigns/{world.campaign_a.pk}/" not in page


def drawings_counted(monkeypatch) -> list[str]:
    """The regions drawn from now on (play.screens.drawing.element: by a drawing's regions, and by a whole screen kept,
    play.screens.regions), by name."""
    from play.screens import drawing, regions

    drawn: list[str] = []
    real = drawing.element

    def counted(drawing, region, *args, **kwargs):
        drawn.append(region.name)
        return real(drawing, region, *args, **kwargs)

    monkeypatch.setattr(drawing, "element", counted)
    monkeypatch.setattr(regions, "element", counted)
    return drawn


def fragments_drawn(monkeypatch) -> list[str]:
    """The fragments drawn from now on by the screens (play.screens.drawing's fragment, kept or not), by template."""
    from play.screens import drawing as screen_module

    drawn: list[str] = []
    real = screen_module.fragment
    monkeypatch.setattr(screen_module, "fragment", lambda *a, **k: drawn.append(a[0]) or real(*a, **k))
    return drawn


def test_a_reload_and_another_gm_draw_no_region_and_read_no_rows(world: World, monkeypatch, django_assert_num_queries):
    """A screen is kept whole (play.screens.whole_screen): a reload with nothing changed, and the co-GM's table, are
    the owner's drawing with their own CSRF token, asked for by the digests of its rows (one query) instead of the
    rows."""
    url = f"/campaigns/{world.campaign_a.pk}/"
    gm, co_gm_client = client_for(world.gm_a), client_for(world.co_gm)
    first = gm.get(url).content.decode()
    drawn = drawings_counted(monkeypatch)
    with django_assert_num_queries(5):  # the session, the user, the campaign, the digests, the visit's mark
        again = gm.get(url).content.decode()
    co_gm = co_gm_client.get(url).content.decode()
    assert drawn == []
    assert CSRF.sub("", again) == CSRF.sub("", first) and "Aldara" in again
    tokens = {CSRF.search(html).group() for html in (first, again, co_gm)}  # type: ignore[union-attr]
    assert len(tokens) == 3  # each page its own token in its forms


@pytest.mark.django_db(transaction=True)  # a stream's drawing gives its connection back, as on the hub's thread
def test_the_stream_a_page_opens_sends_the_pages_drawing(world: World, monkeypatch, django_assert_num_queries):
    from play.screens.answers import Seen
    from play.screens.drawing import view_of
    from play.screens.streamed import draw_state

    client, url = client_for(world.player_a), f"/campaigns/{world.campaign_a.pk}/"
    page = on_a_thread(lambda: client.get(url).content.decode())  # Playwright's loop may be on this thread
    drawn = drawings_counted(monkeypatch)
    seen = Seen(view_of(access.audience_of(world.player_a, world.campaign_a)), "http://testserver", "es")
    with django_assert_num_queries(2):  # the campaign and the digests: no rows
        first = draw_state(seen)
    assert drawn == [] and first is not None
    for region in regions_in(first):
        assert region.html == CSRF_INPUT.sub("", element_by_id(page, region.id).html), region.id
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    after = draw_state(seen)
    assert "cards" in drawn and after is not None and after != first  # a change: drawn anew


def test_a_change_behind_the_actions_back_is_drawn_anew(world: World, monkeypatch):
    """What bumps no version (an account renamed, a row changed by hand) still changes the digests."""
    url = f"/campaigns/{world.campaign_a.pk}/"
    client_for(world.gm_a).get(url)
    drawn = drawings_counted(monkeypatch)
    User.objects.filter(pk=world.player_a.pk).update(username="ana-a-mano")
    html = client_for(world.gm_a).get(url).content.decode()
    assert "ana-a-mano" in html and "cards" in drawn


@pytest.mark.parametrize(("gm", "players"), [(True, False), (False, True), (True, True), (False, False)])
def test_the_digests_asked_for_are_those_of_the_rows_read(world: World, gm: bool, players: bool):
    """A kept screen is found again only if asking for the digests gives what reading the rows gave."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    empty = Campaign.objects.create(name="Vacía", gm=world.gm_a)
    for each in (campaign, empty):
        read = Snapshot(each).read_ahead(gm, players, digested=True).digested
        assert Snapshot(each).digest(gm, players) == read
    assert Snapshot(campaign).digest(gm, players) != Snapshot(empty).digest(gm, players)


def test_screens_are_kept_by_their_weight():
    drawings: Kept[str] = Kept(10, len)
    for key, text in (("a", "xxxx"), ("b", "yyyy"), ("c", "zzzz")):
        drawings.put(key, text)
    assert drawings.peek("a") is None and drawings.peek("b") == "yyyy" and drawings.weight == 8
    drawings.put("b", "y")
    assert drawings.weight == 5
    assert drawings.get("d", lambda: "w" * 20) == "w" * 20  # one heavier than them all is drawn, and not kept:
    assert drawings.peek("d") is None and drawings.peek("b") == "y" and drawings.weight == 5  # the others stay


def contents_drawn(monkeypatch) -> list[str]:
    """The pages' contents drawn from now on (play.screens.pages: a template's partial "screen")."""
    from play.screens import pages

    drawn: list[str] = []
    real = pages.render_to_string

    def counted(template, *args, **kwargs):
        if template.endswith("#screen"):
            drawn.append(template)
        return real(template, *args, **kwargs)

    monkeypatch.setattr(pages, "render_to_string", counted)
    return drawn


def test_a_pages_content_is_kept_under_what_it_shows(world: World, monkeypatch):
    """A reload draws the page's content again only when something it shows besides its regions changed: the owner's
    links are not a co-GM's, and a campaign or a GM renamed behind the actions' back is drawn anew."""
    url = f"/campaigns/{world.campaign_a.pk}/"
    owner, co_gm, player = client_for(world.gm_a), client_for(world.co_gm), client_for(world.player_a)
    for client in (owner, co_gm, player):
        client.get(url)
    drawn = contents_drawn(monkeypatch)
    pages = {name: client.get(url).content.decode() for name, client in [("owner", owner), ("co-GM", co_gm)]}
    assert drawn == []
    export = f"/campaigns/{world.campaign_a.pk}/export/"
    assert export in pages["owner"] and export not in pages["co-GM"]
    User.objects.filter(pk=world.gm_a.pk).update(username="narradora-a-mano")
    assert "Narra narradora-a-mano." in player.get(url).content.decode()
    assert drawn == ["campaign_player.html#screen"]
    Campaign.objects.filter(pk=world.campaign_a.pk).update(name="La Cripta Nueva")
    assert "La Cripta Nueva" in owner.get(url).content.decode() and drawn[1:] == ["campaign.html#screen"]


def frames_drawn(monkeypatch) -> list[str]:
    """The pages drawn around a content from now on (play.screens.pages.framed)."""
    from play.screens import pages

    drawn: list[str] = []
    real = pages.render_to_string

    def counted(template, *args, **kwargs):
        if template in ("campaign.html", "campaign_player.html"):
            drawn.append(template)
        return real(template, *args, **kwargs)

    monkeypatch.setattr(pages, "render_to_string", counted)
    return drawn


def a_message_waiting(client, text: str) -> None:
    """A message for the next page, as a view that redirects leaves one (Django's cookie storage)."""
    from django.contrib import messages
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.http import HttpResponse
    from django.test import RequestFactory

    storage, response = CookieStorage(RequestFactory().get("/")), HttpResponse()
    storage.add(messages.SUCCESS, text)
    storage.update(response)
    client.cookies["messages"] = response.cookies["messages"].value


def test_a_pages_frame_is_kept_under_what_it_shows_and_never_with_a_message(world: World, monkeypatch):
    """The page around the content (the account, the language form and where it returns, the title) is drawn once
    per what it shows; a message is shown once, in a page drawn afresh, and is gone at the next load."""
    url = f"/campaigns/{world.campaign_a.pk}/"
    gm, player = client_for(world.gm_a), client_for(world.player_a)
    gm.get(url), player.get(url)
    drawn = frames_drawn(monkeypatch)
    table = gm.get(url).content.decode()
    assert drawn == [] and "gm_a" in table and f'name="next" value="{url}"' in table
    assert "player_a" in player.get(url).content.decode() and drawn == []
    elsewhere = gm.get(url + "?desde=aqui").content.decode()
    assert drawn == ["campaign.html"] and f'name="next" value="{url}?desde=aqui"' in elsewhere
    gm.cookies["django_language"] = "en"
    assert "Log out" in gm.get(url).content.decode() and drawn[1:] == ["campaign.html"]
    a_message_waiting(player, "Campaña importada: La Cripta.")
    assert "Campaña importada: La Cripta." in player.get(url).content.decode()
    assert "Campaña importada" not in player.get(url).content.decode()
    assert drawn[2:] == []  # the page with the message drawn whole, not kept; the next one the frame kept before
    assert len(set(CSRF_INPUT.findall(table))) == 1 and "\x00" not in table  # one token, the frame's forms' too


def test_a_member_with_no_character_left_gets_a_page_drawn_and_never_kept(world: World, monkeypatch):
    """A member whose characters were all given away may still open the page (empty: no stream serves it); it is
    drawn each time, and nothing of it is kept."""
    from characters.models import Character

    client, url = client_for(world.player_a2), f"/campaigns/{world.campaign_a.pk}/"
    Character.objects.filter(player=world.player_a2).update(player=None)
    drawn = contents_drawn(monkeypatch)
    regions = drawings_counted(monkeypatch)
    kept_before = (len(screens.drawings), len(contents.drawings))
    for _ in range(2):
        response = client.get(url)
        assert response.status_code == 200 and "Tus personajes" in response.content.decode()
    assert drawn == ["campaign_player.html#screen"] * 2 and regions.count("cards") == 2  # drawn each time
    assert (len(screens.drawings), len(contents.drawings)) == kept_before


def test_a_cards_state_is_one_drawing_for_the_gm_and_its_player_but_for_the_gms_hint(world: World, monkeypatch):
    """A card's state on the GM's table and on its player's page is drawn once for both
    (play.screens.cards.Card.shown_state) — unless the character has a party view of its own, which only the GM's card
    says."""
    from play.screens.drawing import Drawing, view_of
    from play.screens.regions import CARD

    rendered = fragments_drawn(monkeypatch)

    def card_state(user) -> str:
        campaign = Campaign.objects.get(pk=world.campaign_a.pk)
        drawing = Drawing(Snapshot(campaign), view_of(access.audience_of(user, campaign)), "http://testserver")
        return drawing.render_card(CARD.template, drawing.state.card(world.char_a1.pk), CARD.drawn_from, CARD.shown)

    forget_everything()
    gm, player = card_state(world.gm_a), card_state(world.player_a)
    assert gm == player and "pg-value" in gm and rendered == [CARD.template]  # drawn once
    Character.objects.filter(pk=world.char_a1.pk).update(party_view="nothing")
    gm, player = card_state(world.gm_a), card_state(world.player_a)
    assert "party-view-hint" in gm and "party-view-hint" not in player and len(rendered) == 3


def test_a_companion_whose_word_stays_is_not_drawn_again(world: World, monkeypatch):
    """A player's companions are kept under what they show (play.screens.party): with one word each (the party view
    "band"), a blow that leaves a companion's word as it was draws their region from what is kept; one that changes
    the word draws it anew, and the page says the new word."""
    actions.edit_campaign(world.campaign_a, party_view="band", by=world.gm_a)
    rendered = fragments_drawn(monkeypatch)
    url = f"/campaigns/{world.campaign_a.pk}/"

    def party_after(amount: int) -> str:
        actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=amount), by=world.gm_a)
        return element_by_id(client_for(world.player_a).get(url).content.decode(), "party").inner

    hurt = party_after(1)
    assert rendered.count("party.jinja") == 1 and "condition-hurt" in hurt
    assert party_after(1) == hurt and rendered.count("party.jinja") == 1  # the same word: kept
    dead = party_after(500)
    assert rendered.count("party.jinja") == 2 and "condition-dead" in dead and "condition-hurt" not in dead
