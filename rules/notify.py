"""The NOTIFY contract, both ends: what an action sends when a campaign changes, and what the live updates read.

A notification names the campaign, the event logged, the characters that changed and the browser tab that acted —
never data: PostgreSQL caps a payload below 8000 bytes and does not keep it for a listener that was away, so listeners
re-read the state and render it themselves.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

import msgspec
from django.db import connection

CHANNEL = "twelveplus_changes"
LIMIT = 7900  # bytes; PostgreSQL refuses payloads of 8000 bytes or more

# A browser tab's id (its X-Tab header, or its stream's `tab`), as static/js/screen.js makes one.
TAB = re.compile(r"[A-Za-z0-9-]{8,40}")


def tab_or_nothing(value: object) -> str:
    """A tab id as a browser may send it, or "" for anything else (a forged header counts as no tab)."""
    return value if isinstance(value, str) and TAB.fullmatch(value) else ""


class Change(msgspec.Struct, frozen=True, omit_defaults=True, rename={"campaign_id": "campaign"}):
    """A campaign changed: `event` is the event logged (None: unknown, or the campaign is gone), `characters` the
    characters whose state changed (None meaning every one of them), `tab` the browser tab that acted ("" if none:
    a script, a page without script), which had the change in the answer to its request, so that its own stream
    leaves it out. On the wire: {"campaign": 12, "characters": [3, 4], "event": 99, "tab": "…"}, the last two only
    when they are set."""

    campaign_id: int
    characters: tuple[int, ...] | None
    event: int | None = None
    tab: str = ""

    def payload(self) -> str:
        """The JSON text, spaced as PostgreSQL prints jsonb (", ", ": "): `sent_with` puts the event's id in as jsonb,
        and the text it sends is then no longer than this one measured, but for the id."""
        text = msgspec.json.format(msgspec.json.encode(self), indent=0)
        if len(text) > LIMIT:
            # Too many to list: the whole campaign is re-rendered, which is always right, only slower.
            text = msgspec.json.format(msgspec.json.encode(msgspec.structs.replace(self, characters=None)), indent=0)
        return text.decode()

    def message(self) -> dict[str, Any]:
        """The payload as JSON values."""
        message: dict[str, Any] = msgspec.to_builtins(self)
        return message

    @classmethod
    def parse(cls, payload: str) -> Change | None:
        """The change a payload describes, or None for one this version does not understand (every field is of its
        type; a tab that no browser would send is no tab)."""
        try:
            change = msgspec.json.decode(payload, type=cls)
        except msgspec.MsgspecError:  # not JSON (DecodeError), or not a change (ValidationError)
            return None
        tab = tab_or_nothing(change.tab)
        return change if tab == change.tab else msgspec.structs.replace(change, tab=tab)


def send(campaign_id: int, character_ids: Iterable[int] | None, event_id: int | None = None) -> None:
    """Tell every server process that this campaign changed; PostgreSQL delivers it when the transaction commits."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, change_of(campaign_id, character_ids, event_id).payload()])


def sent_with(
    event: tuple[str, list[Any]], campaign_id: int, character_ids: Iterable[int], tab: str = ""
) -> tuple[str, list[Any]]:
    """The statement that logs an event (an INSERT … RETURNING its id), made to send the change naming that event as
    well, in the same round trip: its one row is the event's id. What `send` sends, with the event's id put in by
    PostgreSQL (the payload leaves room for it under LIMIT), and the tab that acted."""
    sql, params = event
    payload = change_of(campaign_id, character_ids, None, tab).payload()
    notified = "pg_notify(%s, (%s::jsonb || jsonb_build_object('event', id))::text)"
    return f"WITH event AS ({sql}) SELECT id, {notified} FROM event", [*params, CHANNEL, payload]


def change_of(campaign_id: int, character_ids: Iterable[int] | None, event_id: int | None, tab: str = "") -> Change:
    characters = None if character_ids is None else tuple(character_ids)
    return Change(campaign_id, characters, event_id, tab_or_nothing(tab))


# Besides changes, the channel carries notices about accounts, each a one-key message: {kind: value}.
# A session that ended (a logout): its live streams end too, in every process. The value is a digest of the session
# key, never the key.
ENDED = "ended_session"
# An account changed (its password, whether it is active…): the live streams of its sessions that are no longer valid
# end, in every process. The value is the user's id only.
CHANGED_USER = "changed_user"


# A process's probe of its own LISTEN connection (play.live.health): it sends this with its own id and must hear it
# back. Every process hears every probe; each heeds only its own.
PROBE = "probe"


def notice_payload(kind: str, value: str | int) -> str:
    return msgspec.json.encode({kind: value}).decode()


def send_notice(kind: str, value: str | int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, notice_payload(kind, value)])


def notice(payload: str, kind: str) -> object:
    """The value of a notice of this kind, or None for any other payload."""
    try:
        message = msgspec.json.decode(payload)
    except msgspec.DecodeError:
        return None
    return message.get(kind) if isinstance(message, dict) else None


def session_digest(session_key: str | None) -> str:
    """What a NOTIFY says of a session (or of an API token's stream: rules.actions.tokens.stream_key): never the key
    itself, which is a password."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:32]


def send_session_ended(digest: str) -> None:
    send_notice(ENDED, digest)


def ended_session(payload: str) -> str | None:
    """The session digest a payload says ended, or None for any other payload."""
    digest = notice(payload, ENDED)
    return digest if isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{32}", digest) else None


def send_user_changed(user_id: int) -> None:
    send_notice(CHANGED_USER, user_id)


def changed_user(payload: str) -> int | None:
    """The user id a payload says changed, or None for any other payload."""
    user_id = notice(payload, CHANGED_USER)
    return user_id if type(user_id) is int else None


def probe_of(payload: str) -> str | None:
    """The process id a probe names, or None for any other payload."""
    probe = notice(payload, PROBE)
    return probe if isinstance(probe, str) else None
