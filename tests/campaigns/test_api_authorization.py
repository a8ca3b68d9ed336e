"""Every API route × every persona, each with a token of its own account (scope "leer y actuar"; "anonymous": no
token at all): a token has exactly its account's rights (campaigns.access). A new API route without a row here fails
(tests/campaigns/test_authorization.py derives from these rows the login session's 401 for every route)."""

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import TokenScope
from rules import actions
from rules.actions import tokens
from rules.models import CalledCheck, CheckKind
from tests.helpers import World, plague, removed_co_gm

PERSONAS = ["gm_a", "co_gm", "player_a", "player_a2", "gm_b", "outsider", "ex_co_gm", "anonymous"]
GMS, PLAYERS, OTHERS = ("gm_a", "co_gm"), ("player_a", "player_a2"), ("gm_b", "outsider", "ex_co_gm")


def by(gms: int, players: int = 403, others: int = 404, **each: int) -> dict[str, int]:
    """What each persona's token gets: the campaign's GMs, its players, those who do not see it, and no token."""
    return {
        **dict.fromkeys(GMS, gms),
        **dict.fromkeys(PLAYERS, players),
        **dict.fromkeys(OTHERS, others),
        "anonymous": 401,
        **each,
    }


def in_a(w: World) -> dict[str, int]:
    return {"campaign_id": w.campaign_a.pk}


def shared_session(w: World) -> dict[str, int]:
    actions.start_session(w.campaign_a, by=w.gm_a)
    actions.end_session(w.campaign_a, by=w.gm_a)
    actions.share_recap(w.campaign_a, 1, by=w.gm_a)
    return {"campaign_id": w.campaign_a.pk, "number": 1}


def called_for_aldara(w: World) -> dict[str, int]:
    actions.call_check(w.campaign_a, [w.char_a1], actions.Call(CheckKind.FALL, height_m=3), by=w.gm_a)
    return {"campaign_id": w.campaign_a.pk, "check_id": CalledCheck.objects.get(character=w.char_a1).pk}


Body = Callable[[World], dict[str, Any]] | None
# route: (method, its URL's kwargs, its JSON body, what each persona's token gets)
API_MATRIX: dict[str, tuple[str, Callable[[World], dict[str, int]], Body, dict[str, int]]] = {
    "api:campaigns": ("get", lambda w: {}, None, by(200, 200, 200)),  # each lists its own
    "api:campaign": ("get", in_a, None, by(200, 200)),
    # The live stream: 204 under the test client's WSGI (tests/play/test_api_stream.py streams from a real server).
    "api:events": ("get", in_a, None, by(204, 204)),
    "api:characters": ("get", in_a, None, by(200, 200)),
    "api:log": ("get", in_a, None, by(200, 200)),  # a player's: their share of it
    "api:checks": ("get", in_a, None, by(200, 200)),
    "api:diseases": ("get", in_a, None, by(200)),
    "api:sessions": ("get", in_a, None, by(200, 200)),
    "api:recap": ("get", shared_session, None, by(200, 200)),
    "api:damage": ("post", in_a, lambda w: {"characters": [w.char_a1.pk], "kind": "attack", "amount": 1}, by(200)),
    "api:undo": ("post", in_a, None, by(409)),  # nothing to undo yet: the right held, the table refuses
    "api:advance": ("post", in_a, lambda w: {"seconds": 60}, by(200)),
    "api:expose": ("post", in_a, lambda w: {"characters": [w.char_a1.pk], "disease": plague().pk}, by(200)),
    "api:treat_wounds": ("post", in_a, lambda w: {"patient": w.char_a1.pk, "healer": w.npc_a.pk}, by(422)),
    "api:treat_illness": (
        "post",
        in_a,
        lambda w: {"patient": w.char_a1.pk, "illness": 1, "healer": w.npc_a.pk},
        by(422),
    ),
    "api:medicate": ("post", in_a, lambda w: {"patient": w.char_a1.pk, "illness": 1}, by(422)),
    "api:exertion": ("post", in_a, lambda w: {"character": w.char_a1.pk}, by(422)),  # at full PG: no exertion
    "api:answer_check": ("post", called_for_aldara, lambda w: {}, by(200, 404, player_a=200)),
    "api:cancel_checks": ("post", in_a, lambda w: {"checks": [called_for_aldara(w)["check_id"]]}, by(200)),
}


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("route", sorted(API_MATRIX))
def test_api_matrix(world: World, route: str, persona: str):
    method, kwargs, body, expected = API_MATRIX[route]
    if persona == "ex_co_gm":
        removed_co_gm(world)
    headers = {}
    if persona != "anonymous":
        secret = tokens.create_token(getattr(world, persona), name="matrix", scope=TokenScope.ACT)[1]
        headers = {"Authorization": f"Bearer {secret}"}
    url = reverse(route, kwargs=kwargs(world))
    data = body(world) if body is not None else {}
    client = Client()
    if method == "get":
        answer = client.get(url, headers=headers)
    else:
        answer = client.post(url, data=data, content_type="application/json", headers=headers)
    assert answer.status_code == expected[persona], (route, persona, answer.status_code, answer.content[:200])
    if answer.status_code >= 400:
        assert answer["Content-Type"] == "application/problem+json" and answer.json()["title"]


@pytest.mark.parametrize("route", sorted(r for r, row in API_MATRIX.items() if row[0] == "post"))
def test_a_read_only_token_acts_on_nothing(world: World, route: str):
    _method, kwargs, body, expected = API_MATRIX[route]
    secret = tokens.create_token(world.gm_a, name="reader", scope=TokenScope.READ)[1]
    answer = Client().post(
        reverse(route, kwargs=kwargs(world)),
        data=body(world) if body is not None else {},
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert answer.status_code == 403 and "solo puede leer" in answer.json()["title"]
