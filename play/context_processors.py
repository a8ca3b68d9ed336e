"""What every page's template may read: whether sign-up is open, where this site is, and whether live updates run."""

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    return {
        "signup_open": settings.SIGNUP_OPEN,
        # Where this site is, for links people copy (invitations); the live streams render with the same value.
        "site": f"{request.scheme}://{request.get_host()}",
        # Live streams need the ASGI server; pages served over WSGI (runserver, the test live server) skip them.
        "live_updates": isinstance(request, ASGIRequest),
    }
