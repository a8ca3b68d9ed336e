"""The log tells the story (issue 9): damage with PG before → after and its inputs, damage to the dead, deaths at
their campaign second, removed characters by name; and the cards read right: healing times, the dead, the low-PG
explanation, the exertion link."""

import re

import pytest
from django.urls import reverse

from characters.models import Character
from play.log.pages import sheet_log, table_log
from play.screens.snapshot import cards_for
from rules import actions, engine
from rules.damage import Attack, Collision, Drowning, Fall, Gas
from rules.engine import DAY, HOUR, WEEK
from rules.models import Disease
from tests.helpers import World, client_for, gm_table, plague, reload
from tests.regions import element_by_id


def latest_entry(world: World):
    return table_log(world.campaign_a)[0]


def sheet(world: World, character: Character, user=None) -> str:
    url = reverse("character", args=[world.campaign_a.pk, character.pk])
    return client_for(user or world.gm_a).get(url).content.decode()


def card(world: World, character: Character):
    [found] = cards_for(world.campaign_a, [reload(character)])
    return found


# --- damage entries --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage, inputs, lost",
    [
        (Attack(amount=7), [], 7),
        (Collision(speed_kmh=50), ["A 50 km/h, con el peso de cada hoja"], 5 + 7),
        (Collision(speed_kmh=50, weight_kg=90), ["A 50 km/h, con 90 kg"], 5 + 9),
        (Drowning(turns=3), ["3 turnos"], 6),
        (Gas(turns=1), ["1 turno"], 1),
    ],
)
def test_a_damage_entry_shows_its_inputs_and_pg_before_and_after(world: World, damage, inputs, lost):
    actions.apply_damage(world.campaign_a, [world.char_a1], damage, by=world.gm_a)
    entry = latest_entry(world)
    assert entry.lines == [*inputs, f"Aldara pierde {lost} PG (80 → {80 - lost})"]
    assert f"Aldara pierde {lost} PG (80 → {80 - lost})" in gm_table(world)


