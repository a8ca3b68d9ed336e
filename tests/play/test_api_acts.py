"""The API's actions beyond damage, undo and advance (play.api.acts) and its reads of checks, diseases, sessions and
recaps (play.api.reads): each through rules.actions as the pages act, answering with the entry logged and the
characters touched as the token's account sees them; each refusal a problem with the pages' words, changing nothing."""

import pytest
from django.test import Client

from campaigns.models import PartyView, TokenScope
from rules import actions
from rules.actions import tokens
from rules.damage import Attack
from rules.models import CalledCheck, CallStatus, CheckKind
from tests.helpers import World, fall_ill, plague


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def get(path: str, token: str):
    return Client().get(f"/api/v1{path}", headers=bearer(token))


def post(path: str, token: str, body: dict):
    return Client().post(f"/api/v1{path}", data=body, content_type="application/json", headers=bearer(token))


def act(user) -> str:
    return tokens.create_token(user, name="bot", scope=TokenScope.ACT)[1]


def refused(answer, status: int) -> str:
    assert answer.status_code == status, answer.content
    assert answer["Content-Type"] == "application/problem+json"
    return answer.json()["title"]


def test_expose_treat_and_medicate_through_the_api(world: World, healer):
    a, gm = world.campaign_a, act(world.gm_a)
    diseases = get(f"/campaigns/{a.pk}/diseases", gm).json()
    peste = next(d for d in diseases if d["id"] == plague().pk)
    assert peste["category"] == "serious"
    refused(get(f"/campaigns/{a.pk}/diseases", act(world.player_a)), 403)
    illness = fall_ill(world, world.char_a1, plague())
    exposed = post(f"/campaigns/{a.pk}/expose", gm, {"characters": [world.char_a2.pk], "disease": peste["id"]})
    assert exposed.status_code == 200 and exposed.json()["event"]["kind"] == "expose"
    assert [c["name"] for c in exposed.json()["characters"]] == ["Borin"]
    assert "resistencia" in " ".join(exposed.json()["event"]["lines"])
    refused(post(f"/campaigns/{a.pk}/expose", gm, {"characters": [world.char_b.pk], "disease": peste["id"]}), 422)
    refused(post(f"/campaigns/{a.pk}/expose", gm, {"characters": [world.char_a1.pk], "disease": 0}), 422)

    body = {"patient": world.char_a1.pk, "illness": illness.pk, "healer": world.npc_a.pk}
    treated = post(f"/campaigns/{a.pk}/treat-illness", gm, body)
    assert treated.status_code == 200 and treated.json()["characters"][0]["illnesses"][0]["treated"] is True
    assert "ya ha sido tratada" in refused(post(f"/campaigns/{a.pk}/treat-illness", gm, body), 422)
    medicine = {"patient": world.char_a1.pk, "illness": illness.pk}
    assert post(f"/campaigns/{a.pk}/medicate", gm, medicine).json()["characters"][0]["illnesses"][0]["medicated"]
    refused(post(f"/campaigns/{a.pk}/medicate", gm, medicine), 422)
    refused(post(f"/campaigns/{a.pk}/medicate", act(world.player_a2), medicine), 403)  # a player: no GM's action

    actions.apply_damage(a, [world.char_a1], Attack(amount=10), by=world.gm_a)
    wounds = {"patient": world.char_a1.pk, "healer": world.npc_a.pk}
    healed = post(f"/campaigns/{a.pk}/treat-wounds", gm, wounds).json()
    assert all(w["treated"] for w in healed["characters"][0]["wounds"])
    assert "sin tratar" in refused(post(f"/campaigns/{a.pk}/treat-wounds", gm, wounds), 422)
    no_healer = {"patient": world.char_a1.pk, "healer": world.char_a1.pk}
    refused(post(f"/campaigns/{a.pk}/treat-wounds", gm, no_healer), 422)


def test_exertion_at_low_pg_only(world: World):
    a, gm = world.campaign_a, act(world.gm_a)
    assert "4 PG o menos" in refused(post(f"/campaigns/{a.pk}/exertion", gm, {"character": world.char_a1.pk}), 422)
    [aldara] = [c for c in get(f"/campaigns/{a.pk}/characters", gm).json()["characters"] if c["name"] == "Aldara"]
    actions.apply_damage(a, [world.char_a1], Attack(amount=aldara["pg"] - 3), by=world.gm_a)
    done = post(f"/campaigns/{a.pk}/exertion", gm, {"character": world.char_a1.pk, "die": 1})
    assert done.status_code == 200 and done.json()["characters"][0]["pg"] == 2  # 1 + CON < 12: 1 PG lost
    refused(post(f"/campaigns/{a.pk}/exertion", gm, {"character": world.char_a1.pk, "die": 13}), 422)


