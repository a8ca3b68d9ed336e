"""Issue 11: never a 500 on input. Every route of the project gets generated values in every form field and URL
parameter — unicode digits, NUL, odd UTF-8, huge, negative, empty, a field twice, fields missing, unknown fields,
another campaign's ids — as the GM, a player, another campaign's GM and a visitor, with and without htmx. It must
never answer 500, and a refusal (a 4xx, or a redirect with an error message) must change nothing in the database. A
generated campaign file the import takes must give a campaign whose table opens and whose log undoes.

Each generated request runs in a savepoint that is rolled back, so every example starts from the same table.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
from django.conf import settings as django_settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.messages import ERROR, get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import transaction
from django.test import Client, override_settings
from django.urls import Resolver404, resolve, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Event
from characters.models import Character
from rules import actions, backup
from rules.damage import Attack
from tests.examples import examples
from tests.helpers import HTMX, built_world
from tests.odd_requests import (
    LONG_ID,
    ODD_CLASSES,
    ROUTES,
    Data,
    Table,
    document,
    encoded,
    mutated,
    route_names,
    set_table,
    state,
    url_kwargs,
)


@pytest.fixture(scope="module")
def built_table(django_db_setup, django_db_blocker) -> Iterator[Table]:
    """The table, built once for this file's tests (some 290, most of them one request) and committed: each test runs
    in a transaction rolled back at its end (pytest-django's `db`), so each finds it as built. Taken away after the
    file's last test, as a transactional test's data is, so that the next file finds the database empty."""
    with django_db_blocker.unblock():
        try:
            with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
                built = set_table(built_world())
            yield built
        finally:  # even when building it failed half-way
            call_command("flush", interactive=False, verbosity=0)


@pytest.fixture
def table(built_table: Table, db) -> Table:
    """The table as built, with no persona signed in yet: a copy of its objects, so that what a test does to them in
    memory (an action moves a campaign's version) never reaches the next test."""
    return copy.deepcopy(built_table)


def test_the_state_compared_sees_every_change_a_request_makes(table: Table) -> None:
    """What check() compares: a wound, an undo, a new name or a password is a change; a sign-in (its last login) is
    not."""
    w = table.world
    before = state()
    signed_in(table, "player_a")
    assert state() == before
    for change in [
        lambda: actions.apply_damage(w.campaign_a, [w.char_a1], Attack(amount=1), by=w.gm_a),
        lambda: actions.undo(w.campaign_a, by=w.gm_a),
        lambda: Character.everyone.filter(pk=w.char_b.pk).update(name="Zedd"),
        lambda: w.outsider.set_password("otra clave") or w.outsider.save(),
    ]:
        with transaction.atomic():
            change()
            assert state() != before
            transaction.set_rollback(True)
    assert state() == before


def test_every_route_is_covered() -> None:
    names = route_names()
    assert not names - set(ROUTES), f"route not covered by test_no_500: {sorted(names - set(ROUTES))}"
    assert not set(ROUTES) - names, f"no such route: {sorted(set(ROUTES) - names)}"


PERSONAS = ["gm_a"] * 7 + ["co_gm", "player_a", "gm_b", "anonymous"]  # mostly the GM (a co-GM acts as one)


@dataclass
class Sent:
    method: str
    url: str
    persona: str
    htmx: bool
    data: Data = field(default_factory=dict)
    upload: bytes | None = None

    def __str__(self) -> str:
        shown = {k: (v if len(str(v)) < 80 else str(v)[:80] + "…") for k, v in list(self.data.items())[:20]}
        upload = "" if self.upload is None else f" file {self.upload[:300]!r}… ({len(self.upload)} bytes)"
        return (
            f"{self.method.upper()} {self.url[:200]} as {self.persona}{' (htmx)' if self.htmx else ''} {shown}{upload}"
        )


def signed_in(t: Table, persona: str) -> str | None:
    """The persona's session key: signed in once a test, outside the savepoint each request runs in, so that a request
    that ends the session (a logout, a new password) is rolled back with the rest. None for a visitor."""
    if persona == "anonymous":
        return None
    if persona not in t.sessions:
        client = Client()
        client.force_login(get_user_model().objects.get(username=persona))
        t.sessions[persona] = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    return t.sessions[persona]


def send(t: Table, sent: Sent):
    client = Client(raise_request_exception=False)
    session = signed_in(t, sent.persona)
    if session is not None:
        client.cookies[django_settings.SESSION_COOKIE_NAME] = session
    headers = HTMX if sent.htmx else {}
    if sent.method == "get":
        query = encoded(sent.data)
        return client.get(sent.url + ("?" + query if query else ""), **headers)  # type: ignore[arg-type]
    if sent.upload is not None:
        files = {"file": SimpleUploadedFile("campana.json", sent.upload, "application/json")}
        return client.post(sent.url, {**sent.data, **files}, **headers)  # type: ignore[arg-type]
    body = encoded(sent.data)
    return client.post(sent.url, body, content_type="application/x-www-form-urlencoded", **headers)  # type: ignore[arg-type]


def error_messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request) if m.level >= ERROR]


