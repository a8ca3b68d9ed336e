"""A process told to stop (SIGTERM, as a deploy or `docker stop` sends it) ends its live streams at once, each telling
its browser to reconnect in a moment (Hub.leave), and then stops as the server does: no more connections taken, the
requests in flight answered, then exit — within the server's graceful time, not held there by streams that never
end by themselves.

uvicorn installs its own SIGTERM handler when it starts serving, after the app is loaded: ours is put in front of it
at the first use of the live machinery (a stream, a readiness check), on the event loop's thread, and hands the signal
on to uvicorn's."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from play.live.streams import Hub


def heed(hub: Hub) -> None:
    """Put the hub's `leave` in front of the server's SIGTERM handler, once, from the main thread's event loop."""
    if hub.heeded or threading.current_thread() is not threading.main_thread():
        return
    hub.heeded = True
    loop = asyncio.get_running_loop()
    before: Any = signal.getsignal(signal.SIGTERM)

    def stop(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed already: no stream is left to tell
            loop.call_soon_threadsafe(hub.leave)
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
