"""Over random histories, a player's token never receives a hidden companion's name or id, nor a banded companion's
exact PG: not in the API's reads, not in the answer to the check it rolls, not in its event stream (drawn as the
hub draws it for the player's view: play.api.stream), first message, resumed replay and every change alike."""

import contextlib
import json

from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, PartyView, TokenScope
from characters.models import Character
from play.api.stream import ApiView, draw_changes, opening
from rules import actions, notify
from rules.actions import tokens
from rules.models import CalledCheck, CallStatus, CheckKind
from tests.examples import examples
from tests.helpers import World
from tests.played import play_health

SECRET = "Zafira Umbría"
who = st.integers(0, 4)
step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 30), st.sets(who, min_size=1, max_size=5)),
    st.tuples(st.just("advance"), st.integers(60, 9 * 86400), st.booleans()),
    st.tuples(st.just("expose"), st.integers(0, 7), st.integers(1, 12), who),
    st.tuples(st.just("fall"), st.integers(0, 12), st.integers(1, 20), who),
    st.tuples(st.just("treat_wounds"), who),
    st.tuples(st.just("exertion"), st.integers(1, 12), who),
    st.tuples(st.just("call"), st.sets(who, min_size=1, max_size=5)),
)


def bodies_of(message: str) -> list[dict]:
    """The JSON of every message in an SSE text (a change drawn for the hub is one JSON text itself)."""
    if message.startswith("{"):
        return [json.loads(message)]
    return [json.loads(line[6:]) for line in message.splitlines() if line.startswith("data: {")]


def shown(body: dict, secret_ids: set[int], banded: set[str]) -> None:
    """One answer's JSON as a player may read it: no hidden character in it, a banded companion without numbers."""
    text = json.dumps(body, ensure_ascii=False)
    assert SECRET not in text
    for key in ("characters", "companions"):
        for character in body.get(key, []) if isinstance(body, dict) else []:
            assert character.get("id") not in secret_ids
            if key == "companions" and character["name"] in banded:
                numbers = [character.get(field) for field in ("pg", "max_pg", "pg_start", "pg_end")]
                assert numbers == [None] * 4, character


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=8), npc_hidden=st.booleans(), band=st.booleans())
def test_a_players_token_never_receives_a_hidden_companion(world: World, steps, npc_hidden: bool, band: bool):
    a, gm = world.campaign_a, world.gm_a
    savepoint = transaction.savepoint_create()
    try:
        secret = actions.add_character(a, actions.Sheet(SECRET, 6, party_view="hidden"), by=gm).characters[0]
        view = "hidden" if npc_hidden else "exact"
        actions.edit_character(a, world.npc_a, actions.Sheet("Tomás", 5, heal_wounds=6, party_view=view), by=gm)
        actions.edit_campaign(a, by=gm, party_view=PartyView.BAND if band else PartyView.EXACT)
        actions.start_session(a, by=gm)
        characters = list(Character.objects.filter(campaign=a).order_by("id"))
        for name, *args in steps:
            with contextlib.suppress(actions.ActionError):  # what the rules refuse (care for the dead…)
                if name == "call":
                    chosen = [characters[min(i, len(characters) - 1)] for i in args[0]]
                    actions.call_check(a, chosen, actions.Call(CheckKind.FALL, height_m=3), by=gm)
                else:
                    play_health(world, name, args)
        actions.end_session(a, by=gm)
        actions.share_recap(a, 1, by=gm)
        secret_ids = {secret.pk} | ({world.npc_a.pk} if npc_hidden else set())
        banded = {"Borin"} if band else set()  # Tomás has a view of his own: exact, or hidden
        token = tokens.create_token(world.player_a, name="bot", scope=TokenScope.ACT)[1]
        headers = {"Authorization": f"Bearer {token}"}
        base = f"/api/v1/campaigns/{a.pk}"
        for path in ("", "/characters", "/log", "/checks", "/sessions", "/sessions/1/recap"):
            answer = Client().get(base + path, headers=headers)
            assert answer.status_code == 200, (path, answer.content)
            body = answer.json()
            for part in body if isinstance(body, list) else [body]:
                shown(part, secret_ids, banded)
        mine = CalledCheck.objects.filter(character=world.char_a1, status=CallStatus.PENDING).first()
        if mine is not None:
            answer = Client().post(
                f"{base}/checks/{mine.pk}/answer", data={}, content_type="application/json", headers=headers
            )
            assert answer.status_code in (200, 422), answer.content  # Aldara may be dead by now: refused in words
            shown(answer.json(), secret_ids, banded)

        player = ApiView(a.pk, world.player_a.pk, is_gm=False, language="es")
        campaign = Campaign.objects.get(pk=a.pk)
        history = list(campaign.events.order_by("id"))
        for since in (None, history[0].pk - 1 if history else 0):
            first, _latest = opening(player, since)
            assert isinstance(first, bytes)
            for body in bodies_of(first.decode()):
                shown(body, secret_ids, banded)
        for event in history:
            change = notify.Change(a.pk, tuple(event.characters), event.pk)
            drawn = draw_changes(change, {player})[player]
            assert drawn is not None
            for body in bodies_of(drawn) if drawn else []:
                shown(body, secret_ids, banded)
    finally:
        transaction.savepoint_rollback(savepoint)