def test_a_fall_entry_shows_height_weight_difficulty_and_the_check(world: World):
    fall = Fall(height_m=3, difficulty=12, dice={world.char_a1.pk: 2})  # 2 + Saltar 0 < 12: 3 + 7 PG
    actions.apply_damage(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    lines = latest_entry(world).lines
    assert lines[0] == "Desde 3 m, con el peso de cada hoja; dificultad 12"
    assert lines[1].startswith("Aldara — caída: 1d20 (2)") and lines[1].endswith("contra 12: fallo")
    assert lines[2] == "Aldara pierde 10 PG (80 → 70)"
    fall = Fall(height_m=3, weight_kg=70, difficulty=12, dice={world.char_a1.pk: 20})
    actions.apply_damage(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    assert latest_entry(world).lines[0] == "Desde 3 m, con 70 kg; dificultad 12"


def test_a_dice_attack_shows_the_roll(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(expression="2d6+1"), by=world.gm_a)
    lines = latest_entry(world).lines
    lost = 80 - reload(world.char_a1).pg
    assert lines[0].startswith("Tirada de daño: 2d6 (")
    assert f"Aldara pierde {lost} PG (80 → {80 - lost})" in lines
    assert f"Borin pierde {lost} PG (120 → {120 - lost})" in lines


def test_damage_to_the_dead_says_so(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    assert latest_entry(world).lines == ["Tomás pierde 50 PG (50 → 0)", "Tomás muere (Día 1, 00:00)"]
    actions.advance_clock(world.campaign_a, HOUR, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.npc_a, world.char_a2], Gas(turns=4), by=world.gm_a)
    lines = latest_entry(world).lines
    assert "Tomás ya había muerto: la herida (4 PG) queda anotada" in lines
    assert "Borin pierde 4 PG (120 → 116)" in lines
    assert not any("muere" in line for line in lines)  # he died before, not here


def test_a_group_fall_names_the_dead_it_skipped(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    fall = Fall(height_m=2, dice={world.char_a1.pk: 20})
    actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], fall, by=world.gm_a)
    assert "Tomás ha muerto: sin tirada" in latest_entry(world).lines


def test_a_group_exposure_names_the_dead_it_skipped(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    actions.expose(
        world.campaign_a, [world.char_a1, world.npc_a], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a
    )
    lines = latest_entry(world).lines
    assert "Tomás ha muerto: sin tirada" in lines and "Aldara enferma" in lines


# --- deaths and time -------------------------------------------------------------------------------------------------


def test_a_death_inside_an_advance_is_logged_at_its_campaign_second(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=79), by=world.gm_a)  # 1 PG
    actions.advance_clock(world.campaign_a, HOUR + 61, resting=[], by=world.gm_a)
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    # Nobody rests: the plague's first weekly PG, a week after she fell ill, kills her.
    outcome = actions.advance_clock(world.campaign_a, 2 * WEEK, resting=[], by=world.gm_a)
    assert reload(world.char_a1).died_at == HOUR + 61 + WEEK
    entry = latest_entry(world)
    assert (entry.when, entry.title) == ("Día 1, 01:01:01", "Pasa el tiempo: 2 semanas")
    assert entry.lines == ["Aldara: 1 → 0 PG", "Aldara muere (Día 8, 01:01:01)"]
    assert outcome.event.clock_after == HOUR + 61 + 2 * WEEK
    assert "Aldara muere (Día 8, 01:01:01)" in gm_table(world)
    assert "Aldara muere (Día 8, 01:01:01)" in sheet(world, world.char_a1, world.player_a)


def test_each_entry_shows_when_it_happened(world: World):
    actions.advance_clock(world.campaign_a, DAY + 2 * HOUR, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    assert [entry.when for entry in table_log(world.campaign_a)] == ["Día 2, 02:00", "Día 1, 00:00"]


def test_removed_characters_keep_their_names_in_the_log(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a, world.char_a2], Attack(amount=5), by=world.gm_a)
    actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    html = gm_table(world)
    assert "Tomás pierde 5 PG (50 → 45)" in html and "Tomás sale de la campaña" in html
    assert f"#{world.npc_a.pk}" not in html
    assert f'id="character-{world.npc_a.pk}"' not in html  # gone from the table itself


def test_a_players_sheet_log_keeps_only_their_lines(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Gas(turns=2), by=world.gm_a)
    [entry] = sheet_log(world.campaign_a, reload(world.char_a1))
    assert entry.lines == ["2 turnos", "Aldara pierde 2 PG (80 → 78)"]
    assert "Borin" not in sheet(world, world.char_a1, world.player_a)


# --- the cards' healing times ----------------------------------------------------------------------------------------


def test_drowning_and_gas_heal_without_rest(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Drowning(turns=3), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=2), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    html = gm_table(world)
    assert "sana en 6 min<" in html and "sana en 6 min de descanso" not in html
    assert "sana en 2 h<" in html and "sana en 2 h de descanso" not in html
    assert "sana en 3 días de descanso" in html
    page = sheet(world, world.char_a1, world.player_a)
    assert "Sana del todo en 6 min, descanse o no." in page and "Sana del todo en 3 días de descanso." in page


def test_a_drowning_wound_half_healed_reads_one_minute(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Drowning(turns=1), by=world.gm_a)  # 2 PG
    actions.advance_clock(world.campaign_a, 60, resting=[], by=world.gm_a)
    [line] = card(world, world.char_a1).wounds
    assert (line.kind, line.outstanding, line.healing_time, line.rests) == ("drowning", 1, 60, False)
    html = gm_table(world)
    assert "sana en 1 min<" in html and "sana en 1 min de descanso" not in html


def test_a_dead_characters_wounds_show_no_healing_time(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Drowning(turns=10), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=70), by=world.gm_a)
    assert all(line.dead for line in card(world, world.char_a1).wounds)
    html = sheet(world, world.char_a1, world.player_a)
    assert "Asfixia por inmersión" in html and "Ataque físico directo" in html
    assert "Sana del todo" not in html and "cuando la enfermedad esté curada" not in html
    table_html = gm_table(world)
    start = table_html.index(f'id="character-{world.char_a1.pk}"')
    aldara_card = table_html[start : table_html.index(f'id="slot-{world.char_a1.pk}"')]
    assert "Ataque físico directo" in aldara_card
    assert "sana en" not in aldara_card and "se recupera" not in aldara_card


