"""Accounts: logging in and signing up, each saying who invited the visitor when they are on their way to an
invitation; and the account's personal access tokens for the API."""

import ipaddress
import re
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import signed_in
from campaigns.models import TOKEN_PATTERN, AccessToken, Invitation
from play import throttle
from play.forms.accounts import LoginForm, SignupForm, TokenForm
from play.forms.fields import posted
from rules.actions import tokens


def invitation_in(next_url: str) -> Invitation | None:
    """The pending invitation a visitor is on their way to (`next=/invite/<token>/`), so that the login and sign-up
    pages can say who invited them and to play whom."""
    match = re.fullmatch(f"/invite/({TOKEN_PATTERN})/", next_url)
    if match is None:
        return None
    return Invitation.objects.pending().in_play().filter(token=match[1]).select_related("campaign", "character").first()


def forget_kept_pages(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """An answer that changes who is signed in (a logout, a login, a sign-up) tells the browser to drop every page
    kept for offline use (static/js/offline.js), and the service worker with them: another account on the same phone
    never sees them. Browsers take that header only from a secure origin (HTTPS, or this machine itself) and call it
    an error elsewhere; there, as for a session that ended without a logout, the login page's own script does it.
    While the same account stays signed in, only what it lost goes, page by page (play.views.offline.kept_pages)."""
    if secure_origin(request):
        response["Clear-Site-Data"] = '"cache", "storage"'
    return response


def secure_origin(request: HttpRequest) -> bool:
    """Whether the browser counts the page's origin as secure: HTTPS, or a loopback host (localhost, 127.0.0.1…)."""
    if request.is_secure():
        return True
    host = split_domain_port(request.get_host())[0].strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LogoutView(auth_views.LogoutView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return forget_kept_pages(request, super().post(request, *args, **kwargs))


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        return forget_kept_pages(self.request, super().form_valid(form))

    def form_invalid(self, form: LoginForm) -> HttpResponse:  # type: ignore[override]
        return self.render_to_response(self.get_context_data(form=form), status=400)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["invite"] = invitation_in(str(context.get("next") or ""))
        return context


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.SIGNUP_OPEN:
        raise Http404
    form = SignupForm(posted(request))
    next_url = request.GET.get("next", request.POST.get("next", ""))
    context = {"form": form, "next": next_url, "invite": invitation_in(next_url)}
    wait = throttle.signup_wait(request) if request.method == "POST" else 0
    if wait:
        refused = {"refused": throttle.too_many_signups_message()}
        response = render(request, "registration/signup.html", context | refused, status=429)
        response["Retry-After"] = str(wait)
        return response
    if request.method == "POST" and form.is_valid():
        user = form.save()
        throttle.record_signup(request)
        login(request, user, backend="config.signed_in.Accounts")
        next_url = request.POST.get("next", "")
        safe = url_has_allowed_host_and_scheme(next_url, allowed_hosts=None) and next_url.startswith("/")
        return forget_kept_pages(request, redirect(next_url if safe else "home"))
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


# --- personal access tokens for the API (play.api) ------------------------------------------------------------------


MADE = "made_token"  # the token just made, between its POST and the page that shows it


@require_http_methods(["GET", "POST"])
def access_tokens(request: HttpRequest) -> HttpResponse:
    """The account's tokens for the API: each with its name, what it may do, where, until when and its last use; a
    new one shown once, on the page that made it."""
    user = signed_in(request)
    form = TokenForm(posted(request), user=user)
    if request.method == "POST" and form.is_valid() and (made := form.apply(user)) is not None:
        # Shown by the page this redirects to, once: kept in the login session only until that page takes it.
        row, token = made
        request.session[MADE] = {"name": row.name, "token": token}
        return redirect("access_tokens")
    listed = AccessToken.objects.filter(user=user).select_related("campaign")
    now = timezone.now()
    context = {
        "form": form,
        "tokens": listed,
        "made": request.session.pop(MADE, None),
        "now": now,
        "a_minute_ago": now - tokens.USED_EVERY,  # a use since then is "un momento" ago, not "0 minutos"
    }
    return render(request, "access_tokens.html", context, status=400 if form.errors else 200)


@require_POST
def revoke_access_token(request: HttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of the account's tokens, at once (a stream it holds open ends with it)."""
    if not tokens.revoke_token(signed_in(request), token_id):
        messages.info(request, _("Ese token ya estaba anulado o no es tuyo."))
    return redirect("access_tokens")
