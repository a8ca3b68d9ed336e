"""Called checks on the screens (play.screens.checks, the answer and cancel views, the live streams), through real
PostgreSQL: who may answer what, once, what each screen shows, and that a player's stream carries only their own
checks."""

import pytest
from django.urls import reverse

from campaigns import access
from rules import actions
from rules.actions import Call
from rules.damage import Attack
from rules.models import CalledCheck, CheckKind
from tests.helpers import HTMX, World, client_for, plague, reload, snapshot, streamed
from tests.regions import element_by_id, region_ids

FALL = Call(CheckKind.FALL, height_m=10, difficulty=15)


def call(world: World, kind: Call = FALL) -> dict[str, CalledCheck]:
    outcome = actions.call_check(world.campaign_a, [world.char_a1, world.char_a2, world.npc_a], kind, by=world.gm_a)
    return {check.character.name: check for check in CalledCheck.objects.filter(called=outcome.event)}


def answer(user, world: World, check: CalledCheck, **data: str):
    url = reverse("answer_check", args=[world.campaign_a.pk])
    return client_for(user).post(url, {"check": str(check.pk), "where": "page", **data}, **HTMX)


def test_the_players_page_and_sheet_show_the_checks_they_owe(world: World):
    checks = call(world)
    page = client_for(world.player_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Tirada de caída (10 m)" in page and "Aldara:</strong> 1d20 + Saltar 0 contra 15" in page
    assert f'name="check" value="{checks["Aldara"].pk}"' in page
    # another player's check:
    assert f'name="check" value="{checks["Borin"].pk}"' not in page and "Borin:</strong>" not in page
    sheet = client_for(world.player_a).get(reverse("character", args=[world.campaign_a.pk, world.char_a1.pk]))
    assert "1d20 + Saltar 0 contra 15" in sheet.content.decode()
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Tirada de caída (10 m, dificultad 15)" in table
    assert all(f'name="check" value="{check.pk}"' in table for check in checks.values())


def test_what_to_roll_carries_the_penalties_the_roll_will_take(world: World):
    # Aldara at 5 PG (−4 to physical rolls) and ill with the plague (−2 more, on its own line): the fall the player is
    # asked for says both, as the log then writes the roll.
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=world.char_a1.pg - 5), by=world.gm_a)
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    checks = call(world)
    owed = "1d20 + Saltar 0 − 4 (PG bajos) − 2 (Peste) contra 15"
    page = client_for(world.player_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Aldara:</strong> " + owed in page
    table = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert "Aldara:</strong> " + owed in table and "Borin:</strong> 1d20 + Saltar 0 contra 15" in table
    answer(world.player_a, world, checks["Aldara"], die="19")
    assert "Aldara — caída: 1d20 (19) + Saltar 0 − 4 (PG bajos) − 2 (Peste) = 13 contra 15: fallo" in (
        client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    )


def test_a_player_answers_their_own_check_once(world: World):
    checks = call(world)
    response = answer(world.player_a, world, checks["Aldara"], die="20")
    assert response.status_code == 200
    text = response.content.decode()
    assert 'id="check-said"' in text and "1d20 (20) + Saltar 0 = 20 contra 15: éxito" in text
    checks["Aldara"].refresh_from_db()
    assert checks["Aldara"].status == "answered"
    before = snapshot()
    again = answer(world.player_a, world, checks["Aldara"], die="1")  # a second tab, a double tap
    assert again.status_code == 422 and "ya no está pendiente" in again.content.decode()
    assert snapshot() == before


def test_a_player_cannot_answer_another_characters_check_nor_the_gm_panel(world: World):
    checks = call(world)
    before = snapshot()
    for check in (checks["Borin"], checks["Tomás"]):
        response = answer(world.player_a, world, check, die="20")
        # It is pending; it is not theirs, and they are told so (issue 24).
        text = response.content.decode()
        assert response.status_code == 422 and "Esa tirada es de un personaje que no es tuyo" in text
        assert "ya no está pendiente" not in text
    outsider = answer(world.outsider, world, checks["Aldara"], die="20")
    assert outsider.status_code == 404
    other_gm = answer(world.gm_b, world, checks["Aldara"], die="20")
    assert other_gm.status_code == 404
    assert snapshot() == before
    assert all(check.status == "pending" for check in CalledCheck.objects.all())


def test_a_missing_or_odd_die_is_a_message_beside_it(world: World):
    checks = call(world)
    before = snapshot()
    for die, message in (("", "Escribe el dado"), ("21", "20"), ("٣", "número"), ("0", "1"), ("x" * 100_000, "")):
        response = answer(world.player_a, world, checks["Aldara"], die=die)
        assert response.status_code == 422, die
        text = response.content.decode()
        assert 'role="alert"' in text and message in text and f'id="check-{checks["Aldara"].pk}"' in text
    assert snapshot() == before
    resistance = call(world, Call(CheckKind.RESISTANCE, disease=plague()))
    response = answer(world.player_a, world, resistance["Aldara"], die="13")  # a 1d12
    assert response.status_code == 422 and "Un 1d12 da de 1 a 12." in response.content.decode()


def test_the_server_rolls_when_asked_even_over_a_half_typed_die(world: World):
    checks = call(world)
    response = answer(world.player_a, world, checks["Aldara"], die="9999", server="1")
    assert response.status_code == 200
    assert CalledCheck.objects.get(pk=checks["Aldara"].pk).closed.details["call"]["typed"] is False


@pytest.mark.parametrize("server", ["false", "False", "FALSE", ""])  # as a checkbox reads them (Django)
def test_a_server_field_that_says_no_asks_for_the_die(world: World, server: str):
    checks = call(world)
    before = snapshot()
    for die in ("", "7"):  # no die: the message beside it; a die: the player's own roll
        response = answer(world.player_a, world, checks["Aldara"], die=die, server=server)
        if not die:
            assert response.status_code == 422 and "Escribe el dado" in response.content.decode()
            assert snapshot() == before
        else:
            assert response.status_code == 200
            assert CalledCheck.objects.get(pk=checks["Aldara"].pk).closed.details["call"]["typed"] is True


def test_the_gm_answers_from_the_table_and_cancels(world: World):
    checks = call(world)
    url = reverse("answer_check", args=[world.campaign_a.pk])
    gm = client_for(world.gm_a)
    response = gm.post(url, {"check": str(checks["Tomás"].pk), "die": "1", "where": "table"}, **HTMX)
    text = response.content.decode()
    assert response.status_code == 200 and region_ids(text).count("calls") == 1
    assert "Tomás — caída: 1d20 (1)" in element_by_id(text, "calls").html
    assert "Tirada pedida: gm_a anota el dado" in element_by_id(text, "log-entries").html
    assert f"card-{world.npc_a.pk}" in region_ids(text) and response["X-Focus"] == "calls"
    assert reload(world.npc_a).pg < world.npc_a.pg
    cancel = reverse("cancel_check", args=[world.campaign_a.pk])
    pending = [str(checks["Aldara"].pk), str(checks["Borin"].pk)]
    assert client_for(world.player_a).post(cancel, {"checks": pending}, **HTMX).status_code == 404
    response = gm.post(cancel, {"checks": pending}, **HTMX)
    assert response.status_code == 200
    assert not CalledCheck.objects.filter(status="pending").exists()
    assert "Tiradas pedidas" not in response.content.decode()  # nothing waits: the panel is empty
    again = gm.post(cancel, {"checks": pending}, **HTMX)
    assert again.status_code == 422 and "ya no está pendiente" in again.content.decode()


def test_without_htmx_an_answer_redirects_and_a_refusal_is_a_page_with_the_reason(world: World):
    checks = call(world)
    url = reverse("answer_check", args=[world.campaign_a.pk])
    client = client_for(world.player_a)
    refused = client.post(url, {"check": str(checks["Aldara"].pk), "die": "", "where": "sheet"})
    assert refused.status_code == 400 and "Escribe el dado" in refused.content.decode()
    done = client.post(url, {"check": str(checks["Aldara"].pk), "die": "5", "where": "sheet"})
    assert done.status_code == 302 and done["Location"] == reverse(
        "character", args=[world.campaign_a.pk, world.char_a1.pk]
    )


@pytest.mark.django_db(transaction=True)  # the stream's drawing gives its connection back, as on a worker thread
def test_the_streams_carry_each_audience_its_checks(world: World):
    checks = call(world)
    event = actions.answer_check(world.campaign_a, checks["Borin"], by=world.player_a2, die=20).event
    gm = access.audience_of(world.gm_a, world.campaign_a)
    player = access.audience_of(world.player_a, world.campaign_a)
    gm_text = streamed(gm, event=event)
    assert gm_text is not None and region_ids(gm_text).count("calls") == 1
    calls = element_by_id(gm_text, "calls").html
    assert "Borin — caída: 1d20 (20)" in calls and f'name="check" value="{checks["Aldara"].pk}"' in calls
    # Player A's page: Borin's roll changed nothing of theirs but their companion Borin, drawn again as the party view
    # says; their whole page has their own check only.
    companions = streamed(player, event=event)
    assert companions is not None and region_ids(companions) == ["party"] and "caída" not in companions
    assert streamed(player, sheet=world.char_a1.pk, event=event) == ""
    for player_text in (streamed(player), streamed(player, sheet=world.char_a1.pk)):
        assert player_text is not None and "1d20 + Saltar 0 contra 15" in player_text
        assert f'name="check" value="{checks["Aldara"].pk}"' in player_text
        assert "Borin — caída" not in player_text and "Borin:</strong>" not in player_text  # another player's roll
        assert f'name="check" value="{checks["Tomás"].pk}"' not in player_text
        assert f'name="check" value="{checks["Borin"].pk}"' not in player_text
    # Borin's player: their own roll, said on their page (the checks they owe, none now) and on Borin's sheet.
    other = access.audience_of(world.player_a2, world.campaign_a)
    other_text = streamed(other, event=event)
    assert other_text is not None and "my-checks" in region_ids(other_text)
    assert 'name="check"' not in element_by_id(other_text, "my-checks").html
    sheet = streamed(other, sheet=world.char_a2.pk, event=event)
    assert sheet is not None and "Borin — caída: 1d20 (20)" in element_by_id(sheet, "sheet-log").html
    assert "Aldara" not in other_text + sheet