# --- the sheet's low-PG explanation and the exertion link ------------------------------------------------------------

EXPLANATION = "Con pocos PG todas las tiradas sufren"


def test_an_illness_alone_brings_no_low_pg_explanation(world: World):
    flu = Disease.objects.get(name="Gripe", builtin=True)
    actions.expose(world.campaign_a, [world.npc_a], flu, dice_by_character={world.npc_a.pk: 1}, by=world.gm_a)
    html = sheet(world, world.npc_a)
    assert "−2 a todas las tiradas" in html  # the illness's penalty is shown…
    assert EXPLANATION not in html  # …but PG is not what causes it
    assert not card(world, world.npc_a).low_pg_penalty


@pytest.mark.parametrize("pg, explained", [(11, False), (10, True), (5, True), (1, True), (0, False)])
def test_the_low_pg_explanation_appears_exactly_when_pg_penalises(world: World, pg: int, explained: bool):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50 - pg), by=world.gm_a)
    assert card(world, world.npc_a).low_pg_penalty is explained
    assert (EXPLANATION in sheet(world, world.npc_a)) is explained


@pytest.mark.parametrize("pg, offered", [(50, False), (5, False), (4, True), (1, True), (0, False)])
def test_the_exertion_link_is_offered_only_from_four_pg_to_one(world: World, pg: int, offered: bool):
    if pg < 50:
        actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50 - pg), by=world.gm_a)
    assert card(world, world.npc_a).can_exert is offered
    html = gm_table(world)
    assert (f"exertion/?character={world.npc_a.pk}" in html) is offered
    assert ("¡Esfuerzo!" in html) is offered


