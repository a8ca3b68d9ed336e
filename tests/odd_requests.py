"""The inputs of tests/test_no_500.py: the table every generated request meets, every route with what it takes, and
the odd values, forms, URL parameters and campaign files that hypothesis draws."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_from_bytes

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import strategies as st

from campaigns.models import Campaign, Event, Invitation, Membership
from characters.models import Character, NpcTemplate
from rules import actions
from rules.damage import Attack
from rules.models import CalledCheck, CheckKind, Disease, Illness, Wound
from tests.helpers import World

type Value = str | bytes  # bytes: sent as they are, not UTF-8 encoded (odd or broken UTF-8)
type Data = dict[str, Value | list[Value]]


# --- the table every request meets -----------------------------------------------------------------------------------


@dataclass
class Table:
    """The personas' world (tests/conftest.py) with something to act on: a wound, an illness, a healer, own diseases
    in both campaigns, an event to undo and an invitation in the other campaign."""

    world: World
    disease_a: Disease
    disease_b: Disease
    illness: Illness
    event: Event
    invite_b: Invitation
    check: CalledCheck  # player_a's Aldara owes a fall's check
    template_a: NpcTemplate  # quick NPCs' templates (issue 25), one in each campaign
    template_b: NpcTemplate
    co_gm_link: Invitation | None = None  # the owner's pending link "como co-narrador" (issue 25)
    sessions: dict[str, str] = field(default_factory=dict)  # each persona's session key, once signed in

    def ids(self) -> list[str]:
        """Ids that exist somewhere: this campaign's, the other campaign's, and of every kind of row."""
        w = self.world
        rows = [w.char_a1, w.char_a2, w.npc_a, w.char_b, self.disease_a, self.disease_b, self.illness, self.event]
        rows += [self.check, self.template_a, self.template_b]
        rows += [w.campaign_a, w.campaign_b, w.invite_a, self.invite_b, w.gm_a, w.player_a, w.outsider, w.co_gm]
        rows += [self.co_gm_link] if self.co_gm_link is not None else []
        return sorted({str(row.pk) for row in rows})  # type: ignore[attr-defined]


def set_table(w: World) -> Table:
    Character.objects.filter(pk=w.char_a2.pk).update(heal_wounds=3)  # a healer
    disease_a = Disease.objects.create(
        name="Fiebre del pantano", category="serious", penalty=-2, pg_per_week=1, campaign=w.campaign_a
    )
    disease_b = Disease.objects.create(name="Tos de la costa", category="serious", penalty=-1, pg_per_week=1,
                                       campaign=w.campaign_b)  # fmt: skip
    actions.apply_damage(w.campaign_a, [w.char_a1], Attack(amount=5), by=w.gm_a)
    actions.expose(w.campaign_a, [w.char_a1], disease_a, by=w.gm_a, dice_by_character={w.char_a1.pk: 1})
    illness = Illness.objects.get(character=w.char_a1)
    invite_b = Invitation.objects.create(campaign=w.campaign_b, character=w.char_b)
    actions.call_check(w.campaign_a, [w.char_a1, w.char_a2], actions.Call(CheckKind.FALL, height_m=4), by=w.gm_a)
    check = CalledCheck.objects.get(character=w.char_a1)
    actions.start_session(w.campaign_a, by=w.gm_a)  # game sessions (issue 25): the first ended and shared, one open
    actions.end_session(w.campaign_a, by=w.gm_a)
    actions.share_recap(w.campaign_a, 1, by=w.gm_a)
    actions.start_session(w.campaign_a, by=w.gm_a)
    event = Event.objects.filter(campaign=w.campaign_a).latest("id")
    template_a = NpcTemplate.objects.create(campaign=w.campaign_a, name="Guardia", count=4, constitution=6)
    template_b = NpcTemplate.objects.create(campaign=w.campaign_b, name="Lobo", count=3, constitution=3)
    co_gm_link = Invitation.objects.create(campaign=w.campaign_a, character=None, role="gm")
    return Table(w, disease_a, disease_b, illness, event, invite_b, check, template_a, template_b, co_gm_link)


# What a request may write, all campaigns together: each table with the columns compared (an event: whether it is
# undone; an account: its name and password, not the last login that signing in writes), all columns for the rest.
WRITTEN: list[tuple[type[Model], str]] = [
    (Campaign, "t"), (Character, "t"), (Wound, "t"), (Illness, "t"), (Event, "(t.id, t.undone)"), (Disease, "t"),
    (Invitation, "t"), (Membership, "t"), (CalledCheck, "t"), (NpcTemplate, "t"),
    (get_user_model(), "(t.id, t.username, t.password)"),
]  # fmt: skip


def state() -> tuple:
    """Everything a request may write, as the database writes it (each row's text, in id order), read in one query:
    equal before and after means nothing changed. (Reading it through the ORM, a query a table, took half of each
    generated request's time.)"""
    tables = ", ".join(
        f"(SELECT coalesce(string_agg({columns}::text, ';' ORDER BY t.id), '') FROM {model._meta.db_table} t)"
        for model, columns in WRITTEN
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {tables}")
        return cursor.fetchone()


# --- the routes: what each one takes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    methods: tuple[str, ...]
    kwargs: Callable[[Table], dict[str, object]] = lambda t: {}
    data: Callable[[Table], Data] = lambda t: {}  # a valid-looking POST
    query: Callable[[Table], Data] = lambda t: {}  # a valid-looking query string
    examples: int = 30
    upload: bool = False  # the POST carries a file: a campaign's export, generated from a real one
    personas: tuple[str, ...] = ()  # who sends, more or less often; empty: mostly the GM


def co_gm_link(t: Table) -> int:
    assert t.co_gm_link is not None
    return t.co_gm_link.pk


def in_a(t: Table) -> dict[str, object]:
    return {"campaign_id": t.world.campaign_a.pk}


def a1_in_a(t: Table) -> dict[str, object]:
    return {"campaign_id": t.world.campaign_a.pk, "character_id": t.world.char_a1.pk}


def session_in_a(t: Table) -> dict[str, object]:
    return {"campaign_id": t.world.campaign_a.pk, "number": 1}


def disease_in_a(t: Table) -> dict[str, object]:
    return {"campaign_id": t.world.campaign_a.pk, "disease_id": t.disease_a.pk}


def card(t: Table) -> Data:
    """The query of a form opened from a character's card."""
    a1 = str(t.world.char_a1.pk)
    return {"character": a1, "slot": a1}


def damage(t: Table) -> Data:
    a1, a2 = str(t.world.char_a1.pk), str(t.world.char_a2.pk)
    # Every kind's fields at once: the form reads those of the kind posted, so dropping or changing `kind` matters.
    return {"kind": "attack", "characters": [a1, a2], "amount": "3", "speed_kmh": "20", "weight_kg": "70",
            "height_m": "3", "difficulty": "10", "turns": "2", f"die_{a1}": "5", "slot": "party"}  # fmt: skip


def sheet(t: Table) -> Data:
    return {"name": "Nueva", "player": str(t.world.player_a.pk), "constitution": "10", "jump": "2",
            "heal_wounds": "1", "weight_kg": "70", "notes": "Lleva una lámpara."}  # fmt: skip


def several(t: Table) -> Data:
    """Quick NPCs: a numbered name, how many, one sheet for all."""
    return {"name": "Guardia", "count": "3", "constitution": "6", "jump": "1", "heal_wounds": "0", "weight_kg": "80",
            "party_view": "band", "notes": ""}  # fmt: skip


def disease(t: Table) -> Data:
    return {"name": "Gripe azul", "category": "serious", "penalty": "-1", "pg_per_week": "2"}


ACTION = ("get", "post")
CO_GMS = ("gm_a", "gm_a", "gm_a", "co_gm", "player_a")  # the owner mostly; a co-GM and a player are refused at once
VISITORS = ("anonymous", "anonymous", "anonymous", "gm_a")  # the pages for signing in
ROUTES: dict[str, Route] = {
    "home": Route(("get",), examples=10),
    "rules": Route(("get",), examples=10, personas=VISITORS),
    "login": Route(
        ACTION,
        data=lambda t: {"username": "gm_a", "password": "pw-gm_a", "next": "/"},
        query=lambda t: {"next": f"/invite/{t.world.invite_a.token}/"},
        personas=VISITORS,
        examples=50,
    ),
    "logout": Route(("post",), examples=10),
    "signup": Route(
        ACTION,
        data=lambda t: {
            "username": "nueva",
            "password1": "una clave larga 42",
            "password2": "una clave larga 42",
            "next": "/",
        },  # fmt: skip
        query=lambda t: {"next": f"/invite/{t.world.invite_a.token}/"},
        personas=VISITORS,
        examples=50,
    ),
    "set_language": Route(("post",), data=lambda t: {"language": "en", "next": "/"}, personas=VISITORS),
    "campaign_create": Route(ACTION, data=lambda t: {"name": "Nueva campaña"}),
    "campaign_export": Route(("get",), in_a, examples=10),
    "campaign_import": Route(ACTION, upload=True, examples=60),
    "campaign_delete": Route(ACTION, in_a, data=lambda t: {"name": t.world.campaign_a.name}),
    "campaign": Route(("get",), in_a, examples=20),
    "favicon": Route(("get",), examples=5, personas=VISITORS),
    "service_worker": Route(("get",), examples=5, personas=VISITORS),
    "manifest": Route(
        ("get",),
        query=lambda t: {"start": f"/campaigns/{t.world.campaign_a.pk}/characters/{t.world.char_a1.pk}/", "lang": "en"},
        examples=20,
        personas=VISITORS,
    ),
    "kept_pages": Route(
        ("get",),
        query=lambda t: {"path": f"/campaigns/{t.world.campaign_a.pk}/characters/{t.world.char_a1.pk}/"},
        examples=20,
        personas=VISITORS,
    ),
    "campaign_stream": Route(
        ("get",),
        in_a,
        query=lambda t: {"sheet": str(t.world.char_a1.pk), "tab": "a1b2c3d4e5f6a1b2c3d4e5f6"},
        examples=20,
    ),
    "character": Route(("get",), a1_in_a, examples=20),
    "campaign_log": Route(("get",), in_a, query=lambda t: {"before": "999", "session": "1"}, examples=20),
    "character_log": Route(("get",), a1_in_a, query=lambda t: {"before": "999"}, examples=20),
    "character_create": Route(ACTION, in_a, data=sheet, examples=50),
    "character_edit": Route(ACTION, a1_in_a, data=sheet, examples=50),
    "character_delete": Route(ACTION, a1_in_a, examples=15),
    "characters_add_several": Route(
        ACTION, in_a, data=several, query=lambda t: {"template": str(t.template_a.pk)}, examples=50
    ),
    "template_delete": Route(
        ("post",), lambda t: {"campaign_id": t.world.campaign_a.pk, "template_id": t.template_a.pk}, examples=15
    ),
    "characters_remove_several": Route(
        ACTION, in_a, data=lambda t: {"characters": [str(t.world.char_a1.pk), str(t.world.npc_a.pk)]}, examples=40
    ),
    "character_invite": Route(("post",), a1_in_a, examples=15),
    "damage": Route(ACTION, in_a, data=damage, query=lambda t: {**card(t), "kind": "fall"}, examples=60),
    "expose": Route(
        ACTION,
        in_a,
        data=lambda t: {
            "disease": str(t.disease_a.pk),
            "characters": [str(t.world.char_a1.pk)],
            f"die_{t.world.char_a1.pk}": "4",
            **card(t),
        },  # fmt: skip
        query=card,
        examples=50,
    ),
    "advance": Route(
        ACTION,
        in_a,
        data=lambda t: {
            "duration": "1h",
            "preset": "",
            "resting": [str(t.world.char_a1.pk)],
            "shown": [str(t.world.char_a1.pk), str(t.world.char_a2.pk)],
            "slot": "advance",
            "preview_first": "",  # ticked (any text): a preview of what it would do
            "version": str(Campaign.objects.get(pk=t.world.campaign_a.pk).version),  # applying a preview
        },  # fmt: skip
        query=lambda t: {"slot": "advance"},
        examples=50,
    ),
    "treat_wounds": Route(
        ACTION, in_a, data=lambda t: {**card(t), "healer": str(t.world.char_a2.pk)}, query=card, examples=40
    ),
    "treat_illness": Route(
        ACTION,
        in_a,
        data=lambda t: {**card(t), "illness": str(t.illness.pk), "healer": str(t.world.char_a2.pk)},
        query=card,
        examples=40,
    ),
    "medicate": Route(ACTION, in_a, data=lambda t: {**card(t), "illness": str(t.illness.pk)}, query=card, examples=40),
    "exertion": Route(ACTION, in_a, data=lambda t: {**card(t), "die": "7"}, query=card, examples=40),
    "answer_check": Route(
        ("post",),
        in_a,
        data=lambda t: {"check": str(t.check.pk), "die": "7", "where": "page", "server": ""},
        personas=("gm_a", "player_a", "player_a", "player_a2", "gm_b"),
        examples=50,
    ),
    "cancel_check": Route(("post",), in_a, data=lambda t: {"checks": [str(t.check.pk)]}, examples=30),
    "close_form": Route(("get",), in_a, query=card, examples=15),
    "party_view": Route(ACTION, in_a, data=lambda t: {"party_view": "exact"}, examples=40),
    "running_time": Route(
        ACTION,
        in_a,
        data=lambda t: {"runs": "on", "rate": "1 semana por día", "hour": "20", "zone": "America/Bogota"},
        examples=50,
    ),
    "tick_preview": Route(("get",), in_a, examples=15),
    # The API (play.api): a session is no token, so these answer 401 to every persona; tests/play/test_api.py sends
    # odd values with tokens.
    "access_tokens": Route(
        ACTION, data=lambda t: {"name": "Bot", "scope": "read", "campaign": str(t.world.campaign_a.pk), "expires": ""}
    ),
    "access_token_revoke": Route(("post",), lambda t: {"token_id": 1}, examples=20),
    "healthz": Route(("get",), examples=5),
    "readyz": Route(("get",), examples=5),
    "metrics": Route(("get",), examples=5),
    "api:api-root": Route(("get",), examples=5),
    "api:campaigns": Route(("get",), examples=10),
    "api:campaign": Route(("get",), in_a, examples=10),
    "api:characters": Route(("get",), in_a, examples=10),
    "api:damage": Route(("post",), in_a, data=lambda t: {"characters": "1", "kind": "gas", "turns": "1"}, examples=10),
    "api:undo": Route(("post",), in_a, examples=10),
    "api:log": Route(("get",), in_a, query=lambda t: {"before": "5"}, examples=10),
    "api:advance": Route(("post",), in_a, data=lambda t: {"duration": "1d", "preview": "true"}, examples=10),
    "api:checks": Route(("get",), in_a, examples=5),
    "api:events": Route(("get",), in_a, query=lambda t: {"last_event_id": "5"}, examples=5),
    "api:diseases": Route(("get",), in_a, examples=5),
    "api:sessions": Route(("get",), in_a, examples=5),
    "api:recap": Route(("get",), lambda t: {"campaign_id": t.world.campaign_a.pk, "number": 1}, examples=5),
    "api:expose": Route(("post",), in_a, data=lambda t: {"characters": "1", "disease": "1"}, examples=5),
    "api:treat_wounds": Route(("post",), in_a, data=lambda t: {"patient": "1", "healer": "1"}, examples=5),
    "api:treat_illness": Route(("post",), in_a, data=lambda t: {"patient": "1", "illness": "1"}, examples=5),
    "api:medicate": Route(("post",), in_a, data=lambda t: {"patient": "1", "illness": "1"}, examples=5),
    "api:exertion": Route(("post",), in_a, data=lambda t: {"character": "1", "die": "3"}, examples=5),
    "api:answer_check": Route(
        ("post",),
        lambda t: {"campaign_id": t.world.campaign_a.pk, "check_id": 1},
        data=lambda t: {"die": "1"},
        examples=5,
    ),
    "api:cancel_checks": Route(("post",), in_a, data=lambda t: {"checks": "1"}, examples=5),
    "api:openapi-json": Route(("get",), examples=5),
    "api:openapi-view": Route(("get",), examples=5),
    "undo": Route(("post",), in_a, data=lambda t: {"event": str(t.event.pk)}, examples=40),
    # "Entendido" on "Desde tu última visita": no fields; whatever is posted moves only the account's own mark.
    "visit_dismiss": Route(("post",), in_a, personas=("gm_a", "player_a", "player_a2", "gm_b"), examples=20),
    "game_session": Route(("post",), in_a, data=lambda t: {"do": "end", "number": "2"}, examples=40),
    "sessions": Route(("get",), in_a, examples=15),
    "session_recap": Route(("get",), session_in_a, personas=("gm_a", "player_a", "player_a2", "gm_b"), examples=30),
    "recap_share": Route(("post",), session_in_a, data=lambda t: {"shared": "0"}, examples=30),
    "diseases": Route(("get",), in_a, examples=15),
    "disease_create": Route(ACTION, in_a, data=disease, examples=50),
    "disease_edit": Route(ACTION, disease_in_a, data=disease, examples=50),
    "disease_retire": Route(("post",), disease_in_a, examples=15),
    "invitation": Route(ACTION, lambda t: {"token": t.world.invite_a.token}, examples=20),
    "invitation_revoke": Route(
        ("post",), lambda t: {"campaign_id": t.world.campaign_a.pk, "invitation_id": t.world.invite_a.pk}, examples=15
    ),
    # co-GMs (issue 25): the owner's page, link and removal; a co-GM sends too (refused: the owner's alone)
    "co_gms": Route(("get",), in_a, examples=10, personas=CO_GMS),
    "co_gm_invite": Route(("post",), in_a, examples=15, personas=CO_GMS),
    "co_gm_revoke": Route(
        ("post",), lambda t: {**in_a(t), "invitation_id": co_gm_link(t)}, examples=15, personas=CO_GMS
    ),
    "co_gm_remove": Route(("post",), lambda t: {**in_a(t), "user_id": t.world.co_gm.pk}, examples=15, personas=CO_GMS),
}


def route_names(resolver: URLResolver | None = None, namespace: str = "") -> set[str]:
    """Every route's name, as `reverse` takes it ("campaign", "api:campaign")."""
    names = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace != "admin":  # Django's admin: test_admin_survives_odd_queries below
                names |= route_names(pattern, f"{pattern.namespace}:" if pattern.namespace else namespace)
        elif isinstance(pattern, URLPattern):
            names.add(namespace + str(pattern.name))
    return names


# --- generated values ------------------------------------------------------------------------------------------------

LONG_ID = "9" * 5000  # digits past Python's limit for int() of a text (4300): int() raises ValueError on it

# The odd values, by class: what one value of a class proves about a field, the others prove too. The first of each
# class is its representative, which test_no_500's sweep puts in every field of every route; hypothesis draws from
# all of them, in combinations.
ODD_CLASSES: dict[str, list[Value]] = {
    "blank": ["", " ", "\t", "\r\n"],
    "digits int() reads and the rules do not": ["²", "٣", "５", "１２", "৭", "Ⅻ", "½"],
    "NUL": ["\x00", "7\x00", "\x00" * 3, "a\x00b"],
    "signs and zeros": ["-1", "-0", "+1", "0", "00"],
    "numbers in other notations": ["1e9", "1.5", "1,5", "0x1f", "1_000", " 7 ", "\ufeff7", "7\u200b", "\u202e7"],
    "past int() and the database": [LONG_ID, "9" * 400, "-" + "9" * 400, "99999999999999999999", "2147483648",
                                     "-2147483649", "9223372036854775808"],
    "words for nothing, numbers and yes or no": ["false", "NaN", "inf", "-inf", "None", "null", "true", "on",
                                                 "False", "off", "no", "[]", "{}", "[1, 2]"],
    "100 KB": ["x" * 100_000, "7" * 100_000],
    "markup and injection": ["<script>alert(1)</script>", "🎲", "'; DROP TABLE campaigns_campaign; --", "%00", "%FF",
                             "\\x00"],
    "dice expressions": ["1000d1000", "2d6", "d", "2d6+1", "1d0", "0d6", "(((((((1)))))))", "١d٦", "2d6*100",
                         "1d20kh1", "-2d6"],
    "durations and choices": ["99999999999w", "1h", "1 hora y 30 minutos", "²h", "attack", "fall", "common",
                              "serious", "en", "es", "xx"],
    "addresses": ["//evil.example", "/", "https://evil.example/", "/invite/%00/", "javascript:alert(1)"],
    "broken UTF-8": [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"7\xff"],
}  # fmt: skip
ODD_INTS = [0, -1, 2**31, 2**63, 10**30]
FIELD_NAMES = ["character", "characters", "slot", "choices", "kind", "die", "die_0", "die_x", "die_²", "die_-1",
               "event", "version", "next", "csrfmiddlewaretoken", "extra", "\x00", "²", "", "a" * 300]  # fmt: skip


def values(t: Table, base: Data) -> st.SearchStrategy[Value]:
    valid = sorted({v for value in base.values() for v in (value if isinstance(value, list) else [value])}, key=str)
    return st.one_of(
        st.sampled_from(list(ODD_CLASSES.values())).flatmap(st.sampled_from),  # a class, then one of its values
        st.sampled_from(t.ids()),
        st.sampled_from(valid or [""]),
        st.integers().map(str),
        st.text(max_size=30),
    )


@st.composite
def mutated(draw: st.DrawFn, t: Table, base: Data) -> tuple[Data, bool]:
    """The valid-looking data with one to four things done to it; True when it sends more fields than Django takes."""
    data: Data = dict(base)
    names = sorted(set(base) | set(FIELD_NAMES))
    for _ in range(draw(st.integers(min_value=0 if base else 1, max_value=4))):
        how = draw(st.sampled_from(["set", "set", "set", "drop", "twice", "list", "extra"]))
        name = draw(st.sampled_from(names))
        if how == "drop":
            data.pop(name, None)
        elif how == "set":
            data[name] = draw(values(t, base))
        elif how == "twice":
            first = data.get(name, "")
            data[name] = [*(first if isinstance(first, list) else [first]), draw(values(t, base))]
        elif how == "list":
            data[name] = draw(st.lists(values(t, base), max_size=5))
        else:
            data[draw(st.text(max_size=10))] = draw(values(t, base))
    flood = draw(st.integers(min_value=0, max_value=30)) == 0
    if flood:  # more fields than DATA_UPLOAD_MAX_NUMBER_FIELDS
        data.update({f"f{i}": "1" for i in range(1100)})
    return data, flood


def encoded(data: Data) -> str:
    """As a browser sends it: application/x-www-form-urlencoded, bytes as they are."""

    def one(value: Value) -> str:
        return quote_from_bytes(value) if isinstance(value, bytes) else quote(value)

    pairs = []
    for name, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            pairs.append(f"{quote(name)}={one(item)}")
    return "&".join(pairs)


@st.composite
def url_kwargs(draw: st.DrawFn, t: Table, kwargs: dict[str, object]) -> dict[str, object]:
    """The route's own ids, or now and then another campaign's, a missing one or one too large for the database."""
    result = dict(kwargs)
    for name in kwargs:
        if draw(st.integers(min_value=0, max_value=7)) == 0:
            if name == "token":
                result[name] = draw(st.sampled_from([t.invite_b.token, "x", "A" * 64, "-_-", "0"]))
            else:
                result[name] = draw(st.sampled_from([*map(int, t.ids()), *ODD_INTS[:1], *ODD_INTS[2:], LONG_ID]))
    return result


ODD_JSON: list[Any] = [
    None, True, 0, -1, 2**31, 2**63, -(2**63) - 1, 10**30, 1.5, 1e308, -0.0, "", "²", "٣", "\x00", "a\x00b", "\ud800",
    "x" * 100_000, "9" * 400, LONG_ID, [], {}, [None], {"": None}, {"\x00": 1}, "1970-01-01",
    "2024-02-30T00:00:00+00:00", "2024-01-01T00:00:00", "attack", "serious", "expose", "undo",
]  # fmt: skip
ODD_DOCUMENTS = [
    b"", b"\xff\xfe", b"{", b"[]", b"null", b'"x"', b"{}", b"9" * 5000, b"[" * 100_000, b'{"a":' * 50_000,
    b"NaN", b'{"version": NaN}', b"\xef\xbb\xbf{}", b'{"version": 1e999}', b"x" * 3_000_000,
]  # fmt: skip


def paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Where a value may be replaced in a JSON document: every object member and list item, nested ones too."""
    found = [path] if path else []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        found += paths(item, (*path, key))
    return found


def scalars(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [item for member in value.values() for item in scalars(member)]
    if isinstance(value, list):
        return [item for member in value for item in scalars(member)]
    return [value]


@st.composite
def document(draw: st.DrawFn, original: dict[str, Any], log_only: bool = False) -> bytes:
    """A campaign's export with a few values replaced, members dropped or added; now and then not JSON at all.
    `log_only`: only values inside the log are changed, so that the import takes more of them."""
    if not log_only and draw(st.integers(min_value=0, max_value=6)) == 0:
        return draw(st.sampled_from(ODD_DOCUMENTS))
    doc = json.loads(json.dumps(original))

    def where_in(doc: dict[str, Any]) -> list[tuple]:
        return [path for path in paths(doc) if not log_only or path[:1] == ("events",) and len(path) > 3]

    where = where_in(doc)
    # In the log, the document's own values too (another character's key, another event's number): closer misses.
    own = sorted({json.dumps(value) for value in scalars(doc)}) if log_only else []
    values = st.one_of(st.sampled_from(ODD_JSON), *([st.sampled_from(own).map(json.loads)] if own else []))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        path = draw(st.sampled_from(where))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        how = draw(st.sampled_from(["set", "set", "drop", "add"]))
        if how == "drop":
            del parent[path[-1]]
            where = where_in(doc)
        elif how == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["extra", "", "\x00", "id"]))] = draw(values)
        else:
            parent[path[-1]] = draw(values)
            where = where_in(doc)
        if not where:
            break
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    return text.encode("utf-8", "surrogatepass")
