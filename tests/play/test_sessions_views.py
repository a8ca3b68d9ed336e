"""Issue 25, game sessions through their pages: the GM's control on the table, the log read by session, and each
session's recap — the GM's in full, a player's once shared and only as the party view allows (not a byte of a hidden
companion)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaigns.models import Campaign, GameSession
from characters.models import Character
from play.screens.snapshot import touch_of
from rules import actions
from rules.damage import Attack, Fall
from tests.helpers import HTMX, World, client_for, gm_table, unchanged


def session_url(world: World) -> str:
    return reverse("game_session", args=[world.campaign_a.pk])


def recap_url(world: World, number: int = 1) -> str:
    return reverse("session_recap", args=[world.campaign_a.pk, number])


def played_session(world: World) -> Character:
    """Session 1: Aldara falls and is hit, Borin (one word) and Tomás (exact) are hit, and Nyx — kept secret — too."""
    a, gm = world.campaign_a, world.gm_a
    nyx = actions.add_character(a, actions.Sheet("Nyx la Sombra", 4, party_view="hidden"), by=gm).characters[0]
    actions.edit_character(a, world.npc_a, actions.Sheet("Tomás", 5, party_view="exact"), by=gm)
    actions.start_session(a, by=gm)
    actions.apply_damage(a, [world.char_a1, world.char_a2, world.npc_a, nyx], Attack(amount=4), by=gm)
    actions.apply_damage(a, [world.char_a1], Fall(height_m=5, dice={world.char_a1.pk: 2}), by=gm)
    actions.apply_damage(a, [nyx], Attack(amount=100), by=gm)  # Nyx dies
    actions.advance_clock(a, 2 * 86400, by=gm)
    actions.end_session(a, by=gm)
    return nyx


def test_the_table_offers_to_start_then_to_end(world: World):
    assert "Empezar la sesión 1" in gm_table(world)
    client = client_for(world.gm_a)
    answer = client.post(session_url(world), {"do": "start", "number": "1"}, **HTMX).content.decode()
    assert 'id="game-session"' in answer and "Terminar la sesión" in answer and "Sesión 1 en juego" in answer
    assert "Empieza la sesión 1" in answer  # the log's new entry
    assert "Terminar la sesión" in gm_table(world)
    response = client.post(session_url(world), {"do": "end", "number": "1"})  # without htmx: back to the table
    assert response.status_code == 302
    assert "Empezar la sesión 2" in gm_table(world) and "Resumen de la sesión 1" in gm_table(world)


def test_a_second_click_or_a_forged_form_changes_nothing_and_says_why(world: World):
    client = client_for(world.gm_a)
    client.post(session_url(world), {"do": "start", "number": "1"}, **HTMX)
    before = unchanged(world), list(GameSession.objects.values_list("number", "ended"))
    for data in ({"do": "start", "number": "1"}, {"do": "end", "number": "7"}):
        answer = client.post(session_url(world), data, **HTMX)
        assert answer.status_code == 200 and b'id="said"' in answer.content
        assert (unchanged(world), list(GameSession.objects.values_list("number", "ended"))) == before
    for data in ({"do": "x"}, {"do": "\x00"}, {}):
        assert client.post(session_url(world), data, **HTMX).status_code == 400
        assert (unchanged(world), list(GameSession.objects.values_list("number", "ended"))) == before
    said = client.post(session_url(world), {"do": "start", "number": "1"}, **HTMX).content.decode()
    assert "ya está empezada" in said


def test_only_the_gm_starts_or_ends(world: World):
    for who in (world.player_a, world.gm_b, world.outsider):
        assert client_for(who).post(session_url(world), {"do": "start"}).status_code == 404
    assert not GameSession.objects.exists()


def test_a_session_event_redraws_the_sessions_regions_only():
    from campaigns.models import Event

    touch = touch_of(Event(action="session_started", details={"number": 1}, clock_before=0, clock_after=0))
    assert touch.sessions and not touch.roster and not touch.characters and not touch.clock


def test_the_gm_reads_the_whole_recap_with_its_log(world: World):
    played_session(world)
    page = client_for(world.gm_a).get(recap_url(world)).content.decode()
    for name in ("Aldara", "Borin", "Tomás", "Nyx la Sombra"):
        assert f">{name}</h2>" in page
    assert "Tiempo de campaña pasado: 2 días." in page
    assert "1 herida de Ataque físico directo: 4 PG" in page and "Caída" in page
    assert "Tirada de caída: sacó 2" in page and "Murió" in page
    assert "Registro de la sesión" in page and "Empieza la sesión 1" in page and "Termina la sesión 1" in page
    assert page.count('class="timeline"') == 4
    assert "Compartir con los jugadores" in page


def test_a_player_reads_it_only_once_shared_and_never_a_byte_of_a_hidden_companion(world: World):
    nyx = played_session(world)
    player = client_for(world.player_a)
    assert player.get(recap_url(world)).status_code == 404
    assert "Resúmenes de sesión" not in player.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    share = reverse("recap_share", args=[world.campaign_a.pk, 1])
    assert client_for(world.gm_a).post(share, {"shared": "x"}).status_code == 400
    assert client_for(world.gm_a).post(share, {"shared": "1"}).status_code == 302
    home = player.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert recap_url(world) in home and "Resúmenes de sesión" in home
    response = player.get(recap_url(world))
    page = response.content.decode()
    assert ">Aldara</h2>" in page and "Tirada de caída: sacó 2" in page
    assert "Borin" in page and "de Ileso a Herido" in page  # one word, no number
    assert "PG: de 50 a 48 (de 50)" in page  # Tomás, exact: hit for 4, two days healed 2
    assert "Registro de la sesión" not in page and "Compartir" not in page
    assert b"Nyx" not in response.content and b"Sombra" not in response.content
    for trace in (f"recap-{nyx.pk}", f"timeline-{nyx.pk}", f"characters/{nyx.pk}/", f'"{nyx.pk}"'):
        assert trace.encode() not in response.content  # nor its id, where a page puts one
    borin_part = page[page.index("Borin") :]
    assert not re.search(r"\b1[12][0-9]\b", borin_part[: borin_part.index("</li>")])  # his PG (120 max) is not said


def test_the_recap_in_english(world: World):
    played_session(world)
    page = client_for(world.gm_a).get(recap_url(world), headers={"accept-language": "en"}).content.decode()
    assert "Recap of session 1" in page and "Campaign time passed: 2 days." in page


@pytest.mark.parametrize("who", ["gm_b", "outsider", "player_a"])
def test_others_may_not_share_or_read_an_unshared_recap(world: World, who: str):
    played_session(world)
    client = client_for(getattr(world, who))
    assert client.post(reverse("recap_share", args=[world.campaign_a.pk, 1])).status_code == 404
    assert client.get(recap_url(world)).status_code == 404
    assert client.get(reverse("sessions", args=[world.campaign_a.pk])).status_code == 404
    assert not GameSession.objects.get(number=1, campaign=world.campaign_a).shared


def test_a_missing_or_huge_session_is_a_404(world: World):
    played_session(world)
    gm = client_for(world.gm_a)
    for number in (2, 0, 2**31, 10**30):
        assert gm.get(recap_url(world, number)).status_code == 404
        assert gm.post(reverse("recap_share", args=[world.campaign_a.pk, number]), {"shared": "1"}).status_code == 302
    assert client_for(world.gm_b).get(reverse("session_recap", args=[world.campaign_b.pk, 1])).status_code == 404


def test_the_log_read_by_session(world: World):
    a, gm = world.campaign_a, world.gm_a
    actions.apply_damage(a, [world.char_a1], Attack(amount=1), by=gm)  # before any session
    played_session(world)
    actions.apply_damage(a, [world.char_a1], Attack(amount=2), by=gm)  # after it
    gm_client = client_for(gm)
    sessions = gm_client.get(reverse("sessions", args=[a.pk])).content.decode()
    assert recap_url(world) in sessions
    page = gm_client.get(reverse("campaign_log", args=[a.pk]) + "?session=1").content.decode()
    assert "Empieza la sesión 1" in page and "Termina la sesión 1" in page
    assert page.count("Daño: Ataque físico directo") == 2  # the session's two attacks, not the ones around it
    assert gm_client.get(reverse("campaign_log", args=[a.pk]) + "?session=9").status_code == 404
    assert gm_client.get(reverse("campaign_log", args=[a.pk]) + "?session=%C2%B2").status_code == 404
    assert Campaign.objects.get(pk=a.pk).game_sessions.count() == 1


@pytest.mark.parametrize("number", ["٣", "-1", "1" * 100_000, "1.0", " 1", "x"])
def test_a_garbage_session_number_is_refused_and_changes_nothing(world: World, number: str):
    """Issue 48: a number no button sends is no "no number": nothing starts, and the table says why."""
    client = client_for(world.gm_a)
    before = unchanged(world), list(GameSession.objects.values_list("number", "ended"))
    answer = client.post(session_url(world), {"do": "start", "number": number}, **HTMX)
    assert answer.status_code == 200 and "Ese número de sesión no vale" in answer.content.decode()
    assert (unchanged(world), list(GameSession.objects.values_list("number", "ended"))) == before
    response = client.post(session_url(world), {"do": "start", "number": number}, follow=True)  # without htmx
    assert "Ese número de sesión no vale" in response.content.decode()
    assert not GameSession.objects.exists()
