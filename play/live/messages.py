"""What a live stream sends: a message in the Server-Sent Events format (`sse`, `message`) and why a stream ends
(`Ending`); and what the machinery knows of a view (`Watched`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol


class Ending(StrEnum):
    """Why a stream ends (its last message, play.live.connects.ending); its page says it in words (screen_end.html)."""

    GONE = "gone"  # the campaign is gone, or this audience may no longer watch it
    SESSION = "session"  # the session behind the stream ended
    ROLE = "role"  # its person still sees the campaign, in the other role: a player made co-GM, a co-GM removed


class Watched(Protocol):
    """A view of a campaign as the live machinery knows it: one key for every browser that shows the same thing
    (hashable), whose audience it is. What it shows is the screens' business (play.screens.answers.Seen)."""

    @property
    def campaign_id(self) -> int: ...

    @property
    def user_id(self) -> int: ...

    @property
    def kind(self) -> str: ...  # what screen it is ("table", "page", "sheet", "api"): the metrics count streams by it

    def __hash__(self) -> int: ...


def sse(event: str, text: str) -> str:
    data = "\ndata: ".join(text.splitlines() or [""])
    return f"event: {event}\ndata: {data}\n\n"


def message(html: str | None) -> bytes | str | None:
    """A change's drawing as its streams send it: an SSE message (encoded once for all of them), "" (nothing to send),
    an Ending other than GONE (the stream ends, saying why) or None (the stream ends: GONE)."""
    if isinstance(html, Ending):
        return None if html == Ending.GONE else html
    return sse("change", html).encode() if html else html