# Routes for which a POST without fields means something: the language switch falls back to its default, undo undoes
# the latest change.
EMPTY_IS_FINE = {"set_language", "undo"}


def route_of(sent: Sent) -> str:
    try:
        return str(resolve(sent.url.split("?")[0]).url_name)
    except Resolver404:
        return ""


# What answers 503 by design: the balancer's readiness check, here under the test client's WSGI ("not ready: asgi").
NOT_READY = {"readyz"}


def no_500(response, sent: Sent) -> None:
    if response.status_code == 503 and route_of(sent) in NOT_READY and response.content.startswith(b"not ready: "):
        return
    if response.status_code >= 500:
        exc = getattr(response, "exc_info", None)
        detail = "".join(traceback.format_exception(*exc)) if exc else ""
        pytest.fail(f"{response.status_code} for {sent}\n{detail}")


def imported_plays_on(t: Table, sent: Sent, response) -> None:
    """After an import the generated file got through: its table opens and its log undoes (or says why not)."""
    if sent.upload is None or response.status_code != 302 or route_of(sent) != "campaign_import":
        return
    target = resolve(response["Location"].split("?")[0])
    if target.url_name != "campaign":
        return  # a visitor is sent to log in
    campaign_id = target.kwargs["campaign_id"]
    for method, name in [("get", "campaign"), *[("post", "undo")] * 3, ("get", "campaign")]:
        then = Sent(method, reverse(name, args=[campaign_id]), sent.persona, sent.htmx)
        no_500(send(t, then), then)


def check(t: Table, sent: Sent, flood: bool = False):
    """Send it in a savepoint that is rolled back: never a 500, and a refusal changes nothing. Returns the response."""
    signed_in(t, sent.persona)
    with transaction.atomic():
        before = state()
        response = send(t, sent)
        no_500(response, sent)
        refused = response.status_code >= 400 or sent.method == "get" or bool(error_messages(response))
        if refused:
            assert state() == before, f"{response.status_code} changed the database: {sent}"
        if sent.method == "post" and not sent.htmx:
            # A plain POST that worked redirects; answering 200 shows the form again, and that refusal needs a 4xx.
            assert response.status_code != 200, f"a refusal answered 200, not a 4xx: {sent}"
        context = response.context
        if response.status_code in (400, 422) and not flood and context is not None and "form" in context:
            # A refused form says why, beside the field or above the form.
            assert context["form"].errors, f"{response.status_code} without a message: {sent}"
            assert b"errorlist" in response.content, f"{response.status_code} shows no message: {sent}"
        imported_plays_on(t, sent, response)
        transaction.set_rollback(True)
    return response


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_no_500(table: Table, name: str) -> None:
    route = ROUTES[name]
    export = backup.export_campaign(table.world.campaign_a) if route.upload else {}

    @settings(
        max_examples=examples(route.examples),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def requests(data: st.DataObject) -> None:
        method = data.draw(st.sampled_from(route.methods), label="method")
        base = route.data(table) if method == "post" else route.query(table)
        fields, flood = data.draw(mutated(table, base), label="fields")
        kwargs = data.draw(url_kwargs(table, route.kwargs(table)), label="url")
        sent = Sent(
            method,
            reverse(name, kwargs=kwargs),
            data.draw(st.sampled_from(route.personas or PERSONAS), label="persona"),
            data.draw(st.booleans(), label="htmx"),
            fields,
        )
        if route.upload and method == "post" and data.draw(st.integers(min_value=0, max_value=9), label="file") > 0:
            sent.upload = data.draw(document(export), label="document")
        check(table, sent, flood)

    requests()


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_every_odd_class_in_every_field(table: Table, name: str) -> None:
    """Every class of odd value (its representative, the first of tests.odd_requests.ODD_CLASSES) in every field the
    route reads at once, its form's and its query's, as the GM, with htmx and without in turn: where the generated
    requests above try combinations, this leaves no class out of any route that reads a field (a route that reads
    none meets the classes as the unknown fields the generated requests add)."""
    route = ROUTES[name]
    for number, odd in enumerate(ODD_CLASSES.values()):
        for method in route.methods:
            base = route.data(table) if method == "post" else route.query(table)
            if base:
                fields: Data = {field: odd[0] for field in base}
                check(table, Sent(method, reverse(name, kwargs=route.kwargs(table)), "gm_a", number % 2 == 0, fields))


def test_an_imported_log_plays_on(table: Table) -> None:
    """The log is what an import checks least easily (what each entry and each undo reads): files with values of the
    log changed, imported; each one the import takes must show its table and undo its history without a 500."""
    export = backup.export_campaign(table.world.campaign_a)
    url = reverse("campaign_import")

    @settings(
        max_examples=examples(100),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(file=document(export, log_only=True), htmx=st.booleans())
    def imports(file: bytes, htmx: bool) -> None:
        check(table, Sent("post", url, "gm_a", htmx, upload=file))

    imports()


# --- the probes of the issue, one each, so a regression names itself ------------------------------------------------


def arabic(number: int) -> str:
    """An id written in Arabic-Indic digits: int() reads it, docs/rules.md §7.11 does not."""
    return str(number).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))


