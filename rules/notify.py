"""The NOTIFY contract, both ends: what an action sends when a campaign changes, and what the live updates read.

A notification names the campaign, the event logged, the characters that changed and the browser tab that acted —
never data: PostgreSQL caps a payload below 8000 bytes and does not keep it for a listener that was away, so listeners
re-read the state and render it themselves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from django.db import connection

from campaigns.models import Campaign, Event
from config.compiled import Compiled

CHANNEL = "twelveplus_changes"
LIMIT = 7900  # bytes; PostgreSQL refuses payloads of 8000 bytes or more

# The browser tab whose request is running (its X-Tab header), set by the page layer around a view that answers with
# the regions it changed: that tab gets them in the answer, so its own stream leaves this change out (each change
# reaches each screen once). Empty for everything else (a script, a page that redirects).
acting_tab: ContextVar[str] = ContextVar("acting_tab", default="")
TAB = re.compile(r"[A-Za-z0-9-]{8,40}")

# Told of each event logged (its campaign and id), in the action's transaction, before it commits: set by the page
# layer around a view that draws the change it makes for its own process's streams too (play.live_drawing.Promises),
# so that the listener, which hears the change only after the commit, waits for that drawing instead of making its own.
on_logged: ContextVar[Callable[[int, int], None] | None] = ContextVar("on_logged", default=None)

# What the page layer reads of the campaign as an action leaves it, for the answer it draws: sent in the round trip
# that logs the event, after the action's writes and in its transaction, instead of a round trip of its own after
# the commit (config.compiled.written_then_read). Given the campaign and the event (its id not yet known), it names
# its reads and what takes their rows once the event has its id. Set around a view that answers in place.
type Reads = list[tuple[Compiled[Any], dict[str, Any]]]
type Taken = Callable[[Event, list[list[Any]]], None]
read_with_log: ContextVar[Callable[[Campaign, Event], tuple[Reads, Taken]] | None] = ContextVar(
    "read_with_log", default=None
)


def tab_or_nothing(value: object) -> str:
    """A tab id as a browser may send it, or "" for anything else (a forged header counts as no tab)."""
    return value if isinstance(value, str) and TAB.fullmatch(value) else ""


@dataclass(frozen=True)
class Change:
    """A campaign changed: `event` is the event logged (None: unknown, or the campaign is gone), `characters` the
    characters whose state changed (None meaning every one of them), `tab` the browser tab that acted ("" if none)."""

    campaign_id: int
    characters: tuple[int, ...] | None
    event: int | None = None
    tab: str = ""

    def payload(self) -> str:
        text = json.dumps(self.message())
        if len(text.encode()) > LIMIT:
            # Too many to list: the whole campaign is re-rendered, which is always right, only slower.
            text = json.dumps(replace(self, characters=None).message())
        return text

    def message(self) -> dict[str, object]:
        message: dict[str, object] = {"campaign": self.campaign_id, "characters": self.characters}
        if self.event is not None:
            message["event"] = self.event
        if self.tab:
            message["tab"] = self.tab
        return message

    @classmethod
    def parse(cls, payload: str) -> Change | None:
        """The change a payload describes, or None for one this version does not understand."""
        try:
            message = json.loads(payload)
            campaign_id = message["campaign"]
            characters = message["characters"]
            event = message.get("event")
            tab = tab_or_nothing(message.get("tab", ""))
            if type(campaign_id) is not int or (event is not None and type(event) is not int):
                return None
            if characters is None:
                return cls(campaign_id, None, event, tab)
            if not isinstance(characters, list) or not all(type(pk) is int for pk in characters):
                return None
            return cls(campaign_id, tuple(characters), event, tab)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def send(campaign_id: int, character_ids: Iterable[int] | None, event_id: int | None = None) -> None:
    """Tell every server process that this campaign changed; PostgreSQL delivers it when the transaction commits."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, change_of(campaign_id, character_ids, event_id).payload()])


def sent_with(event: tuple[str, list[Any]], campaign_id: int, character_ids: Iterable[int]) -> tuple[str, list[Any]]:
    """The statement that logs an event (an INSERT … RETURNING its id), made to send the change naming that event as
    well, in the same round trip: its one row is the event's id. What `send` sends, with the event's id put in by
    PostgreSQL (the payload leaves room for it under LIMIT)."""
    sql, params = event
    payload = change_of(campaign_id, character_ids, None).payload()
    notified = "pg_notify(%s, (%s::jsonb || jsonb_build_object('event', id))::text)"
    return f"WITH event AS ({sql}) SELECT id, {notified} FROM event", [*params, CHANNEL, payload]


def logged(campaign_id: int, event_id: int) -> None:
    """An event was logged (its change is sent at the commit): tell whoever is waiting to hear of it (`on_logged`)."""
    told = on_logged.get()
    if told is not None:
        told(campaign_id, event_id)


def change_of(campaign_id: int, character_ids: Iterable[int] | None, event_id: int | None) -> Change:
    characters = None if character_ids is None else tuple(character_ids)
    return Change(campaign_id, characters, event_id, acting_tab.get())


# Besides changes, the channel carries notices about accounts, each a one-key message: {kind: value}.
# A session that ended (a logout): its live streams end too, in every process. The value is a digest of the session
# key, never the key.
ENDED = "ended_session"
# An account changed (its password, whether it is active…): the live streams of its sessions that are no longer valid
# end, in every process. The value is the user's id only.
CHANGED_USER = "changed_user"


def send_notice(kind: str, value: str | int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps({kind: value})])


def notice(payload: str, kind: str) -> object:
    """The value of a notice of this kind, or None for any other payload."""
    try:
        return json.loads(payload).get(kind)
    except (ValueError, AttributeError):
        return None


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
