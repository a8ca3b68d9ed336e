"""The streams their browsers closed, remembered a moment (REMEMBER_SECONDS) by what their connects asked: the same
request again is let in as they were (`comeback`: play.live.connects.remembered) while nothing that could end them was
heard since (`unremember`, `unremember_campaign`: the hub forgets them as it hears such a thing)."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.utils import timezone

from play.live.watchers import REMEMBER_SECONDS, Remembered, Request, Watcher


class Memory:
    def __init__(self) -> None:
        self.remembered: dict[Request, list[Remembered]] = {}
        self.remembered_in: dict[int, set[Request]] = {}  # the same requests by campaign (a request names one)
        self.remembered_swept = 0.0  # when those whose time passed were last let go (remember)

    def remember(self, watcher: Watcher, listening: bool, listened: int) -> None:
        """A stream closed by its browser: the same request, soon, is let in without asking Django (`comeback`).
        Not one told it ends, nor one dropped (it may have missed being told), nor one whose session expired, nor one
        closed while the hub does not listen (`listening`; `listened`: how often its LISTEN connection was made)."""
        if watcher.comeback is None or watcher.told or watcher.dropped or not listening:
            return
        if watcher.expires is not None and watcher.expires <= timezone.now():
            return
        now = time.monotonic()
        if now - self.remembered_swept > 1.0:  # those whose time passed are let go, once a second at most
            self.remembered_swept = now
            self.unremember(lambda _watcher: False, now)
        kept = Remembered(watcher, now + REMEMBER_SECONDS, listened)
        self.remembered.setdefault(watcher.comeback.request, []).append(kept)
        self.remembered_in.setdefault(watcher.campaign_id, set()).add(watcher.comeback.request)

    def comeback(self, request: Request, listening: bool, listened: int) -> Watcher | None:
        """A new stream for a request remembered, as its closed stream was; None if there is none or it may no longer
        be trusted (its time passed, its session expired, the listener reconnected: changes may have been missed)."""
        kept = self.remembered.get(request)
        if not kept:
            return None
        last = kept.pop()
        if not kept:
            del self.remembered[request]
            self.remembered_in[last.watcher.campaign_id].discard(request)
        if last.until <= time.monotonic() or not listening or last.listened != listened:
            return None
        old = last.watcher
        if old.expires is not None and old.expires <= timezone.now():
            return None
        return Watcher(old.seen, old.tab, old.session, old.expires, old.key, comeback=old.comeback)

    def unremember(self, ends: Callable[[Watcher], bool], now: float = 0.0) -> None:
        """Forget the streams remembered that what was just heard may end (and those whose time passed by `now`):
        they reconnect through Django."""
        if not self.remembered:
            return
        remembered: dict[Request, list[Remembered]] = {}
        remembered_in: dict[int, set[Request]] = {}
        for request, kept in self.remembered.items():
            still = [each for each in kept if each.until > now and not ends(each.watcher)]
            if still:
                remembered[request] = still
                remembered_in.setdefault(still[0].watcher.campaign_id, set()).add(request)
        self.remembered, self.remembered_in = remembered, remembered_in

    def unremember_campaign(self, campaign_id: int) -> None:
        """Forget a changed campaign's streams remembered (their audience may no longer watch it), and only its."""
        for request in self.remembered_in.pop(campaign_id, ()):
            self.remembered.pop(request, None)
