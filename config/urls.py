from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.http import require_safe
from django.views.i18n import set_language


@require_safe
@login_not_required
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico on any page that names no icon (the admin's, a plain error page): a 404 there is
    a console error on every such page. The site's icon is the SVG under static/ (hashed in production)."""
    response = redirect(static("favicon.svg"))
    response["Cache-Control"] = "public, max-age=86400"
    return response


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("", include("play.urls")),
    path("admin/", admin.site.urls),
]
