"""The NOTIFY contract, both ends: what an action sends when a campaign changes, and what the live updates read.

A notification names the campaign and the characters that changed — never data: PostgreSQL caps a payload below
8000 bytes and does not keep it for a listener that was away, so listeners re-read the state and render it themselves.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

CHANNEL = "twelveplus_changes"
LIMIT = 7900  # bytes; PostgreSQL refuses payloads of 8000 bytes or more


@dataclass(frozen=True)
class Change:
    """A campaign changed; `characters` lists the characters whose state changed, None meaning every one of them."""

    campaign_id: int
    characters: tuple[int, ...] | None

    def payload(self) -> str:
        text = json.dumps({"campaign": self.campaign_id, "characters": self.characters})
        if len(text.encode()) > LIMIT:
            # Too many to list: the whole campaign is re-rendered, which is always right, only slower.
            text = json.dumps({"campaign": self.campaign_id, "characters": None})
        return text

    @classmethod
    def parse(cls, payload: str) -> Change | None:
        """The change a payload describes, or None for one this version does not understand."""
        try:
            message = json.loads(payload)
            campaign_id = message["campaign"]
            characters = message["characters"]
            if type(campaign_id) is not int:
                return None
            if characters is None:
                return cls(campaign_id, None)
            if not isinstance(characters, list) or not all(type(pk) is int for pk in characters):
                return None
            return cls(campaign_id, tuple(characters))
        except (ValueError, KeyError, TypeError):
            return None


def send(campaign_id: int, character_ids: Iterable[int] | None) -> None:
    """Tell every server process that this campaign changed; PostgreSQL delivers it when the transaction commits."""
    change = Change(campaign_id, None if character_ids is None else tuple(character_ids))
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, change.payload()])
