"""Issue 13, part 3: what a player sees of their companions, as the GM sets it per campaign and per character. The
filtering is on the server: the bytes of a player's page and stream carry exactly what the party view allows."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.urls import reverse

from campaigns import access
from campaigns.models import Campaign, Event, PartyView
from characters.models import Character
from play.log.pages import table_log
from play.screens.drawing import Screen
from play.screens.regions import SCREENS
from rules import actions
from rules.damage import Attack, Fall, Gas
from rules.models import Disease
from tests.helpers import HTMX, World, client_for, on_a_thread, plague, reload, snapshot, streamed
from tests.regions import element_by_id, region_ids

TOKEN = re.compile(r"[A-Za-z0-9]{64}")  # CSRF tokens: random letters and digits, which could hold any number


@dataclass
class Party:
    """player_a plays Aldara; player_a2's Borin is hurt; Tomás (an NPC) is hurt and ill, and shows his exact PG
    whatever the campaign says; Nyx (an NPC) is kept secret."""

    world: World
    aldara: Character
    borin: Character
    tomas: Character
    nyx: Character


def make_party(world: World) -> Party:
    gm, campaign = world.gm_a, world.campaign_a
    Disease.objects.ensure_builtin()  # a transactional test starts without them
    nyx = actions.add_character(campaign, actions.Sheet("Nyx la Sombra", 4, party_view="hidden"), by=gm).characters[0]
    tomas = Character.objects.get(pk=world.npc_a.pk)
    actions.edit_character(campaign, tomas, actions.Sheet("Tomás", 5, party_view="exact"), by=gm)
    actions.apply_damage(campaign, [world.char_a1], Gas(turns=11), by=gm)  # Aldara: 69/80
    actions.apply_damage(campaign, [world.char_a2], Attack(amount=23), by=gm)  # Borin: 97/120
    actions.expose(campaign, [tomas], plague(), dice_by_character={tomas.pk: 1}, by=gm)  # 1 + CON 5 < 12: ill
    actions.apply_damage(campaign, [tomas], Attack(amount=27), by=gm)  # Tomás: 23/50
    actions.apply_damage(campaign, [nyx], Attack(amount=9), by=gm)  # Nyx: 31/40
    return Party(world, reload(world.char_a1), reload(world.char_a2), reload(tomas), reload(nyx))


@pytest.fixture
def party(world: World) -> Party:
    return make_party(world)


def set_campaign_view(world: World, view: str) -> None:
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)
    actions.edit_campaign(campaign, name=campaign.name, gm=campaign.gm, party_view=view, by=world.gm_a)


def page_of(user, campaign: Campaign) -> str:
    response = client_for(user).get(reverse("campaign", args=[campaign.pk]))
    assert response.status_code == 200
    return TOKEN.sub("TOKEN", response.content.decode())


def party_section(html: str) -> str:
    """What is inside the region of the companions, on a page or in a stream's message."""
    return element_by_id(html, "party").inner


def what_player_a_may_read(text: str, view: str, party: Party) -> None:
    """Player A's bytes (a page or a stream) under the campaign's party view `view`."""
    # Their own character, in full, always.
    assert "Aldara" in text and "Gases nocivos" in text
    # Borin follows the campaign: his PG only when exact, the word only as a word, nothing at all when hidden.
    assert ("Borin" in text) == (view != PartyView.HIDDEN)
    assert ("PG 97/120" in text) == (view == PartyView.EXACT)
    # (Their own row says its own word too: Aldara is hurt. A companion's word is the companions' own.)
    words = re.findall(r'class="companion-state condition[^"]*"[^>]*>([^<]*)<', text)
    assert ("Herido" in words) == (view == PartyView.BAND)
    bare = re.sub(r'href="[^"]*"', "", text)  # a link's ids are no PG (/characters/1202/)
    assert "/120" not in bare.replace("PG 97/120", "") and "97 / 120" not in bare
    # Tomás shows his exact PG whatever the campaign says; Nyx is never named, nor her PG shown.
    assert "Tomás" in text and "PG 23/50" in text
    assert "Nyx" not in text and "31/40" not in text
    # No wound or illness of anyone else, no sheet or action of theirs.
    assert "Peste" not in text and "Ataque físico" not in text
    for other in (party.borin.pk, party.tomas.pk, party.nyx.pk):
        assert f"/characters/{other}/" not in text and f"character-{other}" not in text and f"sheet-{other}" not in text


