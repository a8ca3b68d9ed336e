"""Login required by default, as Django's LoginRequiredMiddleware does, with one difference for htmx.

A page open while its session ended elsewhere (a logout in another tab, the session's expiry) still sends htmx
requests. A redirect to the login page would be followed by the browser and the login page swapped into the table,
with no word of what happened. Those requests get a bare 401 instead, which the page turns into its "your session has
ended" line (static/js/site.js). Every other request is redirected to the login page, as before.
"""

from collections.abc import Callable
from typing import Any

from django.contrib.auth import middleware
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers


class LoginRequiredMiddleware(middleware.LoginRequiredMiddleware):
    # django-stubs say a redirect; Django only returns the response, whatever it is.
    def handle_no_permission(  # type: ignore[override]
        self, request: HttpRequest, view_func: Callable[..., Any]
    ) -> HttpResponseBase:
        # htmx's history restore asks for a whole page to show: it gets the redirect to the login page like a visit.
        htmx = request.headers.get("HX-Request") == "true"
        if htmx and request.headers.get("HX-History-Restore-Request") != "true":
            response: HttpResponseBase = HttpResponse(status=401)
            response["Cache-Control"] = "no-store"
        else:
            response = super().handle_no_permission(request, view_func)
        # The same URL answers differently to htmx: a cache must keep the two apart.
        patch_vary_headers(response, ["HX-Request"])
        return response
