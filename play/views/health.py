"""The operator's questions, answered without a session or a login: `/healthz` (the process is up: it asks nothing of
anyone) and `/readyz` (it can serve the table: play.live.health), for the balancer, neither saying more than up or down
and one word; and `/metrics` (config.metrics), for Prometheus at the addresses the operator names."""

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config import metrics as counted
from config.client_address import trusted
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
        counted.UNAVAILABLE.labels(f"readyz_{reason}").inc()
        return HttpResponse(f"not ready: {reason}\n", status=503, content_type="text/plain")
    return HttpResponse("ready\n", content_type="text/plain")


@login_not_required
@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """The process's figures for Prometheus (config.metrics), for the addresses in METRICS_ALLOWED only; anyone else
    is told there is nothing here."""
    if not trusted(request.META.get("REMOTE_ADDR", ""), settings.METRICS_ALLOWED):
        raise Http404
    body, content_type = counted.exposition()
    return HttpResponse(body, content_type=content_type)
