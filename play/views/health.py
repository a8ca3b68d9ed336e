"""The balancer's questions, answered without a session or a login: `/healthz` (the process is up: it asks nothing of
anyone) and `/readyz` (it can serve the table: play.live.health). Neither says more than up or down and one word."""

from django.contrib.auth.decorators import login_not_required
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from play.live.health import readiness


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain")


@login_not_required
@never_cache
@require_GET
async def readyz(request: HttpRequest) -> HttpResponse:
    """200 "ready", or 503 and why not: "database", "migrations", "listen" (the live updates' LISTEN connection has not
    heard its probe lately) or "asgi" (a server without live streams, as the test client's or runserver's)."""
    if not isinstance(request, ASGIRequest):
        return HttpResponse("not ready: asgi\n", status=503, content_type="text/plain")
    reason = await readiness.reason()
    if reason is not None:
        return HttpResponse(f"not ready: {reason}\n", status=503, content_type="text/plain")
    return HttpResponse("ready\n", content_type="text/plain")
