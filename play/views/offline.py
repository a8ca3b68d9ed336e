"""A phone sheet that works without signal (issue 25): the service worker, served from the site's root so that its
scope covers every page, and the web app manifest that makes a player's page or a sheet installable. Neither holds
anything of an account: the pages keep their own last state (static/js/offline.js), and a logout or a login tells the
browser to forget it (play.views.accounts.forget_kept_pages)."""

import json

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse
from django.templatetags.static import static
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

THEME_COLOUR = "#7a2e1c"  # --accent in static/css/app.css: the top bar
BACKGROUND_COLOUR = "#f7f5f0"  # --bg
# The pages a manifest may start at: a player's page and a sheet (play/urls.py).
KEPT_PAGES = frozenset({"campaign", "character"})


@require_safe
@login_not_required
def service_worker(request: HttpRequest) -> HttpResponse:
    """static/js/sw.js at /sw.js: a service worker's scope is at most the folder it is served from."""
    path = finders.find("js/sw.js")
    if not isinstance(path, str):
        raise Http404
    with open(path, encoding="utf-8") as source:
        response = HttpResponse(source.read(), content_type="text/javascript; charset=utf-8")
    # Browsers check for a new worker at each navigation; they must never be handed an old one from a cache.
    response["Cache-Control"] = "no-cache"
    return response


def start_of(path: str) -> str:
    """Where an installed app opens: the page it was installed from, if that is a player's page or a sheet."""
    if not path.startswith("/") or path.startswith("//"):
        return "/"
    try:
        match = resolve(path)
    except Resolver404:
        return "/"
    return path if match.url_name in KEPT_PAGES else "/"


@require_safe
@login_not_required
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest of a player's page or a sheet (`?start=<its path>&lang=<its language>`). Browsers fetch
    it without the session's cookie, so it names no campaign and no character: only the site, and where to start."""
    start = start_of(request.GET.get("start", "/"))
    language = request.GET.get("lang", "")
    if language not in dict(settings.LANGUAGES):
        language = translation.get_language()
    with translation.override(language):
        document = {
            "id": start,
            "name": _("12Plus · Seguimiento de campaña"),
            "short_name": "12Plus",
            "description": _("Tu hoja de personaje de 12Plus, también sin conexión."),
            "lang": language,
            "start_url": start,
            "scope": "/",
            "display": "standalone",
            "theme_color": THEME_COLOUR,
            "background_color": BACKGROUND_COLOUR,
            "icons": [
                {"src": static("icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
                {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
                {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
                {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
            ],
        }
    response = HttpResponse(json.dumps(document, ensure_ascii=False), content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response
