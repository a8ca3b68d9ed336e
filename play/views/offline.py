"""A phone sheet that works without signal (issue 25): the service worker, served from the site's root so that its
scope covers every page, and the web app manifest that makes a player's page or a sheet installable. Neither holds
anything of an account: the pages keep their own last state (static/js/offline.js), and a logout or a login tells the
browser to forget it (play.views.accounts.forget_kept_pages). Between the two, kept copies follow rights: the worker
asks which of them the account has lost (kept_pages) and drops those."""

import json

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from campaigns import access

THEME_COLOUR = "#7a2e1c"  # --accent in static/css/app.css: the top bar
BACKGROUND_COLOUR = "#f7f5f0"  # --bg
# The pages a manifest may start at, and the ones a phone keeps: a player's page and a sheet (play/urls.py).
KEPT_PAGES = frozenset({"campaign", "character"})
# The paths one question about kept pages reads (static/js/sw.js asks in batches of ASKED_AT_ONCE = 100); of
# campaigns, as many as a phone may keep: each costs a read of its roster.
ASKED_AT_MOST = 100
CAMPAIGNS_AT_MOST = 20


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


@require_safe
@login_not_required
def kept_pages(request: HttpRequest) -> JsonResponse:
    """Kept copies follow rights (issue 48): which of the paths asked (`?path=…`, those of the pages a phone keeps
    and of the sheets they show) this account may no longer see — the service worker then drops every copy that is,
    or shows, one of them (static/js/sw.js, prune). Asked at each page loaded online, so a phone loses what the
    account lost the next time it is online, whichever page it opens.

    A player's page is lost when the account no longer plays a character in play there (or no longer runs it); a
    sheet, when the account no longer sees that character in full: the same rules as the live streams
    (campaigns.access: Roster.still_sees, Roster.seen_by). Only the paths asked are answered, each "lost" alike
    whether its campaign exists or not: nothing is said of campaigns the account may not see. Paths not of a kept
    page are left out. Anonymous (signed out, the session expired): `user` null, and the worker drops everything,
    as the login page does (play.views.accounts.forget_kept_pages)."""
    asked: dict[str, tuple[int, int | None]] = {}
    for path in request.GET.getlist("path")[:ASKED_AT_MOST]:
        target = kept_page_at(path)
        if target is not None:
            asked[path] = target
    seen = still_seen(request, set(asked.values()))
    lost = sorted(path for path, target in asked.items() if target not in seen)
    user = request.user.pk if request.user.is_authenticated else None
    response = JsonResponse({"user": user, "lost": lost})
    response["Cache-Control"] = "no-store"
    return response


def kept_page_at(path: str) -> tuple[int, int | None] | None:
    """The campaign and character (None: the player's page) of a kept page's path, or None for any other path."""
    if not path.startswith("/") or path.startswith("//"):
        return None
    try:
        match = resolve(path)
    except Resolver404:
        return None
    if match.url_name not in KEPT_PAGES:
        return None
    return match.kwargs["campaign_id"], match.kwargs.get("character_id")


def still_seen(request: HttpRequest, targets: set[tuple[int, int | None]]) -> set[tuple[int, int | None]]:
    """Of these (campaign, character) pairs, those the account may still see: one query for the campaigns, and per
    campaign its roster (and its members)."""
    wanted = sorted({campaign for campaign, _character in targets})[:CAMPAIGNS_AT_MOST]
    seen: set[tuple[int, int | None]] = set()
    for campaign in access.campaigns_of(request.user).filter(pk__in=wanted):
        roster = access.roster_of(campaign)
        audience = access.audience_of(request.user, campaign)
        if roster.still_sees(audience):
            seen.add((campaign.pk, None))
            seen.update((campaign.pk, character.pk) for character in roster.seen_by(audience))
    return seen