# route, what replaces the valid-looking data, and the field whose message says why (None: a 404)
PROBES: list[tuple[str, Callable[[Table], Data], str | None]] = [
    ("damage", lambda t: {"amount": "²"}, "amount"),
    ("damage", lambda t: {"amount": "\x00"}, "amount"),
    ("damage", lambda t: {"amount": "１２"}, "amount"),
    ("damage", lambda t: {"character": "²"}, None),
    ("damage", lambda t: {"kind": "collision", "speed_kmh": "٣"}, "speed_kmh"),
    ("damage", lambda t: {"kind": "fall", "height_m": "1_0"}, "height_m"),
    ("damage", lambda t: {"kind": "gas", "turns": "9" * 400}, "turns"),
    ("damage", lambda t: {"kind": "²"}, "kind"),
    ("damage", lambda t: {"characters": [arabic(t.world.char_a1.pk)]}, "characters"),
    ("damage", lambda t: {"characters": [str(t.world.char_b.pk)]}, "characters"),
    ("expose", lambda t: {"character": "²"}, None),
    ("expose", lambda t: {"disease": arabic(t.disease_a.pk)}, "disease"),
    ("expose", lambda t: {"disease": str(t.disease_b.pk)}, "disease"),
    ("expose", lambda t: {f"die_{t.world.char_a1.pk}": "٣"}, "die_{a1}"),
    ("advance", lambda t: {"duration": "²h"}, "duration"),
    ("advance", lambda t: {"duration": "1h\x00"}, "duration"),
    ("advance", lambda t: {"preset": "²"}, "preset"),
    ("treat_wounds", lambda t: {"healer": arabic(t.world.char_a2.pk)}, "healer"),
    ("treat_illness", lambda t: {"illness": arabic(t.illness.pk)}, "illness"),
    ("medicate", lambda t: {"illness": "\x00"}, "illness"),
    ("exertion", lambda t: {"die": "５"}, "die"),
    ("exertion", lambda t: {"character": str(t.world.char_b.pk)}, None),
    ("character_create", lambda t: {"name": "a\x00b"}, "name"),
    ("character_create", lambda t: {"constitution": "٣"}, "constitution"),
    ("character_create", lambda t: {"player": arabic(t.world.player_a.pk)}, "player"),
    ("characters_add_several", lambda t: {"count": "0"}, "count"),
    ("characters_add_several", lambda t: {"count": "10000"}, "count"),
    ("characters_add_several", lambda t: {"count": "seis"}, "count"),
    ("characters_add_several", lambda t: {"count": "٣"}, "count"),
    ("characters_add_several", lambda t: {"name": "Gu\x00ardia"}, "name"),
    ("characters_add_several", lambda t: {"name": "G" * 100_000}, "name"),
    ("characters_add_several", lambda t: {"name": "G" * 99, "count": "12"}, "name"),
    ("characters_add_several", lambda t: {"constitution": "\x00"}, "constitution"),
    ("characters_add_several", lambda t: {"party_view": "todo"}, "party_view"),
    ("characters_add_several", lambda t: {"save_template": "1", "count": "0"}, "count"),
    ("characters_add_several", lambda t: {"save_template": "1", "name": "\x00"}, "name"),
    ("characters_remove_several", lambda t: {"characters": []}, "characters"),
    ("characters_remove_several", lambda t: {"characters": [str(t.world.char_b.pk)]}, "characters"),
    ("characters_remove_several", lambda t: {"characters": [arabic(t.world.char_a1.pk)]}, "characters"),
    ("characters_remove_several", lambda t: {"characters": ["\x00"]}, "characters"),
    ("characters_remove_several", lambda t: {"characters": ["9" * 400]}, "characters"),
    ("character_edit", lambda t: {"weight_kg": "1e9"}, "weight_kg"),
    ("character_edit", lambda t: {"notes": "\x00"}, "notes"),
    ("disease_create", lambda t: {"penalty": "-٣"}, "penalty"),
    ("disease_edit", lambda t: {"pg_per_week": "²"}, "pg_per_week"),
    ("campaign_create", lambda t: {"name": "\x00"}, "name"),
    ("party_view", lambda t: {"party_view": "todo"}, "party_view"),
    ("party_view", lambda t: {"party_view": "exact\x00"}, "party_view"),
    ("party_view", lambda t: {"party_view": ""}, "party_view"),
    ("running_time", lambda t: {"rate": "0"}, "rate"),
    ("running_time", lambda t: {"rate": "-1 día"}, "rate"),
    ("running_time", lambda t: {"rate": "101 años"}, "rate"),
    ("running_time", lambda t: {"rate": "²"}, "rate"),
    ("running_time", lambda t: {"rate": "false"}, "rate"),
    ("running_time", lambda t: {"rate": "1 día\x00"}, "rate"),
    ("running_time", lambda t: {"rate": "9" * 100_000}, "rate"),
    ("running_time", lambda t: {"hour": "24"}, "hour"),
    ("running_time", lambda t: {"hour": "٣"}, "hour"),
    ("running_time", lambda t: {"zone": "Marte/Olimpo"}, "zone"),
    ("running_time", lambda t: {"zone": "Europe/Madrid\x00"}, "zone"),
    ("running_time", lambda t: {"zone": "../../etc/passwd"}, "zone"),
    ("character_edit", lambda t: {"party_view": "everything"}, "party_view"),
]