def no_finer_detail(fragment: str) -> None:
    """The companions' fragment tells nothing the words and numbers shown do not: no class of a penalty row but on the
    bar beside an exact PG, no title, label or data attribute, no link but to the rules page."""
    for item in re.findall(r'<li class="companion">.*?</li>', fragment, re.S):
        assert ("band-" in item) <= bool(re.search(r"PG \d+/\d+.*progress class=\"pg-bar band-", item, re.S)), item
    assert "title=" not in fragment and "data-" not in fragment
    assert "aria-label" not in fragment and "/characters/" not in fragment and "/act/" not in fragment
    assert all(link.startswith("/rules/#condition-") for link in re.findall(r'href="([^"]*)"', fragment))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("view", PartyView.values)
def test_a_players_page_and_stream_carry_exactly_what_the_party_view_allows(world: World, view: str):
    party = make_party(world)
    set_campaign_view(party.world, view)
    campaign = Campaign.objects.get(pk=world.campaign_a.pk)

    page = on_a_thread(lambda: page_of(world.player_a, campaign))
    what_player_a_may_read(page, view, party)
    no_finer_detail(party_section(page))
    # The other player sees Aldara the same way, and their own Borin in full.
    other = on_a_thread(lambda: page_of(world.player_a2, campaign))
    assert ("PG 69/80" in other) == (view == PartyView.EXACT) and "Ataque físico" in other and "Nyx" not in other

    audience = access.audience_of(world.player_a, campaign)
    full = streamed(audience)
    assert full is not None
    what_player_a_may_read(full, view, party)
    no_finer_detail(party_section(full))
    assert party_section(page) == party_section(full)  # live equals reload

    # A change to Borin alone reaches player A as their companions, drawn again, and as nothing else; while Borin is
    # hidden from them, as nothing at all.
    event = actions.apply_damage(campaign, [party.borin], Attack(amount=90), by=world.gm_a).event  # 7/120: Malherido
    drawn = streamed(audience, event=event)
    assert drawn is not None
    # Their sheet's stream carries nothing of it: Borin is not on Aldara's sheet.
    assert streamed(audience, sheet=party.aldara.pk, event=event) == ""
    if view == PartyView.HIDDEN:
        assert drawn == ""
        return
    changed = TOKEN.sub("TOKEN", drawn)
    assert region_ids(changed) == ["party"]  # not the clock, which did not move, nor their own card or checks
    assert ("PG 7/120" in changed) == (view == PartyView.EXACT)
    assert ("Malherido" in changed) == (view == PartyView.BAND)
    assert "Borin" in changed and "Nyx" not in changed and "Peste" not in changed and "PG 23/50" in changed
    no_finer_detail(party_section(changed))
    # Borin's 7 PG is the row of 7–8, which shares "Malherido" with 9–10: as a word, nothing tells them apart.
    assert ("band-8" in changed) == (view == PartyView.EXACT)


@pytest.mark.django_db(transaction=True)
def test_a_campaign_edit_changes_the_companions_in_the_players_streams(world: World):
    party = make_party(world)
    audience = access.audience_of(world.player_a, world.campaign_a)
    drawn = streamed(audience)
    assert drawn is not None and "Herido" in party_section(drawn)
    set_campaign_view(party.world, PartyView.EXACT)  # an event about no character: it changes what each player reads
    event = Event.objects.latest("id")
    assert event.characters == []
    drawn = streamed(audience, event=event)
    assert drawn is not None and "party" in region_ids(drawn)
    assert "PG 97/120" in party_section(drawn) and "Herido" not in party_section(drawn)
    # The GM's table gets its control drawn again, with the new choice; it has no companions.
    gm = streamed(access.audience_of(world.gm_a, world.campaign_a), event=event)
    assert gm is not None
    control = element_by_id(gm, "party-view").html
    assert '<option value="exact" selected>' in control and "party" not in region_ids(gm)


def test_removed_characters_and_the_gm_have_no_companions(party: Party):
    world = party.world
    actions.remove_character(world.campaign_a, party.borin, by=world.gm_a)
    roster = access.roster_of(world.campaign_a)
    assert roster.companions_of(access.audience_of(world.player_a, world.campaign_a)) == [party.tomas]
    assert not roster.companions_of(access.audience_of(world.gm_a, world.campaign_a))
    # A member who plays no character here any more sees no companions (nor may they watch the stream).
    actions.edit_character(world.campaign_a, party.aldara, actions.Sheet("Aldara", 8), by=world.gm_a)
    roster = access.roster_of(world.campaign_a)
    assert not roster.companions_of(access.audience_of(world.player_a, world.campaign_a))
    assert not roster.still_sees(access.audience_of(world.player_a, world.campaign_a))
    assert "Tomás" not in page_of(world.player_a, world.campaign_a)


