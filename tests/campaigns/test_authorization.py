"""Every URL pattern × every persona. A new route without a row here fails the test."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Invitation, Role
from characters.models import Character, NpcTemplate
from rules import actions
from rules.models import Disease
from tests.campaigns.test_api_authorization import API_MATRIX
from tests.helpers import World, client_for, removed_co_gm

# co_gm: campaign A's co-GM (the table's powers, not the owner's); ex_co_gm: a co-GM the owner removed (nothing).
PERSONAS = ["gm_a", "co_gm", "player_a", "player_a2", "gm_b", "outsider", "ex_co_gm", "anonymous"]
LOGIN = 302  # LoginRequiredMiddleware sends anonymous visitors to the login page


# The co-GM's and the removed co-GM's rows follow from the others' (OWNER_ONLY below), unless a row says them.
DERIVED = ("co_gm", "ex_co_gm")


def everyone(status: int, anonymous: int = LOGIN) -> dict[str, int]:
    return {**dict.fromkeys(set(PERSONAS) - set(DERIVED), status), "anonymous": anonymous}


def only(allowed: dict[str, int], others: int = 404) -> dict[str, int]:
    return {**dict.fromkeys(set(PERSONAS) - set(DERIVED), others), "anonymous": LOGIN, **allowed}


def own_disease(w) -> int:
    return Disease.objects.create(name="Propia", category="common", penalty=-1, campaign=w.campaign_a).pk


def co_gm_link(w) -> int:
    return Invitation.objects.create(campaign=w.campaign_a, character=None, role=Role.GM).pk


def own_template(w) -> int:
    return NpcTemplate.objects.create(name="Guardia", count=3, constitution=6, campaign=w.campaign_a).pk


def shared_session(w) -> dict[str, int]:
    """Session 1 of campaign A, played and its recap shared with the players (an unshared one is the GM's alone:
    tests/play/test_sessions_views.py)."""
    actions.start_session(w.campaign_a, by=w.gm_a)
    actions.end_session(w.campaign_a, by=w.gm_a)
    actions.share_recap(w.campaign_a, 1, by=w.gm_a)
    return {"campaign_id": w.campaign_a.pk, "number": 1}


# The actions on one character are opened from its card.
QUERY = {action: "?character={a1}" for action in ("treat_wounds", "treat_illness", "medicate", "exertion")}

# route name → (method, kwargs from the world, expected status per persona)
MATRIX = {
    "home": ("get", lambda w: {}, everyone(200)),
    "rules": ("get", lambda w: {}, everyone(200, anonymous=200)),  # the rules are for anyone
    "favicon": ("get", lambda w: {}, everyone(302, anonymous=302)),  # to the SVG icon, for anyone
    # a player's page and a sheet offline: nothing of an account in either, and browsers fetch them without a session
    "service_worker": ("get", lambda w: {}, everyone(200, anonymous=200)),
    "manifest": ("get", lambda w: {}, everyone(200, anonymous=200)),
    # which kept pages an account lost: answered for anyone, of the paths asked only (tests/play/test_offline.py)
    "kept_pages": ("get", lambda w: {}, everyone(200, anonymous=200)),
    "login": ("get", lambda w: {}, everyone(302, anonymous=200)),  # signed-in users are sent home
    "logout": ("post", lambda w: {}, everyone(302, anonymous=302)),
    "signup": ("get", lambda w: {}, everyone(200, anonymous=200)),
    "set_language": ("post", lambda w: {}, everyone(302, anonymous=302)),
    "campaign_create": ("get", lambda w: {}, everyone(200)),
    "campaign_import": ("get", lambda w: {}, everyone(200)),
    "campaign_export": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "campaign_delete": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "campaign": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk},
        only({"gm_a": 200, "player_a": 200, "player_a2": 200}),
    ),
    # Who may open the stream; the test client is WSGI, where the stream answers 204 (no live updates under WSGI).
    # Whoever may not watch gets a stream that ends at once, saying why (200, so that the browser stops retrying):
    # test_a_stream_that_may_not_be_watched_ends_at_once below. Its content is tested against a real ASGI server in
    # tests/play/test_live.py.
    "campaign_stream": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk},
        {**everyone(200, anonymous=200), "gm_a": 204, "player_a": 204, "player_a2": 204},
    ),
    "character_create": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "characters_add_several": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "characters_remove_several": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "campaign_log": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "character_log": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk, "character_id": w.char_a1.pk},
        only({"gm_a": 200, "player_a": 200}),
    ),
    "character": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk, "character_id": w.char_a1.pk},
        only({"gm_a": 200, "player_a": 200}),
    ),
    "character_edit": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk, "character_id": w.char_a1.pk},
        only({"gm_a": 200}),
    ),
    "character_delete": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk, "character_id": w.char_a1.pk},
        only({"gm_a": 200}),
    ),
    "character_invite": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "character_id": w.char_a1.pk},
        only({"gm_a": 302}),
    ),
    **{
        action: ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200}))
        for action in ("damage", "expose", "advance", "treat_wounds", "treat_illness", "medicate", "exertion")
    },
    "close_form": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    # A die for a check nobody called is refused with the reasons on the page; outsiders see nothing.
    "answer_check": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk},
        only({"gm_a": 400, "player_a": 400, "player_a2": 400}),
    ),
    "cancel_check": ("post", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 400})),
    "party_view": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "running_time": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    # An account's own tokens: every signed-in account has its page; the anonymous visitor goes to the login page.
    "access_tokens": ("get", lambda w: {}, {**{p: 200 for p in PERSONAS}, "anonymous": 302}),
    "access_token_revoke": ("post", lambda w: {"token_id": 1}, {**{p: 302 for p in PERSONAS}, "anonymous": 302}),
    # The API answers a token, never a login session: every persona's session gets 401 (the tokens' own matrix:
    # tests/campaigns/test_api_authorization.py).
    **{route: (method, kwargs, dict.fromkeys(PERSONAS, 401)) for route, (method, kwargs, _b, _e) in API_MATRIX.items()},
    "api:api-root": ("get", lambda w: {}, {persona: 404 for persona in PERSONAS}),  # nothing at the bare root
    # The API's document and its interactive page are public (they say what the API is, nothing of anyone's).
    "api:openapi-json": ("get", lambda w: {}, {persona: 200 for persona in PERSONAS}),
    "api:openapi-view": ("get", lambda w: {}, {persona: 200 for persona in PERSONAS}),
    # The balancer's health checks: nobody's, no login (503 "asgi" under the test client: no live streams here).
    "healthz": ("get", lambda w: {}, everyone(200, anonymous=200)),
    "readyz": ("get", lambda w: {}, everyone(503, anonymous=503)),
    # by address, not by account: the test client's 127.0.0.1 is this machine (tests/test_metrics.py: anyone else 404)
    "metrics": ("get", lambda w: {}, everyone(200, anonymous=200)),
    "tick_preview": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "undo": ("post", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 302})),
    # "Entendido" on "Desde tu última visita": anyone who sees the campaign puts their own panel away.
    "visit_dismiss": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk},
        only({"gm_a": 302, "player_a": 302, "player_a2": 302}),
    ),
    "game_session": ("post", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 400})),  # no "do": refused
    "sessions": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "session_recap": ("get", shared_session, only({"gm_a": 200, "player_a": 200, "player_a2": 200})),
    "recap_share": ("post", shared_session, only({"gm_a": 400})),  # no "shared": refused
    "diseases": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "disease_create": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "disease_edit": (
        "get",
        lambda w: {"campaign_id": w.campaign_a.pk, "disease_id": own_disease(w)},
        only({"gm_a": 200}),
    ),
    "disease_retire": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "disease_id": own_disease(w)},
        only({"gm_a": 302}),
    ),
    # The token is the capability: any signed-in user who has the link may open it.
    "invitation": ("get", lambda w: {"token": w.invite_a.token}, everyone(200)),
    "template_delete": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "template_id": own_template(w)},
        only({"gm_a": 302}),
    ),
    "invitation_revoke": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "invitation_id": w.invite_a.pk},
        only({"gm_a": 302}),
    ),
    # co-GMs: every GM sees who narrates; only the owner names and removes them
    "co_gms": ("get", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 200})),
    "co_gm_invite": ("post", lambda w: {"campaign_id": w.campaign_a.pk}, only({"gm_a": 302})),
    "co_gm_revoke": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "invitation_id": co_gm_link(w)},
        only({"gm_a": 302}),
    ),
    "co_gm_remove": (
        "post",
        lambda w: {"campaign_id": w.campaign_a.pk, "user_id": w.co_gm.pk},
        only({"gm_a": 302}),
    ),
}

# What only the owner may do; a co-GM may everything else the owner may, and a removed co-GM what an outsider may.
OWNER_ONLY = {"campaign_export", "campaign_delete", "co_gm_invite", "co_gm_revoke", "co_gm_remove"}
for _route, (_method, _kwargs, _expected) in MATRIX.items():
    _expected.setdefault("co_gm", 404 if _route in OWNER_ONLY else _expected["gm_a"])
    _expected.setdefault("ex_co_gm", _expected["outsider"])


def route_names(resolver=None, namespace: str = "") -> set[str]:
    names = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # the Django admin checks is_staff itself; tested in test_admin
            names |= route_names(pattern, f"{pattern.namespace}:" if pattern.namespace else namespace)
        elif isinstance(pattern, URLPattern):
            assert pattern.name, f"route {pattern.pattern} has no name"
            names.add(namespace + pattern.name)
    return names


def test_every_route_has_a_row():
    assert route_names() == set(MATRIX)


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("route", sorted(MATRIX))
def test_matrix(world: World, route: str, persona: str):
    method, kwargs, expected = MATRIX[route]
    if persona == "ex_co_gm":
        removed_co_gm(world)
    user = None if persona == "anonymous" else getattr(world, persona)
    query = QUERY.get(route, "").format(a1=world.char_a1.pk)
    response = getattr(client_for(user), method)(reverse(route, kwargs=kwargs(world)) + query)
    assert response.status_code == expected[persona], (route, persona, response.status_code)


@pytest.mark.parametrize("persona, why", [("gm_b", "gone"), ("outsider", "gone"), ("anonymous", "session")])
def test_a_stream_that_may_not_be_watched_ends_at_once(world: World, persona: str, why: str):
    """The same words for a campaign that is gone and for one never theirs: nothing more is told."""
    user = None if persona == "anonymous" else getattr(world, persona)
    for campaign_id in (world.campaign_a.pk, 999_999):
        response = client_for(user).get(reverse("campaign_stream", kwargs={"campaign_id": campaign_id}))
        assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
        assert response.content.decode() == f"event: end\ndata: {why}\n\n"


def test_other_campaigns_character_under_my_campaign_url_is_404(world: World):
    """A character id from campaign B placed under campaign A's URL must not leak."""

    url = reverse("character", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_b.pk})
    assert client_for(world.gm_a).get(url).status_code == 404
    assert client_for(world.gm_b).get(url).status_code == 404