def test_a_player_answers_their_called_check_once_and_the_gm_cancels_others(world: World):
    a = world.campaign_a
    call = actions.Call(CheckKind.FALL, height_m=4)
    actions.call_check(a, [world.char_a1, world.char_a2, world.npc_a], call, by=world.gm_a)
    ana = act(world.player_a)
    [mine] = get(f"/campaigns/{a.pk}/checks", ana).json()
    assert mine["character_name"] == "Aldara" and mine["die"] == 20 and mine["height_m"] == 4
    assert len(get(f"/campaigns/{a.pk}/checks", act(world.gm_a)).json()) == 3
    borins = CalledCheck.objects.get(character=world.char_a2).pk
    assert refused(post(f"/campaigns/{a.pk}/checks/{borins}/answer", ana, {}), 404)  # not hers: as if none
    answered = post(f"/campaigns/{a.pk}/checks/{mine['id']}/answer", ana, {"die": 20})
    assert answered.status_code == 200 and [c["name"] for c in answered.json()["characters"]] == ["Aldara"]
    assert "Tomás" not in answered.content.decode() and "Borin" not in answered.content.decode()
    assert "ya no está pendiente" in refused(post(f"/campaigns/{a.pk}/checks/{mine['id']}/answer", ana, {}), 409)
    reader = tokens.create_token(world.player_a2, name="r")[1]
    refused(post(f"/campaigns/{a.pk}/checks/{borins}/answer", reader, {}), 403)  # read-only token
    refused(post(f"/campaigns/{a.pk}/checks/cancel", act(world.player_a2), {"checks": [borins]}), 403)
    cancelled = post(f"/campaigns/{a.pk}/checks/cancel", act(world.gm_a), {"checks": [borins]})
    assert cancelled.status_code == 200 and cancelled.json()["event"]["kind"] == "check_cancelled"
    assert CalledCheck.objects.get(pk=borins).status == CallStatus.CANCELLED
    refused(post(f"/campaigns/{a.pk}/checks/cancel", act(world.gm_a), {"checks": [borins]}), 409)


@pytest.mark.parametrize("view", [PartyView.EXACT, PartyView.BAND, PartyView.HIDDEN])
def test_sessions_and_recaps_as_each_reader_may_read_them(world: World, view: PartyView):
    a, gm = world.campaign_a, world.gm_a
    actions.edit_campaign(a, by=gm, party_view=view)
    actions.start_session(a, by=gm)
    actions.apply_damage(a, [world.char_a1, world.char_a2, world.npc_a], Attack(amount=5), by=gm)
    actions.end_session(a, by=gm)
    ana = act(world.player_a)
    assert get(f"/campaigns/{a.pk}/sessions", ana).json() == []  # not shared yet
    refused(get(f"/campaigns/{a.pk}/sessions/1/recap", ana), 404)
    [session] = get(f"/campaigns/{a.pk}/sessions", act(gm)).json()
    assert session["number"] == 1 and not session["playing"] and not session["shared"]
    whole = get(f"/campaigns/{a.pk}/sessions/1/recap", act(gm)).json()
    assert {c["name"] for c in whole["characters"]} == {"Aldara", "Borin", "Tomás"} and whole["entries"]
    actions.share_recap(a, 1, by=gm)
    recap = get(f"/campaigns/{a.pk}/sessions/1/recap", ana)
    seen = recap.json()
    assert [c["name"] for c in seen["characters"]] == ["Aldara"] and seen["entries"] is None
    assert "Tomás" not in recap.content.decode()
    companions = {c["name"]: c for c in seen["companions"]}
    if view == PartyView.HIDDEN:
        assert companions == {}
    elif view == PartyView.BAND:
        assert companions["Borin"]["pg_end"] is None and companions["Borin"]["condition_end"]
    else:
        assert companions["Borin"]["pg_end"] == companions["Borin"]["pg_start"] - 5
    for bad in ("0", "99", str(2**70)):
        refused(get(f"/campaigns/{a.pk}/sessions/{bad}/recap", act(gm)), 404)
