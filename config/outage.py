"""While the database cannot be reached, every request gets a plain 503 page at once instead of a 500 or a hang.

Django turns any exception inside the middleware chain into a response on the spot (a 500, or under DEBUG its debug
page, which itself reads the session and the user: more waits on a dead database). So the middleware marks each
request it guards, and a receiver of `got_request_exception` — sent before that conversion — raises Unavailable when
the exception was the database connection's (refused, lost mid-request, or no pooled connection within the pool's
timeout: settings DATABASES "pool" and "connect_timeout"). The middleware catches it and answers the 503 page, with
Retry-After; nothing of it touches the database, the session or the user. htmx's live-stream extension retries a
stream that answered 503, and the pool checks each connection before handing it out (check_pooled), so everything
recovers by itself when the database returns.
"""

import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.core.signals import got_request_exception
from django.db import InterfaceError, connections
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from psycopg_pool import ConnectionPool, PoolTimeout

from config import metrics

RETRY_AFTER_SECONDS = 5
GUARDED = "outage_guarded"

logger = logging.getLogger(__name__)


class Unavailable(Exception):
    """The database could not be reached while answering this request."""


# SQLSTATEs that mean the server went away or will not take connections now (class 08: connection exceptions).
SERVER_GONE = {"57P01", "57P02", "57P03"}  # admin shutdown, crash shutdown, cannot connect now


def is_connection_error(error: BaseException | None) -> bool:
    """The database could not be reached: refused, dropped, shutting down, or no pooled connection in time. Not a
    deadlock, a lock or statement timeout or any other error a working server reports: those stay 500s (bugs)."""
    seen = 0
    while error is not None and seen < 10:  # the error, or what caused it (Django wraps psycopg's errors)
        if isinstance(error, PoolTimeout):
            return True
        if isinstance(error, psycopg.Error):
            state = error.sqlstate
            return state is None or state.startswith("08") or state in SERVER_GONE
        if isinstance(error, InterfaceError) and error.__cause__ is None:
            return True  # Django's own "connection already closed"
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def check_pooled(connection: psycopg.Connection[Any]) -> None:
    """The pool's check of a connection before it hands it out (settings DATABASES "pool"). One found dropped means
    the server restarted or cut us off: every other idle one is as dead, so they are all replaced at once. Tried one
    by one, each costs the pool a growing pause (1 s, 2 s, ...), and a full pool (16) took 16 s to recover."""
    try:
        ConnectionPool.check_connection(connection)
    except Exception:
        connections["default"].pool.drain()  # type: ignore[attr-defined]  # the PostgreSQL backend's pool
        raise


@receiver(got_request_exception)
def stop_at_outage(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    error = sys.exc_info()[1]
    if request is None or not getattr(request, GUARDED, False):
        return
    if isinstance(error, Unavailable):
        raise error  # on its way out through the outer layers of the chain, each of which sends the signal again
    if is_connection_error(error):
        raise Unavailable from error


def unavailable(request: HttpRequest, error: Unavailable) -> HttpResponse:
    metrics.UNAVAILABLE.labels("database").inc()
    match = request.resolver_match
    route = match.route if match is not None else "(no route)"  # never the path: it may hold a secret
    logger.warning("503 for %s %s: the database is unreachable (%s)", request.method, route, error.__cause__)
    with translation.override(translation.get_language_from_request(request)):
        page = render_to_string("503.html", {"retry_after": RETRY_AFTER_SECONDS})
    response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class OutageMiddleware:
    """Outermost but for SecurityMiddleware: answers the 503 page when the database connection failed inside."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        setattr(request, GUARDED, True)
        try:
            return self.get_response(request)
        except Unavailable as error:
            return unavailable(request, error)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        get_response: Callable[[HttpRequest], Awaitable[HttpResponse]] = self.get_response
        setattr(request, GUARDED, True)
        try:
            return await get_response(request)
        except Unavailable as error:
            return unavailable(request, error)