def test_a_character_override_wins_over_the_campaign(party: Party):
    world = party.world
    set_campaign_view(party.world, PartyView.HIDDEN)
    page = page_of(world.player_a, world.campaign_a)
    assert "Borin" not in page and "PG 23/50" in page
    actions.edit_character(world.campaign_a, party.borin, actions.Sheet("Borin", 12, party_view="band"), by=world.gm_a)
    page = page_of(world.player_a, world.campaign_a)
    assert "Borin" in page and "Herido" in page and "97/120" not in page


# --- the write path --------------------------------------------------------------------------------------------------


def test_edit_campaign_logs_the_party_view_and_undo_puts_it_back(world: World):
    campaign = world.campaign_a
    outcome = actions.edit_campaign(campaign, name="A", gm=world.gm_a, party_view="exact", by=world.gm_a)
    assert outcome.event is not None and outcome.event.details["changes"] == {"party_view": ["band", "exact"]}
    assert Campaign.objects.get(pk=campaign.pk).party_view == "exact"
    [entry] = table_log(campaign)[:1]
    assert entry.title == "Campaña editada" and entry.lines == ["Los jugadores ven de los demás: sus PG exactos"]
    # None leaves it as it is; the same value changes nothing and logs nothing
    assert actions.edit_campaign(campaign, name="A", gm=world.gm_a, by=world.gm_a).event is None
    assert actions.edit_campaign(campaign, name="A", gm=world.gm_a, party_view="exact", by=world.gm_a).event is None
    actions.undo(campaign, by=world.gm_a)
    assert Campaign.objects.get(pk=campaign.pk).party_view == "band"
    # with a rename at once: both come back
    actions.edit_campaign(campaign, name="B2", gm=world.gm_a, party_view="hidden", by=world.gm_a)
    assert table_log(campaign)[0].lines == ["Nombre: A → B2", "Los jugadores ven de los demás: nada"]
    actions.undo(campaign, by=world.gm_a)
    assert Campaign.objects.filter(pk=campaign.pk).values_list("name", "party_view").get() == ("A", "band")


@pytest.mark.parametrize("bad", ["", "all", "EXACT", "exact ", "\x00", "nada"])
def test_edit_campaign_refuses_an_unknown_party_view_and_writes_nothing(world: World, bad: str):
    before = (snapshot(), list(Campaign.objects.values_list("name", "party_view")))
    with pytest.raises(actions.ActionError) as refused:
        actions.edit_campaign(world.campaign_a, name="Otro", gm=world.gm_a, party_view=bad, by=world.gm_a)
    assert refused.value.field == "party_view" and "una palabra" in refused.value.message
    assert (snapshot(), list(Campaign.objects.values_list("name", "party_view"))) == before


def test_a_characters_party_view_is_part_of_its_sheet(world: World):
    sheet = actions.Sheet.of(world.char_a2)
    assert sheet.party_view == ""
    hidden = actions.Sheet(**{**vars(sheet), "party_view": "hidden"})
    outcome = actions.edit_character(world.campaign_a, world.char_a2, hidden, by=world.gm_a)
    assert outcome.event is not None and outcome.event.details["changes"] == {"party_view": ["", "hidden"]}
    assert reload(world.char_a2).party_view == "hidden"
    assert table_log(world.campaign_a)[0].lines == ["Lo que ven los demás jugadores: lo que diga la campaña → nada"]
    actions.undo(world.campaign_a, by=world.gm_a)
    assert reload(world.char_a2).party_view == ""
    before = snapshot()
    for bad in ("secret", "HIDDEN", "\x00"):
        with pytest.raises(actions.ActionError) as refused:
            actions.edit_character(world.campaign_a, world.char_a2, actions.Sheet("Borin", 12, party_view=bad), by=None)
        assert refused.value.field == "party_view"
        with pytest.raises(actions.ActionError):
            actions.add_character(world.campaign_a, actions.Sheet("Eira", 9, party_view=bad), by=None)
    assert snapshot() == before


