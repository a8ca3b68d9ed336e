"""Marks in time for bench/stages.py: an app that, installed in a server (bench/probe_settings.py), wraps the steps
of a GM's click — the request coming in, its session and account read, the view's reads, the action's round trips,
the commit, the drawing, each stream's delivery, the answer sent — so that each writes when it starts and ends to the
file named by BENCH_PROBE (`time name` per line; time.perf_counter, which is the machine's monotonic clock, as the
client's). Only for measuring: it changes no behaviour, and costs a write per mark."""

from __future__ import annotations

import functools
import gc
import inspect
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from django.apps import AppConfig

FILE = [-1]


def mark(name: str) -> None:
    os.write(FILE[0], f"{time.perf_counter():.6f} {name}\n".encode())


def wrap(owner: Any, attribute: str, name: str) -> None:
    """Mark `name+` when owner.attribute starts and `name-` when it ends (a coroutine function's too)."""
    real: Callable[..., Any] = getattr(owner, attribute)
    if inspect.iscoroutinefunction(real):

        @functools.wraps(real)
        async def waited(*args: Any, **kwargs: Any) -> Any:
            mark(name + "+")
            try:
                return await real(*args, **kwargs)
            finally:
                mark(name + "-")

        setattr(owner, attribute, waited)
        return

    @functools.wraps(real)
    def called(*args: Any, **kwargs: Any) -> Any:
        mark(name + "+")
        try:
            return real(*args, **kwargs)
        finally:
            mark(name + "-")

    setattr(owner, attribute, called)


class Probe(AppConfig):
    name = "bench"
    label = "bench_probe"

    def ready(self) -> None:
        from django.core.handlers.asgi import ASGIHandler
        from django.db.backends.base.base import BaseDatabaseWrapper

        from bench import stack_floor
        from campaigns import access
        from config import signed_in
        from play.forms.base import ActionForm
        from play.live import streams as live
        from play.live.watchers import Watcher
        from play.screens import answers
        from rules.actions import core

        FILE[0] = os.open(os.environ["BENCH_PROBE"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        gc.callbacks.append(lambda phase, info: mark(f"gc{info['generation']}{'+' if phase == 'start' else '-'}"))
        handle = ASGIHandler.handle

        async def handled(self: ASGIHandler, scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope.get("method") != "POST":
                await handle(self, scope, receive, send)
                return
            mark("request")

            async def sent(message: Mapping[str, Any]) -> None:
                await send(message)
                if message.get("type") == "http.response.body" and not message.get("more_body"):
                    mark("sent")

            await handle(self, scope, receive, sent)

        ASGIHandler.handle = handled  # type: ignore[method-assign]
        wrap(signed_in.SessionStore, "_get_session_from_db", "session")
        wrap(signed_in.Accounts, "get_user", "user")
        wrap(BaseDatabaseWrapper, "commit", "commit")
        wrap(access, "table_for_gm", "table")  # the app's: the campaign and its characters, for the form
        wrap(ActionForm, "apply", "apply")
        wrap(core, "together", "lock")  # an action's first trip: the campaign locked, the characters read
        wrap(core, "in_one_trip", "write")  # its writes and its event, in one round trip
        wrap(answers, "drawn_here", "drawn")
        deliver = live.Hub.deliver

        def delivered(self: live.Hub, watcher: Watcher, text: bytes | str, event: int = 0) -> None:
            deliver(self, watcher, text, event)
            mark("deliver")

        live.Hub.deliver = delivered  # type: ignore[method-assign]
        floor_deliver = stack_floor.Hub.deliver

        def floor_delivered(self: stack_floor.Hub, campaign_id: int, client: stack_floor.Client, data: bytes) -> None:
            floor_deliver(self, campaign_id, client, data)
            mark("deliver")

        stack_floor.Hub.deliver = floor_delivered  # type: ignore[method-assign]