@pytest.mark.parametrize(("name", "replaced", "error"), PROBES)
@pytest.mark.parametrize("htmx", [False, True])
def test_probe(table: Table, name: str, replaced: Callable[[Table], Data], error: str | None, htmx: bool) -> None:
    route = ROUTES[name]
    sent = Sent(
        "post", reverse(name, kwargs=route.kwargs(table)), "gm_a", htmx, {**route.data(table), **replaced(table)}
    )
    response = check(table, sent)
    if error is None:
        assert response.status_code == 404, f"{response.status_code}: {sent}"
        return
    assert response.status_code in (400, 422), f"{response.status_code}: {sent} was not refused"
    errors = response.context["form"].errors
    assert error.format(a1=table.world.char_a1.pk) in errors, f"{sent}: the message is not beside {error}: {errors}"


def test_undo_of_a_made_up_event_changes_nothing(table: Table) -> None:
    for event in ["²", "٣", "-1", "9" * 400, LONG_ID, "\x00", str(table.event.pk - 1)]:
        for htmx in (False, True):
            check(
                table, Sent("post", reverse("undo", args=[table.world.campaign_a.pk]), "gm_a", htmx, {"event": event})
            )
            assert not Event.objects.filter(undone=True).exists()


# The forms opened from a card: each reads the card's character (and its slot) from the query or the body.
CARD_ROUTES = ("damage", "expose", "advance", "treat_wounds", "treat_illness", "medicate", "exertion", "close_form")


@pytest.mark.parametrize("name", CARD_ROUTES)
def test_ids_past_the_digits_int_reads(table: Table, name: str) -> None:
    """A 5000-digit id in the query and the body: refused like any id that names nothing, never a 500."""
    route = ROUTES[name]
    url = reverse(name, kwargs=route.kwargs(table))
    for htmx in (False, True):
        check(table, Sent("get", url, "gm_a", htmx, {"character": LONG_ID, "slot": LONG_ID}))
        if "post" not in route.methods:
            continue
        for name_of_id in ("character", "characters", "healer", "illness", "disease", "resting", "shown"):
            if name_of_id in route.data(table) or name_of_id == "character":
                check(table, Sent("post", url, "gm_a", htmx, {**route.data(table), name_of_id: LONG_ID}))