def test_the_gm_sets_a_characters_party_view_on_its_form(world: World):
    url = reverse("character_edit", args=[world.campaign_a.pk, world.npc_a.pk])
    form = client_for(world.gm_a).get(url).content.decode()
    select = re.search(r'<select name="party_view"[^>]*>(.*?)</select>', form, re.S)
    assert select and "Lo que ven los demás jugadores" in form
    assert re.findall(r'<option value="([^"]*)"', select.group(1)) == ["", "exact", "band", "hidden"]
    assert "lo que diga la campaña" in select.group(1).split("</option>")[0]
    data = {"name": "Tomás", "constitution": "5", "jump": "0", "heal_wounds": "0", "weight_kg": "70", "notes": ""}
    assert client_for(world.gm_a).post(url, {**data, "party_view": "hidden"}).status_code == 302
    assert reload(world.npc_a).party_view == "hidden"
    refused = client_for(world.gm_a).post(url, {**data, "party_view": "todo"})
    assert refused.status_code == 400 and "errorlist" in refused.content.decode()
    assert reload(world.npc_a).party_view == "hidden"
    # the GM's card says so
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Los demás jugadores ven: nada" in table


# --- the GM's control ------------------------------------------------------------------------------------------------


def party_view_url(world: World) -> str:
    return reverse("party_view", args=[world.campaign_a.pk])


