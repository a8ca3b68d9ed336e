"""The API's live stream (play.api.stream) against a real ASGI server: typed JSON changes through the pages' hub,
each as its token's audience may read it (a player never receives a hidden companion's name, id or PG), resumable
with Last-Event-ID, and ended at once when its token is revoked; an expired or absent token is refused."""

import json
import threading
import time
from datetime import timedelta

import httpx
import httpx_sse
import pytest
from django.test import Client
from django.utils import timezone
from httpx_sse import connect_sse

from campaigns.models import AccessToken, PartyView, TokenScope
from characters.models import Character
from rules import actions
from rules.actions import tokens
from rules.damage import Attack
from tests.helpers import World

pytestmark = pytest.mark.django_db(transaction=True)


class Bot:
    """A bot's SSE client on its own thread: every message (its event, id and data) lands in a list."""

    def __init__(self, base: str, campaign_id: int, token: str, last_event: int | None = None) -> None:
        self.received: list[tuple[str, str, str]] = []
        self.ended = threading.Event()
        headers = {"Authorization": f"Bearer {token}"}
        if last_event is not None:
            headers["Last-Event-ID"] = str(last_event)
        self.client = httpx.Client(base_url=base, headers=headers, timeout=httpx.Timeout(5, read=60))
        self.path = f"/api/v1/campaigns/{campaign_id}/events"
        threading.Thread(target=self.run, daemon=True).start()

    def run(self) -> None:
        try:
            with connect_sse(self.client, "GET", self.path) as source:
                for event in source.iter_sse():
                    self.received.append((event.event, event.id, event.data))
        except httpx_sse.SSEError:
            answer = self.client.get(self.path)
            self.received.append(("error", str(answer.status_code), answer.text))
        except Exception as error:  # closed by the test
            self.received.append(("error", "", str(error)))
        finally:
            self.ended.set()

    def wait_for(self, name: str, contains: str = "", timeout: float = 10) -> tuple[str, dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event, event_id, data in list(self.received):
                if event == name and contains in data:
                    return event_id, (json.loads(data) if data.startswith("{") else {"said": data})
                if event == "error":
                    break
            time.sleep(0.02)
        raise AssertionError(f"no {name!r} holding {contains!r} within {timeout}s; got {self.received[-3:]}")

    def everything(self) -> str:
        return "\n".join(f"{event} {event_id} {data}" for event, event_id, data in self.received)

    def close(self) -> None:
        self.client.close()


def act_token(user) -> str:
    return tokens.create_token(user, name="bot", scope=TokenScope.ACT)[1]


def test_a_gms_bot_follows_the_table_and_resumes_where_it_left(world: World, server: str):
    a = world.campaign_a
    bot = Bot(server, a.pk, act_token(world.gm_a))
    try:
        state_id, state = bot.wait_for("state")
        assert {c["name"] for c in state["characters"]} == {"Aldara", "Borin", "Tomás"}
        started = time.monotonic()
        hit = actions.apply_damage(a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
        assert hit is not None
        event_id, change = bot.wait_for("change", '"kind":"damage"')
        assert time.monotonic() - started < 1.0
        assert int(event_id) == hit.pk and change["event"]["title"] == "Daño: Ataque físico directo"
        [aldara] = change["characters"]
        assert aldara["name"] == "Aldara" and aldara["pg"] == aldara["max_pg"] - 5
    finally:
        bot.close()
    missed = [actions.apply_damage(a, [world.char_a2], Attack(amount=1), by=world.gm_a).event for _ in range(3)]
    again = Bot(server, a.pk, act_token(world.gm_a), last_event=hit.pk)
    try:
        for event in missed:
            assert event is not None
            again.wait_for("change", f'"id":{event.pk},')
        assert [int(i) for e, i, _d in again.received if e == "change"] == [event.pk for event in missed if event]
        assert not any(e == "state" for e, _i, _d in again.received)  # what it missed, not the whole state
    finally:
        again.close()


def test_a_players_bot_never_hears_of_a_hidden_companion(world: World, server: str):
    a = world.campaign_a
    Character.objects.filter(pk=world.npc_a.pk).update(party_view=PartyView.HIDDEN)
    actions.edit_campaign(a, by=world.gm_a, party_view=PartyView.BAND)
    bot = Bot(server, a.pk, act_token(world.player_a))
    try:
        bot.wait_for("state")
        actions.apply_damage(a, [world.npc_a], Attack(amount=3), by=world.gm_a)  # the hidden one alone: nothing
        actions.apply_damage(a, [world.char_a2, world.npc_a], Attack(amount=2), by=world.gm_a)
        _id, borin = bot.wait_for("change", "Borin")
        [seen] = borin["companions"]
        assert seen["pg"] is None and seen["condition_word"] and borin["characters"] == []
        actions.apply_damage(a, [world.char_a1], Attack(amount=1), by=world.gm_a)
        bot.wait_for("change", "Aldara")
        heard = bot.everything()
        assert "Tomás" not in heard, heard
        bodies = [json.loads(data) for event, _i, data in bot.received if event in ("state", "change")]
        assert all(c["id"] != world.npc_a.pk for body in bodies for c in body["characters"])
        assert len([e for e, _i, _d in bot.received if e == "change"]) == 2
    finally:
        bot.close()


def test_a_revoked_token_ends_its_stream_at_once(world: World, server: str):
    secret = act_token(world.gm_a)
    row = tokens.token_for(secret)
    assert row is not None
    bot = Bot(server, world.campaign_a.pk, secret)
    try:
        bot.wait_for("state")
        started = time.monotonic()
        assert tokens.revoke_token(world.gm_a, row.pk)
        _id, said = bot.wait_for("end", "session", timeout=5)
        assert time.monotonic() - started < 1.0 and bot.ended.wait(2)
    finally:
        bot.close()
    with httpx.Client(base_url=server, timeout=5) as client:
        refused = client.get(
            f"/api/v1/campaigns/{world.campaign_a.pk}/events", headers={"Authorization": f"Bearer {secret}"}
        )
    assert refused.status_code == 401 and refused.headers["content-type"] == "application/problem+json"


def test_an_expired_absent_or_foreign_token_is_refused(world: World):
    path = f"/api/v1/campaigns/{world.campaign_a.pk}/events"
    soon = timezone.now() + timedelta(minutes=1)
    expired = tokens.create_token(world.gm_a, name="old", expires=soon)[1]
    later = timezone.now() + timedelta(minutes=2)
    AccessToken.objects.filter(digest=tokens.digest_of(expired)).update(expires=later - timedelta(minutes=3))
    limited = tokens.create_token(world.gm_b, name="b", campaign=world.campaign_b)[1]
    for headers, status in (
        ({}, 401),
        ({"Authorization": f"Bearer {expired}"}, 401),
        ({"Authorization": "Bearer 12p_" + "x" * 43}, 401),
        ({"Authorization": f"Basic {expired}"}, 401),
        ({"Authorization": f"Bearer {act_token(world.gm_b)}"}, 404),
        ({"Authorization": f"Bearer {limited}"}, 404),
    ):
        answer = Client().get(path, headers=headers)
        assert answer.status_code == status, headers
        assert answer["Content-Type"] == "application/problem+json"


def test_the_sessions_sweep_ends_an_api_stream_whose_token_is_no_longer_live(world: World):
    """What no notice tells (a token expired, its account made inactive by a bulk update) the sweep asks of every
    stream: an API stream's key names its token (play.live.logins.invalid_sessions)."""
    from play.live.logins import invalid_sessions

    live, revoked, expired = (tokens.create_token(world.gm_a, name=name)[0] for name in ("live", "revoked", "expired"))
    tokens.revoke_token(world.gm_a, revoked.pk)
    AccessToken.objects.filter(pk=expired.pk).update(expires=timezone.now() - timedelta(seconds=1))
    signed = {(world.gm_a.pk, tokens.stream_key(row.pk)) for row in (live, revoked, expired)}
    forged = (world.player_a.pk, tokens.stream_key(live.pk))  # another account naming this token
    assert invalid_sessions(signed | {forged}) == signed - {(world.gm_a.pk, tokens.stream_key(live.pk))} | {forged}
    type(world.gm_a).objects.filter(pk=world.gm_a.pk).update(is_active=False)
    assert (world.gm_a.pk, tokens.stream_key(live.pk)) in invalid_sessions(signed)