SHEET = {"name": "Hacked", "constitution": 30, "jump": 0, "heal_wounds": 0, "weight_kg": 70}


def characters_state() -> list[tuple]:
    return list(Character.objects.order_by("pk").values_list("pk", "name", "constitution", "player", "campaign"))


# write → (route, data)
WRITES = {
    "edit": ("character_edit", SHEET),
    "delete": ("character_delete", {}),
    "invite": ("character_invite", {}),
    "create": ("character_create", {**SHEET, "name": "Intruso"}),
    "add several": ("characters_add_several", {**SHEET, "name": "Intruso", "count": 3}),
    "remove several": ("characters_remove_several", {"characters": "{a1}"}),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider", "ex_co_gm"])
def test_forbidden_character_writes_are_404_and_change_nothing(world: World, persona: str, write: str):
    route, data = WRITES[write]
    if persona == "ex_co_gm":
        removed_co_gm(world)
    data = {key: str(value).format(a1=world.char_a1.pk) for key, value in data.items()}
    kwargs = {"campaign_id": world.campaign_a.pk}
    if not route.startswith(("character_create", "characters_")):
        kwargs["character_id"] = world.char_a1.pk
    before = (characters_state(), list(Invitation.objects.values_list("pk", "character")))
    response = client_for(getattr(world, persona)).post(reverse(route, kwargs=kwargs), data)
    assert response.status_code == 404
    assert (characters_state(), list(Invitation.objects.values_list("pk", "character"))) == before


def test_admin_requires_staff(world: World):
    for user in (world.gm_a, None):
        response = client_for(user).get("/admin/")
        assert response.status_code == 302 and response.url.startswith("/admin/login/")