def test_exertion_at_high_pg_is_refused_over_http(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=45), by=world.gm_a)  # 5 PG
    url = reverse("exertion", args=[world.campaign_a.pk])
    response = client_for(world.gm_a).post(url, {"character": world.npc_a.pk, "die": "1"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert "Tomás no necesita tirada de esfuerzo: solo se hace con 4 PG o menos." in response.content.decode()
    assert reload(world.npc_a).pg == 5 and engine.penalties(5).exertion is False


def test_the_rules_refusals_reach_the_gm_in_english_too(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=110), by=world.gm_a)  # 10 PG
    client = client_for(world.gm_a)
    english = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_LANGUAGE": "en"}
    response = client.post(
        reverse("expose", args=[world.campaign_a.pk]), {"disease": plague().pk, "characters": world.npc_a.pk}, **english
    )
    assert response.status_code == 422 and "Tomás is dead and cannot do that." in response.content.decode()
    response = client.post(
        reverse("exertion", args=[world.campaign_a.pk]), {"character": world.char_a2.pk, "die": "3"}, **english
    )
    assert response.status_code == 422
    assert "Borin needs no exertion check: it is only made at 4 HP or less." in response.content.decode()
    first = actions.advance_clock(world.campaign_a, 60, by=world.gm_a).event
    actions.advance_clock(world.campaign_a, 60, by=world.gm_a)
    response = client.post(reverse("undo", args=[world.campaign_a.pk]), {"event": first.pk}, **english)
    assert "That change was already undone or is no longer the latest: see the log." in response.content.decode()


def test_an_entry_that_cannot_be_read_is_named_by_its_kind(world: World, caplog):
    """A damaged entry (rules.events refuses it where it is read) costs one line, never the page; it cannot be
    undone, and the refusal says so."""
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    assert event is not None
    event.details["dice"] = 5  # not a roll of dice
    event.save(update_fields=["details"])
    with pytest.raises(actions.ActionError, match="su registro está incompleto o dañado"):
        actions.undo(world.campaign_a, by=world.gm_a)
    [damaged] = table_log(world.campaign_a)[:1]
    assert damaged.title == "daño (registro importado ilegible)" and damaged.lines == []
    assert [entry.title for entry in sheet_log(world.campaign_a, world.char_a1)][:1] == [damaged.title]
    assert any(record.name == "play.log.story" and "details.dice" in record.getMessage() for record in caplog.records)
    assert "registro importado ilegible" in gm_table(world)


def test_a_long_log_shows_its_latest_page_and_older_pages_on_demand(world: World):
    from play.log.pages import LOG_LENGTH, SHEET_LOG_LENGTH

    for _ in range(LOG_LENGTH + 5):
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=1), by=world.gm_a)
    gm = client_for(world.gm_a)
    table = gm.get(f"/campaigns/{world.campaign_a.pk}/").content.decode()
    first_page = drawn_ids(element_by_id(table, "log-entries").html)
    assert len(first_page) == LOG_LENGTH
    more = more_of(element_by_id(table, "log-more").html)
    assert more == f"/campaigns/{world.campaign_a.pk}/log/?before={first_page[-1]}"
    assert "Sucesos anteriores" in table
    older = gm.get(more, headers={"HX-Request": "true"})
    assert older.status_code == 200
    ids = drawn_ids(older.text)
    assert len(ids) == 5 and max(ids) < first_page[-1]  # 45 damages: 5 older than the first page
    assert more_of(older.text) is None and "Sucesos anteriores" not in older.text
    assert gm.get(f"/campaigns/{world.campaign_a.pk}/log/?before=²").status_code == 404
    assert client_for(world.player_a).get(more).status_code == 404  # the GM's log is the GM's

    sheet = client_for(world.player_a).get(f"/campaigns/{world.campaign_a.pk}/characters/{world.char_a1.pk}/").text
    sheet_more = more_of(element_by_id(sheet, "sheet-log-more").html)
    assert len(drawn_ids(element_by_id(sheet, "sheet-log").html)) == SHEET_LOG_LENGTH and sheet_more
    older_sheet = client_for(world.player_a).get(sheet_more)
    assert older_sheet.status_code == 200 and len(drawn_ids(older_sheet.text)) == SHEET_LOG_LENGTH
    assert client_for(world.player_a2).get(sheet_more).status_code == 404  # not their character


def drawn_ids(html: str) -> list[int]:
    """The event ids of the log entries drawn in this HTML, in their order."""
    return [int(pk) for pk in re.findall(r'<li class="entry[^"]*" id="entry-\d+" data-event="(\d+)"', html)]


def more_of(html: str) -> str | None:
    """Where a log's "Sucesos anteriores" leads, if it is there."""
    found = re.search(r'hx-get="([^"]+)"', html)
    return None if found is None else found[1].replace("&amp;", "&")


def test_an_undone_entry_is_worded_again_as_undone(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
    [first] = table_log(world.campaign_a)
    assert not first.event.undone and first.title == "Daño: Ataque físico directo"
    actions.undo(world.campaign_a, by=world.gm_a)
    undo, damage = table_log(world.campaign_a)
    assert undo.title == "Deshecho: Daño: Ataque físico directo" and damage.event.pk == first.event.pk
    assert damage.event.undone and damage.lines == first.lines
    entry = element_by_id(gm_table(world), f"entry-{damage.event.pk}").html
    assert 'class="entry undone"' in entry and "deshecho" in entry
