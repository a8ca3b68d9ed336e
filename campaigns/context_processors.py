from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict:
    return {"signup_open": settings.SIGNUP_OPEN}
