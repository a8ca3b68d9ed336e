"""The client's address, the one the throttles count (play.throttle, django-axes): the socket's, unless the operator
names the proxies in front of the site (TRUSTED_PROXIES). Then, for a request that comes from one of them, the address
is the right-most one of its X-Forwarded-For that is not a trusted proxy: what the last proxy we trust saw. Everything
to the left of it the client may have written, so it counts for nothing.

uvicorn is run with --no-proxy-headers (make run, Docker, the README): it never believes the header itself, whoever
sends it; this middleware, first of all, is the one place that may.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from ipaddress import ip_address

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware

from config.env import Network


def trusted(address: str, proxies: list[Network]) -> bool:
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in proxies)


def client_address(remote: str, forwarded: str, proxies: list[Network]) -> str:
    """The address to count for a request from `remote` that carries `forwarded` (X-Forwarded-For, "" if none)."""
    if not trusted(remote, proxies):
        return remote  # a client talking to us directly: whatever it wrote in the header counts for nothing
    for hop in reversed([hop.strip() for hop in forwarded.split(",")]):
        try:
            ip_address(hop)
        except ValueError:
            return remote  # garbage where a trusted proxy would have written an address: believe the proxy only
        if not trusted(hop, proxies):
            return hop
    return remote  # every hop a trusted proxy (or no header): the nearest one is all we know


@sync_and_async_middleware
def ClientAddressMiddleware(  # noqa: N802 — a middleware factory, named as Django's middleware classes are
    get_response: Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]],
) -> Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]:
    """Put the client's address (client_address) in REMOTE_ADDR, where everything after it reads it."""

    def resolve(request: HttpRequest) -> None:
        proxies = settings.TRUSTED_PROXIES
        if proxies:
            remote = request.META.get("REMOTE_ADDR", "")
            request.META["REMOTE_ADDR"] = client_address(remote, request.META.get("HTTP_X_FORWARDED_FOR", ""), proxies)

    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponse:
            resolve(request)
            return await get_response(request)

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponse:
        resolve(request)
        return get_response(request)  # type: ignore[return-value]

    return middleware
