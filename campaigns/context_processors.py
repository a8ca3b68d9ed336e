from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest


def site(request: HttpRequest) -> dict:
    return {
        "signup_open": settings.SIGNUP_OPEN,
        # Live streams need the ASGI server; pages served over WSGI (runserver, the test live server) skip them.
        "live_updates": isinstance(request, ASGIRequest),
    }
