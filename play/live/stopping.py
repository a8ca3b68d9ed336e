"""A process told to stop (SIGTERM, as a deploy or `docker stop` sends it) ends its live streams at once, each telling
its browser to reconnect in a moment (Hub.leave), and says "stopping" to the balancer's `/readyz`. For DRAIN_SECONDS it
goes on answering what still reaches it, while the balancer takes it out of the rotation (two failed checks) and
sends everything to the other hosts; then it stops as the server does: no more connections taken, the requests in
flight answered, then exit — within the server's graceful time, not held there by streams that never end by
themselves. Without the drain, a request the balancer sends on a kept-alive connection just as the server closes it
is lost (the rolling deploy of tests/cluster/test_operations.py met it).

uvicorn installs its own SIGTERM handler when it starts serving, after the app is loaded: ours is put in front of it
at the first use of the live machinery (a stream, a readiness check), on the event loop's thread, and hands the signal
on to uvicorn's."""

from __future__ import annotations

import asyncio
import signal
import threading
from types import FrameType
from typing import Any, Protocol

from django.conf import settings


class Hub(Protocol):
    """What of the hub (play.live.streams.Hub) stopping asks: whether it heeds SIGTERM already, whether it is leaving,
    and to leave."""

    heeded: bool
    leaving: bool

    def leave(self) -> None: ...


def heed(hub: Hub) -> None:
    """Put the hub's `leave` in front of the server's SIGTERM handler, once, from the main thread's event loop."""
    if hub.heeded or threading.current_thread() is not threading.main_thread():
        return
    hub.heeded = True
    loop = asyncio.get_running_loop()
    before: Any = signal.getsignal(signal.SIGTERM)

    def handed_on(signum: int, frame: FrameType | None) -> None:
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGTERM)

    def stop(signum: int, frame: FrameType | None) -> None:
        if hub.leaving:  # told twice: stop now
            handed_on(signum, frame)
            return
        try:
            loop.call_soon_threadsafe(hub.leave)
            loop.call_soon_threadsafe(loop.call_later, settings.DRAIN_SECONDS, handed_on, signum, None)
        except RuntimeError:  # the loop is closed already: nothing is left to drain
            handed_on(signum, frame)

    signal.signal(signal.SIGTERM, stop)