def test_the_gm_switches_the_party_view_from_the_table(world: World):
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert 'id="form-partyview"' in table and '<option value="band" selected>' in table
    response = client_for(world.gm_a).post(party_view_url(world), {"party_view": "exact"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    # the control drawn again, once, with the new choice; the log's new entry; the keyboard back on the select
    assert region_ids(html).count("party-view") == 1 and response["X-Regions"] == "1"
    assert '<option value="exact" selected>' in element_by_id(html, "party-view").html
    assert "Los jugadores ven de los demás: sus PG exactos" in element_by_id(html, "log-entries").html
    assert response["X-Focus"] == "party_view" and response["HX-Reswap"] == "none"
    assert Campaign.objects.get(pk=world.campaign_a.pk).party_view == "exact"
    # without htmx: a plain form that redirects to the table
    response = client_for(world.gm_a).post(party_view_url(world), {"party_view": "hidden"})
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=[world.campaign_a.pk])
    assert Campaign.objects.get(pk=world.campaign_a.pk).party_view == "hidden"


@pytest.mark.parametrize("htmx", [True, False])
@pytest.mark.parametrize("bad", [{"party_view": "todo"}, {"party_view": "exact\x00"}, {}, {"party_view": ["a", "b"]}])
def test_a_forged_party_view_is_refused_with_a_message(world: World, bad: dict, htmx: bool):
    before = (snapshot(), Campaign.objects.get(pk=world.campaign_a.pk).party_view)
    response = client_for(world.gm_a).post(party_view_url(world), bad, **(HTMX if htmx else {}))
    assert response.status_code == (422 if htmx else 400)
    assert "errorlist" in response.content.decode()
    assert (snapshot(), Campaign.objects.get(pk=world.campaign_a.pk).party_view) == before


def test_only_the_gm_sets_the_party_view(world: World):
    for user in (world.player_a, world.gm_b, world.outsider):
        assert client_for(user).post(party_view_url(world), {"party_view": "exact"}).status_code == 404
    assert Campaign.objects.get(pk=world.campaign_a.pk).party_view == "band" and not Event.objects.exists()


# --- a player's own sheet ------------------------------------------------------------------------------------------


def aldaras_sheet_as_her_player_reads_it(world: World) -> list[str]:
    """Aldara's sheet for player_a: the page, its log's older page and the whole screen its stream sends first."""
    campaign = world.campaign_a
    urls = [reverse(name, args=[campaign.pk, world.char_a1.pk]) for name in ("character", "character_log")]
    texts = [on_a_thread(lambda url=url: client_for(world.player_a).get(url).content.decode()) for url in urls]
    drawn = streamed(access.audience_of(world.player_a, campaign), sheet=world.char_a1.pk)
    whole = {region.name for region in SCREENS[Screen.SHEET]}
    assert drawn is not None and set(region_ids(drawn)) == whole
    return [*texts, drawn]


@pytest.mark.django_db(transaction=True)
def test_a_players_sheet_words_only_their_own_lines_of_a_group_event(world: World):
    """A fall or an exposure of several characters words each one's roll and PG in one entry: a player's sheet (page,
    older pages and stream) shows only their own lines, whatever the party view."""
    gm, campaign = world.gm_a, world.campaign_a
    Disease.objects.ensure_builtin()
    set_campaign_view(world, PartyView.HIDDEN)
    group = [world.char_a1, world.char_a2, world.npc_a]
    dice = {c.pk: 1 for c in group}
    actions.apply_damage(campaign, group, Fall(height_m=9, difficulty=30, dice=dice), by=gm)
    actions.expose(campaign, group, plague(), dice_by_character=dice, by=gm)
    actions.apply_damage(campaign, group, Gas(turns=2), by=gm)
    actions.undo(campaign, by=gm)
    borin, tomas = reload(world.char_a2), reload(world.npc_a)
    for text in aldaras_sheet_as_her_player_reads_it(world):
        assert "Aldara — caída" in text and "Aldara — resistencia" in text and "Aldara pierde" in text
        assert "Borin" not in text and "Tomás" not in text and not re.search(r"#\d+\b", text)  # no other, even unnamed
        assert f"{borin.max_pg} →" not in text and f"{tomas.max_pg} →" not in text
    # the GM's table words everyone's lines
    table = on_a_thread(lambda: client_for(gm).get(reverse("campaign", args=[campaign.pk])).content.decode())
    assert "Borin — caída" in table and "Tomás — resistencia" in table


@pytest.mark.django_db(transaction=True)
def test_a_secret_healer_is_not_named_on_the_patients_sheet(world: World):
    """Nyx, an NPC kept secret, treats Aldara's wounds and her plague: Aldara's player reads "Alguien" on her sheet
    (page, older log pages, stream; an undo's entry too), the GM reads Nyx, and a healer the player may see is named."""
    gm, campaign = world.gm_a, world.campaign_a
    Disease.objects.ensure_builtin()
    nyx = actions.add_character(campaign, actions.Sheet("Nyx", 4, heal_wounds=3, party_view="hidden"), by=gm)
    healer = nyx.characters[0]
    tomas = Character.objects.get(pk=world.npc_a.pk)
    actions.edit_character(campaign, tomas, actions.Sheet(tomas.name, tomas.constitution, heal_wounds=2), by=gm)
    actions.apply_damage(campaign, [world.char_a1], Attack(amount=10), by=gm)
    actions.treat_wounds(campaign, world.char_a1, healer, by=gm)
    actions.expose(campaign, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=gm)
    [illness] = world.char_a1.illnesses.all()
    actions.treat_illness(campaign, world.char_a1, illness, tomas, by=gm)
    actions.undo(campaign, by=gm)
    actions.treat_illness(campaign, world.char_a1, illness, healer, by=gm)
    for text in aldaras_sheet_as_her_player_reads_it(world):
        assert "Nyx" not in text
        assert "Alguien trata las heridas de Aldara" in text and "Alguien trata Peste de Aldara" in text
        assert "Deshecho: Tomás trata Peste de Aldara" in text  # Tomás is shown to the players: named
    # Nyx shown to the players: the sheet, live, names her at once (as a reload would); hidden again, "Alguien".
    audience = access.audience_of(world.player_a, campaign)
    shown = actions.edit_character(campaign, healer, actions.Sheet("Nyx", 4, heal_wounds=3, party_view="band"), by=gm)
    redrawn = streamed(audience, sheet=world.char_a1.pk, event=shown.event)
    assert redrawn is not None and "Nyx trata las heridas de Aldara" in element_by_id(redrawn, "sheet-log").html
    set_campaign_view(world, PartyView.HIDDEN)
    hidden = actions.edit_character(campaign, healer, actions.Sheet("Nyx", 4, heal_wounds=3), by=gm)  # as it says
    again = streamed(audience, sheet=world.char_a1.pk, event=hidden.event)
    assert again is not None and "Nyx" not in again and "Alguien trata" in element_by_id(again, "sheet-log").html
    sheet_url = reverse("character", args=[campaign.pk, world.char_a1.pk])
    gm_sheet = on_a_thread(lambda: client_for(gm).get(sheet_url).content.decode())
    assert "Nyx trata las heridas de Aldara" in gm_sheet and "Nyx trata Peste de Aldara" in gm_sheet
    # English too
    english = on_a_thread(lambda: client_for(world.player_a).get(sheet_url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert "Nyx" not in english and "Someone treats" in english


def test_a_companions_word_links_to_its_line_of_the_rules(party: Party, client):
    page = page_of(party.world.player_a, party.world.campaign_a)
    assert '<a class="companion-state condition condition-hurt" href="/rules/#condition-hurt">Herido</a>' in page
    rules = client.get(reverse("rules")).content.decode()
    assert 'id="condition-hurt"' in rules
