"""The API (play.api) with personal access tokens (rules.actions.tokens): a token acts as its account, with exactly
its rights; revoked, expired, malformed or absent, it is refused with a problem (RFC 9457); a player's token never
receives a hidden companion's name, nor any companion's id or exact PG beyond what the party view shows."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from campaigns.models import AccessToken, PartyView, TokenScope
from characters.models import Character
from rules import actions
from rules.actions import tokens
from rules.damage import Attack
from tests.helpers import World, removed_co_gm


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def get(path: str, token: str | None = None):
    return Client().get(f"/api/v1{path}", headers=bearer(token) if token else {})


def token_of(user, **options) -> str:
    return tokens.create_token(user, name="bot", **options)[1]


PERSONAS = ["gm_a", "co_gm", "player_a", "player_a2", "gm_b", "outsider", "ex_co_gm"]
# What each persona's token gets at campaign A: its row and its characters (the GM's and co-GM's: all three in full).
EXPECTED = {
    "gm_a": 200,
    "co_gm": 200,
    "player_a": 200,
    "player_a2": 200,
    "gm_b": 404,
    "outsider": 404,
    "ex_co_gm": 404,
}


@pytest.mark.parametrize("persona", PERSONAS)
def test_a_token_has_exactly_its_accounts_rights(world: World, persona: str):
    if persona == "ex_co_gm":
        removed_co_gm(world)
    token = token_of(getattr(world, persona))
    a = world.campaign_a.pk
    for path in (f"/campaigns/{a}", f"/campaigns/{a}/characters"):
        answer = get(path, token)
        assert answer.status_code == EXPECTED[persona], (path, persona)
        if answer.status_code != 200:
            assert answer["Content-Type"] == "application/problem+json"
            assert answer.json()["status"] == answer.status_code
    listed = {campaign["id"] for campaign in get("/campaigns", token).json()}
    assert (a in listed) == (EXPECTED[persona] == 200)


def test_a_gm_sees_every_character_and_a_player_their_own_and_companions_by_the_party_view(world: World):
    a = world.campaign_a
    actions.apply_damage(a, [world.char_a1, world.char_a2, world.npc_a], Attack(amount=7), by=world.gm_a)
    everyone = get(f"/campaigns/{a.pk}/characters", token_of(world.gm_a)).json()
    assert {c["name"] for c in everyone["characters"]} == {"Aldara", "Borin", "Tomás"}
    assert everyone["companions"] == []
    assert all(c["pg"] == c["max_pg"] - 7 for c in everyone["characters"])

    Character.objects.filter(pk=world.npc_a.pk).update(party_view=PartyView.HIDDEN)
    actions.edit_campaign(a, by=world.gm_a, party_view=PartyView.BAND)
    seen = get(f"/campaigns/{a.pk}/characters", token_of(world.player_a))
    body = seen.content.decode()
    assert [c["name"] for c in seen.json()["characters"]] == ["Aldara"]
    [borin] = seen.json()["companions"]
    assert borin["name"] == "Borin" and borin["pg"] is None and borin["condition_word"]
    assert "Tomás" not in body and str(world.npc_a.pk) not in [str(c.get("id")) for c in seen.json()["companions"]]
    assert str(world.char_a2.pk) not in body.replace(str(world.char_a1.pk), "")  # no companion's id
    actions.edit_campaign(a, by=world.gm_a, party_view=PartyView.EXACT)
    [borin] = get(f"/campaigns/{a.pk}/characters", token_of(world.player_a)).json()["companions"]
    assert borin["pg"] == borin["max_pg"] - 7


def test_revoked_expired_malformed_or_absent_tokens_are_refused_with_a_problem(world: World):
    gm = world.gm_a
    row, token = tokens.create_token(gm, name="bot")
    assert get("/campaigns", token).status_code == 200
    assert tokens.revoke_token(gm, row.pk) and not tokens.revoke_token(gm, row.pk)  # at once; twice is nothing
    expired_row, expired = tokens.create_token(gm, name="old", expires=timezone.now() + timedelta(hours=1))
    AccessToken.objects.filter(pk=expired_row.pk).update(expires=timezone.now() - timedelta(seconds=1))
    for sent in (token, expired, "12p_" + "x" * 43, "nada", "12p_" + "é" * 2000, ""):
        answer = get("/campaigns", sent or None)
        assert answer.status_code == 401, sent[:10]
        assert answer["Content-Type"] == "application/problem+json" and answer["WWW-Authenticate"]
    forged = Client().get("/api/v1/campaigns", headers={"Authorization": "Basic Z206cHc="})
    assert forged.status_code == 401
    # A session is no token: the API does not take the login cookie.
    client = Client()
    client.force_login(gm)
    assert client.get("/api/v1/campaigns").status_code == 401


def test_a_token_limited_to_one_campaign_sees_no_other(world: World):
    token = token_of(world.gm_a, campaign=world.campaign_a)
    other = actions.create_campaign("Otra", world.gm_a)
    assert [c["id"] for c in get("/campaigns", token).json()] == [world.campaign_a.pk]
    assert get(f"/campaigns/{other.pk}", token).status_code == 404


def test_making_tokens_refuses_in_words_and_keeps_only_a_digest(world: World):
    gm = world.gm_a
    row, token = tokens.create_token(gm, name="Bot del grupo", scope=TokenScope.ACT)
    assert token.startswith("12p_") and token not in str(AccessToken.objects.filter(pk=row.pk).values().first())
    for bad, field in [
        ({"name": ""}, "name"),
        ({"name": "\x00"}, "name"),
        ({"scope": "todo"}, "scope"),
        ({"expires": timezone.now() - timedelta(days=1)}, "expires"),
        ({"expires": timezone.now() + timedelta(days=3650)}, "expires"),
        ({"campaign": world.campaign_b}, "campaign"),
    ]:
        with pytest.raises(actions.ActionError) as refused:
            tokens.create_token(gm, **{"name": "x", **bad})
        assert refused.value.field == field
    assert AccessToken.objects.filter(user=gm).count() == 1
    assert not tokens.revoke_token(world.gm_b, row.pk)  # another account's: nothing


def test_the_openapi_document_names_every_operation(world: World):
    document = Client().get("/api/v1/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    assert {
        "/api/v1/campaigns",
        "/api/v1/campaigns/{campaign_id}",
        "/api/v1/campaigns/{campaign_id}/characters",
    } <= set(document["paths"])
    page = Client().get("/api/v1/docs")
    assert page.status_code == 200 and "cdn" not in page.content.decode().lower()


def test_the_account_page_makes_shows_once_lists_and_revokes_tokens(world: World):
    client = Client()
    client.force_login(world.player_a)
    page = client.get("/accounts/tokens/")
    assert page.status_code == 200 and "Aún no tienes ninguno" in page.content.decode()
    made = client.post(
        "/accounts/tokens/",
        {"name": "Bot de Discord", "scope": "act", "campaign": str(world.campaign_a.pk)},
        follow=True,
    )
    text = made.content.decode()
    assert made.redirect_chain == [("/accounts/tokens/", 302)] and "no se volverá a mostrar" in text
    row = AccessToken.objects.get(user=world.player_a)
    [shown] = [part for part in text.split('"') if part.startswith("12p_") and len(part) > 20]
    assert tokens.digest_of(shown) == row.digest and "solo «A»" in text and "sin usar" in text
    assert shown not in client.get("/accounts/tokens/").content.decode()  # shown once
    assert get("/campaigns", shown).status_code == 200
    assert "usado hace" in client.get("/accounts/tokens/").content.decode()
    for bad in (
        {"name": "\x00"},
        {"name": "x" * 100_000},
        {"expires": "2000-01-01"},
        {"expires": "mañana"},
        {"campaign": str(world.campaign_b.pk)},
        {"scope": "todo"},
    ):
        refused = client.post("/accounts/tokens/", {"name": "Otro", "scope": "read", **bad})
        assert refused.status_code == 400, bad
    assert AccessToken.objects.filter(user=world.player_a).count() == 1
    assert client.post(f"/accounts/tokens/{row.pk}/revoke/").status_code == 302
    assert get("/campaigns", shown).status_code == 401
    assert "anulado" in client.get("/accounts/tokens/").content.decode()
    other = Client()
    other.force_login(world.gm_b)
    other.post(f"/accounts/tokens/{row.pk}/revoke/")  # someone else's: nothing (and no word of it existing)
    assert AccessToken.objects.get(pk=row.pk).revoked is not None


def post(path: str, token: str | None, body: object | None = None):
    headers = bearer(token) if token else {}
    return Client().post(f"/api/v1{path}", data=body, content_type="application/json", headers=headers)


def test_a_gm_tokens_blow_goes_through_the_action_and_answers_the_entry(world: World):
    a, gm = world.campaign_a, world.gm_a
    token = token_of(gm, scope=TokenScope.ACT)
    answer = post(f"/campaigns/{a.pk}/damage", token, {"characters": [world.char_a1.pk], "kind": "attack", "amount": 5})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (
        body["event"]["title"] == "Daño: Ataque físico directo"
        and "Aldara pierde 5 PG (80 → 75)" in body["event"]["lines"]
    )
    assert [c["pg"] for c in body["characters"]] == [75]
    event = body["event"]["id"]
    assert post(f"/campaigns/{a.pk}/undo?event={event + 1}", token).status_code == 409  # not the latest
    undone = post(f"/campaigns/{a.pk}/undo?event={event}", token)
    assert undone.status_code == 200 and undone.json()["characters"][0]["pg"] == 80
    assert post(f"/campaigns/{a.pk}/undo?event={event}", token).status_code == 409  # twice: nothing more


@pytest.mark.parametrize(
    ("persona", "scope", "status"),
    [
        ("gm_a", TokenScope.READ, 403),
        ("co_gm", TokenScope.ACT, 200),
        ("player_a", TokenScope.ACT, 403),
        ("gm_b", TokenScope.ACT, 404),
        ("outsider", TokenScope.ACT, 404),
    ],
)
def test_only_a_token_that_may_act_for_a_gm_acts(world: World, persona: str, scope: str, status: int):
    token = token_of(getattr(world, persona), scope=scope)
    blow = {"characters": [world.char_a1.pk], "kind": "gas", "turns": 1}
    answer = post(f"/campaigns/{world.campaign_a.pk}/damage", token, blow)
    assert answer.status_code == status
    assert Character.objects.get(pk=world.char_a1.pk).pg == (80 - 1 if status == 200 else 80)
    if status != 200:
        assert answer["Content-Type"] == "application/problem+json"


def test_odd_blows_are_refused_with_a_problem_and_change_nothing(world: World):
    a = world.campaign_a
    token = token_of(world.gm_a, scope=TokenScope.ACT)
    for blow in (
        {"characters": [world.char_a1.pk], "kind": "attack", "amount": 10**9},
        {"characters": [world.char_a1.pk], "kind": "attack", "amount": "false"},
        {"characters": [world.char_a1.pk], "kind": "attack", "dice": "999d99999999"},
        {"characters": [world.char_a1.pk], "kind": "attack", "dice": "2d6\x00"},
        {"characters": [world.char_a1.pk], "kind": "attack"},
        {"characters": [world.char_a1.pk], "kind": "fall"},
        {"characters": [world.char_b.pk], "kind": "gas", "turns": 1},
        {"characters": [], "kind": "gas", "turns": 1},
        {"characters": [2**70], "kind": "gas", "turns": 1},
        {"characters": [world.char_a1.pk], "kind": "meteorito"},
        {"characters": "²", "kind": "gas"},
        "false",
        {"characters": [world.char_a1.pk], "kind": "gas", "turns": 1, "x": "y" * 100_000},
    ):
        answer = post(f"/campaigns/{a.pk}/damage", token, blow)
        assert answer.status_code == 422, (blow if len(str(blow)) < 200 else "long", answer.content[:200])
        assert answer["Content-Type"] == "application/problem+json" and answer.json()["title"]
    assert Character.objects.get(pk=world.char_a1.pk).pg == 80
    broken = Client().post(
        f"/api/v1/campaigns/{a.pk}/damage", data=b"{\xff", content_type="application/json", headers=bearer(token)
    )
    assert broken.status_code == 422 and broken["Content-Type"] == "application/problem+json"


def test_the_log_comes_by_pages_the_gms_with_typed_events_a_players_share_in_words(world: World):
    a, gm = world.campaign_a, world.gm_a
    for _ in range(45):
        actions.apply_damage(a, [world.char_a1], Attack(amount=1), by=gm)
    token = token_of(gm)
    first = get(f"/campaigns/{a.pk}/log", token).json()
    assert len(first["entries"]) == 40 and first["entries"][0]["title"] == "Daño: Ataque físico directo"
    assert first["entries"][0]["details"]["kind"] == "attack" and first["entries"][0]["who"] == "gm_a"
    older = get(f"/campaigns/{a.pk}/log?before={first['before']}", token).json()
    assert older["entries"][0]["id"] < first["entries"][-1]["id"] and older["before"] is None
    actions.apply_damage(a, [world.char_a2, world.npc_a], Attack(amount=2), by=gm)  # not about Aldara
    share = get(f"/campaigns/{a.pk}/log", token_of(world.player_a)).json()  # a player's: about their own, in words
    assert len(share["entries"]) == 40 and all(entry["details"] is None for entry in share["entries"])
    assert share["entries"][0]["id"] == first["entries"][0]["id"] and "Borin" not in str(share)
    for bad in ("0", "-1", str(2**70), "x", "²"):
        assert get(f"/campaigns/{a.pk}/log?before={bad}", token).status_code == 422, bad


def test_an_advance_is_previewed_then_applied_at_the_version_read(world: World):
    a = world.campaign_a
    token = token_of(world.gm_a, scope=TokenScope.ACT)
    actions.apply_damage(a, [world.char_a1], Attack(amount=20), by=world.gm_a)
    seen = post(f"/campaigns/{a.pk}/advance", token, {"duration": "2 días", "preview": True})
    assert seen.status_code == 202
    preview = seen.json()
    assert preview["seconds"] == 2 * 86400 and "Si avanzas 2 días" in preview["title"]
    [aldara] = [row for row in preview["characters"] if row["name"] == "Aldara"]
    assert aldara["pg_after"] > aldara["pg_before"]
    actions.apply_damage(a, [world.npc_a], Attack(amount=1), by=world.gm_a)  # the table moves meanwhile
    stale = post(f"/campaigns/{a.pk}/advance", token, {"duration": "2 días", "version": preview["version"]})
    assert stale.status_code == 409 and "ha cambiado" in stale.json()["title"]
    again = post(f"/campaigns/{a.pk}/advance", token, {"duration": "2 días", "preview": True}).json()
    applied = post(f"/campaigns/{a.pk}/advance", token, {"duration": "2 días", "version": again["version"]})
    assert applied.status_code == 200 and applied.json()["event"]["title"] == "Pasa el tiempo: 2 días"
    assert Character.objects.get(pk=world.char_a1.pk).pg == aldara["pg_after"]
    for bad in (
        {"duration": "²"},
        {"duration": "false"},
        {"seconds": 0},
        {"seconds": 10**15},
        {"duration": "1d", "seconds": 60},
        {},
        {"seconds": 60, "resting": [world.char_b.pk]},
        {"seconds": 60, "hora": 1},
    ):
        answer = post(f"/campaigns/{a.pk}/advance", token, bad)
        assert answer.status_code == 422, bad
        assert answer["Content-Type"] == "application/problem+json"


def test_a_token_is_throttled_alone_with_a_problem_and_retry_after(world: World, settings, monkeypatch):
    from play.api import v1

    [throttle] = v1.api.throttle if isinstance(v1.api.throttle, list) else [v1.api.throttle]
    monkeypatch.setattr(throttle, "per_minute", 5)
    monkeypatch.setattr(throttle, "counts", {})
    clock = [60 * 1_000_000 + 15.0]  # 45 s before the minute turns
    monkeypatch.setattr(throttle, "clock", lambda: clock[0])
    bot, other = token_of(world.gm_a), token_of(world.gm_a)
    assert [get("/campaigns", bot).status_code for _ in range(6)] == [200] * 5 + [429]
    refused = get("/campaigns", bot)
    assert refused["Content-Type"] == "application/problem+json" and refused["Retry-After"] == "45"
    assert get("/campaigns", other).status_code == 200  # another token of the same account: its own count
    clock[0] += 45  # the next minute
    assert get("/campaigns", bot).status_code == 200


def test_the_document_and_its_page_speak_the_readers_language(db):
    spanish = Client().get("/api/v1/openapi.json", headers={"Accept-Language": "es"}).json()
    english = Client().get("/api/v1/openapi.json", headers={"Accept-Language": "en"}).json()
    damage = "/api/v1/campaigns/{campaign_id}/damage"
    assert spanish["paths"][damage]["post"]["summary"] == "Aplicar daño"
    assert english["paths"][damage]["post"]["summary"] == "Apply damage"
    assert english["info"]["description"].startswith("The API of the Sistema 12Plus campaign tracker")
    assert "Herir a uno o varios" in spanish["paths"][damage]["post"]["description"]
    page = Client().get("/api/v1/docs", headers={"Accept-Language": "en"})
    assert page.status_code == 200 and b"cdn" not in page.content.lower()
