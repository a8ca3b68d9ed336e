"""The API fuzzed from its own OpenAPI document (schemathesis, on Hypothesis).

Every operation that `/api/v1/openapi.json` names when the test runs (but a Server-Sent Events stream, `…/events`,
tested elsewhere) is sent generated requests, valid and invalid by its schemas, by five personas: a GM's token, a
player's and a co-GM's (each of the scope "act"), a read-only token of the GM's account, and no token at all. They meet
the table of tests/test_no_500.py in the test database, and the ids a request names (path and query parameters, body
fields: campaign_id, characters, patient, illness, check_id, number, before, …) are aimed at real rows most of the
time, so that requests get past "not found" into the actions themselves.

What it proves, for every request sent:
- the server never answers 5xx;
- a 2xx answer is one the document declares for that operation: its status, its content type, a body of its schema;
- any other answer is a refusal: 401, 403, 404, 409 or 422, as `application/problem+json` (RFC 9457) with a JSON body
  whose "title" is set and whose "status" is the answer's;
- without a token, an operation the document secures answers 401.

Each request is sent with a token made for it, in a savepoint rolled back after it: every example starts from the same
table (and no token reaches its limit of calls a minute), so a failure replays and shrinks exactly. Generation is
derandomized: the same code is fuzzed the same way on every run.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Model
from django.http import HttpResponse
from django.test import Client
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.errors import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from campaigns.models import Campaign, Event, GameSession, TokenScope
from characters.models import Character
from rules.actions import tokens
from rules.models import CalledCheck, Disease, Illness
from tests.examples import examples
from tests.helpers import World
from tests.odd_requests import set_table

DOCUMENT = "/api/v1/openapi.json"
BASE_URL = "http://testserver"  # Django's test client's host
SKIPPED_SUFFIX = "/events"  # a Server-Sent Events stream never ends: the live tests drive it (tests/play/test_live*.py)
REFUSALS = {401, 403, 404, 409, 422}
PROBLEM = "application/problem+json"
ENTITY_HEADERS = {"content-type", "content-length"}  # the test client sets them from the body it sends
CONFORMANCE = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = examples(20)  # per operation and persona: about 0.3 s each (18 operations × 5 personas: about 30 s)

# Who calls: the account (a World attribute) and its token's scope; None: no token at all.
type Caller = tuple[User, TokenScope]
PERSONAS: dict[str, tuple[str, TokenScope] | None] = {
    "gm": ("gm_a", TokenScope.ACT),
    "player": ("player_a", TokenScope.ACT),
    "co_gm": ("co_gm", TokenScope.ACT),
    "read_only": ("gm_a", TokenScope.READ),
    "no_token": None,
}

# The kind of rows a parameter or body field of each name is aimed at (any other "…_id": a row of any kind).
POOLS = {
    "campaign_id": "campaigns",
    "character_id": "characters",
    "character": "characters",
    "characters": "characters",
    "patient": "characters",
    "healer": "characters",
    "resting": "characters",
    "disease": "diseases",
    "illness": "illnesses",
    "check_id": "checks",
    "checks": "checks",
    "event": "events",
    "before": "events",
    "number": "sessions",
    "version": "versions",
    # Not ids, but the small numbers the rules take (a die as rolled, PG, turns, metres, km/h, kg, seconds) get an
    # action past its refusals into the rules more often than any integer does.
    **dict.fromkeys(("die", "amount", "turns", "height_m", "speed_kmh", "weight_kg", "difficulty", "seconds"), "small"),
}


@dataclass
class Rows:
    """The real ids a generated request may be aimed at, by kind."""

    ids: dict[str, list[int]]

    def pool(self, name: str) -> list[int]:
        if name in POOLS:
            return self.ids[POOLS[name]]
        if name.endswith(("_id", "_ids")):
            return sorted({pk for kind, pks in self.ids.items() if kind not in ("small", "versions") for pk in pks})
        return []


def real_rows(world: World) -> Rows:
    """The table of tests/test_no_500.py (a healer, a wound, an illness, own diseases in both campaigns, checks owed,
    a session ended and shared, one open) and the ids of what is in it."""
    set_table(world)

    def pks(model: type[Model]) -> list[int]:
        return list(model._default_manager.order_by("pk").values_list("pk", flat=True))

    return Rows(
        {
            "campaigns": [world.campaign_a.pk] * 3 + [world.campaign_b.pk],  # the personas' own, mostly
            "characters": pks(Character),
            "diseases": pks(Disease),
            "illnesses": pks(Illness),
            "checks": pks(CalledCheck),
            "events": pks(Event),
            "sessions": sorted(set(GameSession.objects.values_list("number", flat=True))),
            "versions": sorted(set(Campaign.objects.values_list("version", flat=True))),
            "small": list(range(1, 21)),
        }
    )


def is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def aimed(value: Any, pool: list[int], data: st.DataObject) -> Any:
    """The generated value or, seven times in eight when it is an id, a list of ids or null, real ones in its place."""
    if not pool or not (value is None or is_id(value) or (isinstance(value, list) and all(map(is_id, value)))):
        return value
    if data.draw(st.integers(0, 7), label="0: keep the generated value") == 0:
        return value
    if isinstance(value, list):
        return data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True), label="real ids")
    return data.draw(st.sampled_from(pool), label="real id")


def aim_at_real_rows(case: Case, rows: Rows, data: st.DataObject) -> None:
    for container in (case.path_parameters, case.query, case.body):
        if isinstance(container, dict):
            for name in sorted(container):
                container[name] = aimed(container[name], rows.pool(name), data)


def send(client: Client, case: Case, token: str | None) -> tuple[requests.PreparedRequest, HttpResponse]:
    """The case as schemathesis sends it over HTTP (its very bytes), with the persona's token or none, sent through
    Django's test client (so in the test's transaction)."""
    kwargs = case.as_transport_kwargs(base_url=BASE_URL)
    headers = {name: value for name, value in kwargs["headers"].items() if name.lower() != "authorization"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    prepared = requests.Request(**{**kwargs, "headers": headers}).prepare()
    content_type = text(prepared.headers.get("Content-Type", "application/octet-stream"))  # (any case of the name)
    sent = {name: text(value) for name, value in prepared.headers.items() if name.lower() not in ENTITY_HEADERS}
    url = urlsplit(prepared.url or "")
    body = prepared.body or b""
    answer = client.generic(
        str(prepared.method),
        f"{url.path}?{url.query}" if url.query else url.path,
        data=body.encode() if isinstance(body, str) else body,
        content_type=content_type,
        headers=sent,
    )
    assert isinstance(answer, HttpResponse), "a stream, not an answer"  # (an event stream is not fuzzed here)
    return prepared, answer


def text(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("latin-1")


def as_schemathesis(answer: HttpResponse, prepared: requests.PreparedRequest) -> schemathesis.Response:
    return schemathesis.Response(
        status_code=answer.status_code,
        headers={name.lower(): [value] for name, value in answer.items()},
        content=answer.content,
        request=prepared,
        elapsed=0.0,
        verify=True,
        message=answer.reason_phrase,
        encoding=answer.charset,
    )


def secured(operation: APIOperation, document: dict[str, Any]) -> bool:
    """Whether the document asks a credential of every call (an empty requirement, {}, would make it optional)."""
    requirements = operation.definition.raw.get("security", document.get("security", []))
    return bool(requirements) and all(requirements)


def check_answer(case: Case, prepared: requests.PreparedRequest, answer: HttpResponse, anonymous: bool) -> None:
    status, content_type = answer.status_code, answer.get("Content-Type", "")
    note(f"{prepared.method} {prepared.url} {prepared.body!r:.500} → {status} {content_type} {answer.content[:500]!r}")
    crash = getattr(answer, "exc_info", None)  # the view's exception (Client(raise_request_exception=False))
    assert status < 500, "".join(traceback.format_exception(*crash)) if crash else answer.content[:2000]
    if anonymous:
        assert status == 401, "a call without a token was not refused as unauthenticated"
    if 200 <= status < 300:
        try:
            case.validate_response(as_schemathesis(answer, prepared), checks=CONFORMANCE)
        except FailureGroup as failures:  # a BaseExceptionGroup: made an assertion, as Hypothesis expects
            raise AssertionError(str(failures)) from None
        return
    assert status in REFUSALS, f"{status} is neither an answer the document declares nor a refusal"
    assert content_type == PROBLEM, f"a refusal as {content_type!r}, not {PROBLEM}"
    body = json.loads(answer.content)
    assert isinstance(body, dict) and isinstance(body.get("title"), str) and body["title"], body
    assert body.get("status") == status, body


def operations_of(schema: schemathesis.BaseSchema) -> list[APIOperation]:
    """Every operation of the document but an event stream; one it describes so that schemathesis cannot read it is a
    failure, not a skip."""
    found = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), f"the document describes an operation wrongly: {result.err()}"
        operation = result.ok()
        if not operation.path.rstrip("/").endswith(SKIPPED_SUFFIX):
            found.append(operation)
    return found


def fuzzer(operation: APIOperation, rows: Rows, caller: Caller | None, anonymous: bool) -> Callable[[], None]:
    """A Hypothesis test of one operation for one persona: valid and invalid requests, aimed at real rows."""
    strategy = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )
    client = Client(raise_request_exception=False)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        case = data.draw(strategy, label="case")
        aim_at_real_rows(case, rows, data)
        with transaction.atomic():
            # A new token for each request: the calls a token may make a minute are not what is fuzzed here.
            token = None if caller is None else tokens.create_token(caller[0], name="fuzz", scope=caller[1])[1]
            prepared, answer = send(client, case, token)
            transaction.set_rollback(True)  # every example meets the same table
        check_answer(case, prepared, answer, anonymous)

    return fuzz


def described(error: BaseException) -> str:
    """The failure and Hypothesis's notes on it (the falsifying example, the request and the answer), no traceback."""
    if isinstance(error, BaseExceptionGroup):
        return "\n".join(described(each) for each in error.exceptions)
    return "".join(traceback.format_exception_only(error))


@pytest.mark.parametrize("persona", list(PERSONAS))
def test_every_operation_answers_by_the_document_or_refuses_with_a_problem(world: World, persona: str):
    who = PERSONAS[persona]
    caller = None if who is None else (getattr(world, who[0]), who[1])
    rows = real_rows(world)
    document = Client().get(DOCUMENT).json()
    operations = operations_of(schemathesis.openapi.from_dict(document))
    assert operations, "the document names no operation"
    failures = []
    for operation in operations:  # each fuzzed to its end, whatever another one found
        try:
            fuzzer(operation, rows, caller, anonymous=caller is None and secured(operation, document))()
        except (AssertionError, ExceptionGroup) as error:  # a group: Hypothesis found several distinct failures
            failures.append(f"{operation.label}:\n{described(error)}")
    if failures:
        summary = f"{persona}: {len(failures)} of {len(operations)} operations failed"
        pytest.fail("\n\n".join([summary, *failures]), pytrace=False)
