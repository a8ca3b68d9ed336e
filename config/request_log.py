"""One log line per request, with its id: `RequestLogMiddleware`, first of all; and the JSON format of every log line
(`JsonLines`, with LOG_FORMAT=json).

A request's id is the balancer's X-Request-ID when the request comes from a proxy the operator trusts
(TRUSTED_PROXIES) and the id looks like one; else one made here. It is kept on the request (`request.request_id`),
answered in the X-Request-ID header, and written in the request's line and in every line Django logs about the request
(its `django.request` warnings and errors carry the request: `JsonLines` reads the id from it). No line holds a secret:
the request's line names the route matched (`invitations/<token>/`), never the path that filled it in, and no header,
cookie, query or body is written.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.db import connections
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.decorators import sync_and_async_middleware

from config import metrics
from config.client_address import trusted

logger = logging.getLogger("twelveplus.requests")
HEADER = "X-Request-ID"
SENT_ID = re.compile(r"[A-Za-z0-9._:-]{8,64}")  # what a balancer's id looks like (HAProxy's unique-id, a UUID…)


def request_id_of(request: HttpRequest) -> str:
    """The balancer's id, from a trusted proxy; else a new one."""
    sent = request.headers.get(HEADER, "")
    if sent and SENT_ID.fullmatch(sent) and trusted(request.META.get("REMOTE_ADDR", ""), settings.TRUSTED_PROXIES):
        return sent
    return uuid.uuid4().hex


def logged(request: HttpRequest, response: HttpResponseBase, started: float) -> None:
    """The request's line: who (the user's id, if the request read its user), what (the route, its campaign), how it
    ended and how long it took."""
    seconds = time.perf_counter() - started
    match = request.resolver_match
    user = request.__dict__.get("user")
    cached = getattr(user, "_wrapped", None) if user is not None else None  # read by the request: no query here
    fields = {
        "request_id": getattr(request, "request_id", ""),
        "method": request.method,
        "route": match.route if match is not None else "",
        "view": match.view_name if match is not None else "",
        "campaign_id": match.kwargs.get("campaign_id") if match is not None else None,
        "user_id": getattr(cached, "pk", None),
        "status": response.status_code,
        "duration_ms": round(seconds * 1000, 1),
    }
    logger.info("%s %s %s", request.method, fields["route"] or "(no route)", response.status_code, extra=fields)
    metrics.REQUESTS.labels(fields["view"] or "(no route)", str(response.status_code)).observe(
        time.perf_counter() - started
    )
    pool = getattr(connections["default"], "pool", None)  # the PostgreSQL backend's pool, when settings turn it on
    if pool is not None:
        metrics.pool_seen(pool.get_stats())


@sync_and_async_middleware
def RequestLogMiddleware(  # noqa: N802 — a middleware factory, named as Django's middleware classes are
    get_response: Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]],
) -> Callable[[HttpRequest], HttpResponseBase | Awaitable[HttpResponseBase]]:
    """First of all: the request's id, set and answered; its line logged when its response is ready (for a live
    stream: when it starts)."""

    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponseBase:
            started = time.perf_counter()
            request.request_id = request_id_of(request)  # type: ignore[attr-defined]
            response = await get_response(request)
            assert isinstance(response, HttpResponseBase)
            response[HEADER] = request.request_id  # type: ignore[attr-defined]
            logged(request, response, started)
            return response

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        request.request_id = request_id_of(request)  # type: ignore[attr-defined]
        response = get_response(request)
        assert isinstance(response, HttpResponseBase)
        response[HEADER] = request.request_id  # type: ignore[attr-defined]
        logged(request, response, started)
        return response

    return middleware


# Fields of a record that are the logging module's own: anything else on a record is an `extra` to write.
OWN = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "request", "server_time", "status_code"}


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the request's id (from the request a record carries, as
    Django's own records do, or from its `extra`), the record's extras, and the exception if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "request_id"):
            line["request_id"] = request.request_id
        line.update({key: value for key, value in vars(record).items() if key not in OWN})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class RoutesNotPaths(logging.Filter):
    """Django's lines about a request ("Not Found: /invitations/…/") name the route it matched, not its path: a path
    may hold a secret (an invitation's token)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if record.name == "django.request" and isinstance(record.args, tuple) and len(record.args) == 2:
            match = getattr(request, "resolver_match", None)
            record.args = (record.args[0], match.route if match is not None else "(no route)")
        return True
