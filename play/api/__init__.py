"""The JSON API for bots and modules (issue 53), under /api/v1/: typed (django-ninja, pydantic), its OpenAPI document
derived from the schemas (`/api/v1/openapi.json`) and an interactive page served from this site (`/api/v1/docs`).

A call carries a personal access token (`Authorization: Bearer 12p_…`, campaigns.models.AccessToken): it acts as its
account, with exactly that account's rights (campaigns.access, nothing written again), no session and no CSRF. A
refusal is `application/problem+json` (RFC 9457).
"""

from django.urls import URLPattern, URLResolver, path

from play.api import acts, reads, stream, v1

__all__ = ["acts", "reads", "stream", "urls", "v1"]


def urls() -> list[URLPattern | URLResolver]:
    """The API's URLs (its reads, play.api.v1, and its actions, play.api.acts), each open without a login session (a
    token is its own login: play.api.v1.Bearer)."""
    events = path("campaigns/<int:campaign_id>/events", stream.events, name="events")  # SSE: no OpenAPI operation
    patterns: list[URLPattern | URLResolver] = [events, *v1.api.urls[0]]
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            pattern.callback.login_required = False  # type: ignore[attr-defined]  # read by LoginRequiredMiddleware
    return patterns