def test_odd_paths(table: Table) -> None:
    """Paths no route takes: 404, never a 500."""
    a = table.world.campaign_a.pk
    for path in ["/invite/%00/", "/invite/%FF/", f"/campaigns/{a}/act/²/", f"/campaigns/{'9' * 400}/",
                 f"/campaigns/{a}/characters/{'9' * 40}/", "/campaigns/-1/", "/%00", "/campaigns/%C0%80/",
                 f"/campaigns/{LONG_ID}/", f"/campaigns/{a}/characters/{LONG_ID}/"]:  # fmt: skip
        for persona in ("gm_a", "anonymous"):
            check(table, Sent("get", path, persona, False))


ADMIN_QUERIES = ["q=%00", "q=%C0%80", "q=" + "x" * 5000, "o=%00", "o=99", "o=-x", "p=%C2%B2", "p=99999", "e=1",
                 "campaign__id__exact=%00", "campaign__id__exact=%D9%A3", "_changelist_filters=%00",
                 "id__in=%00"]  # fmt: skip


def test_admin_survives_odd_queries(table: Table) -> None:
    """The Django admin (site admins only): search, ordering, paging, filters and object ids with odd values."""
    get_user_model().objects.create_superuser("root", password="pw-root")
    for model in admin.site._registry:
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        for query in ADMIN_QUERIES:
            check(table, Sent("get", f"{changelist}?{query}", "root", False))
        for object_id in ["%00", "%C2%B2", "9" * 40, "x"]:
            check(table, Sent("get", f"{changelist}{object_id}/change/", "root", False))


def test_sign_in_pages_survive_odd_input(table: Table) -> None:
    long = "x" * 100_000
    for sent in [
        Sent("post", "/i18n/setlang/", "gm_a", False, {"language": "\x00", "next": "\x00"}),
        Sent("post", "/i18n/setlang/", "anonymous", False, {"language": "en", "next": b"/\xff"}),
        Sent("get", "/accounts/login/", "anonymous", False, {"next": "/invite/\x00/"}),
        Sent("get", "/accounts/login/", "anonymous", False, {"next": b"\xff"}),
        Sent("post", "/accounts/login/", "anonymous", False, {"username": "gm_a\x00", "password": "x"}),
        Sent("post", "/accounts/login/", "anonymous", False, {"username": "gm_a", "password": "x\x00"}),
        Sent("post", "/accounts/login/", "anonymous", False, {"username": ["gm_a", "x"], "password": "x"}),
        Sent(
            "post",
            "/accounts/signup/",
            "anonymous",
            False,
            {"username": "ab\x00", "password1": "x\x00", "password2": "x\x00", "next": "\x00"},
        ),  # fmt: skip
        Sent(
            "post",
            "/accounts/signup/",
            "anonymous",
            False,
            {"username": long, "password1": "una clave larga 42", "password2": "una clave larga 42"},
        ),  # fmt: skip
    ]:
        check(table, sent)


def test_login_with_a_very_long_name(table: Table) -> None:
    check(table, Sent("post", "/accounts/login/", "anonymous", False, {"username": "x" * 300, "password": "x"}))


@pytest.mark.parametrize("name", sorted(name for name, route in ROUTES.items() if "post" in route.methods))
@pytest.mark.parametrize("htmx", [False, True])
def test_empty_post(table: Table, name: str, htmx: bool) -> None:
    """No fields at all: refused with the reasons (or done, where the route takes none), never a 500."""
    route = ROUTES[name]
    persona = "anonymous" if name in ("login", "signup") else "gm_a"
    sent = Sent("post", reverse(name, kwargs=route.kwargs(table)), persona, htmx)
    response = check(table, sent)
    if name.startswith("api:"):  # a session is no token: the API refuses it before reading anything
        assert response.status_code == 401, f"{response.status_code}: {sent}"
    elif (route.data(table) or route.upload) and name not in EMPTY_IS_FINE:
        assert response.status_code in (400, 404, 422), f"{response.status_code}: {sent}"
