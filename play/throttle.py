"""What a visitor without an account can try, bounded: logging in (django-axes counts the failures per account and per
client address and calls `locked_out`, see settings) and signing up (SIGNUPS_PER_HOUR per client address)."""

from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns.models import Signup
from play.forms.accounts import LoginForm


class LoginAttempts(AxesDatabaseHandler):
    """django-axes's record of failed logins, with a limit of its own for a client address: a whole table of players
    behind one home router may mistype a few passwords without locking each other out, while one address trying
    password after password (or account after account) is still stopped. Axes compares the larger of the counts (by
    account, by address) with LOGIN_FAILURE_LIMIT; the count by address is scaled so that it reaches that limit only at
    LOGIN_ADDRESS_FAILURE_LIMIT."""

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        failures = {
            parameter: attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for parameter, attempts in zip(
                settings.AXES_LOCKOUT_PARAMETERS, self.get_user_attempts(request, credentials), strict=True
            )
        }
        by_address = failures["ip_address"] * settings.AXES_FAILURE_LIMIT // settings.LOGIN_ADDRESS_FAILURE_LIMIT
        return max(failures["username"], by_address)


def client_address(request: HttpRequest) -> str:
    """The address the throttles count by: the same one django-axes reads (REMOTE_ADDR)."""
    return get_client_ip_address(request) or ""


def cooloff_minutes() -> int:
    return max(1, int(settings.AXES_COOLOFF_TIME.total_seconds() // 60))


def locked_out(request: HttpRequest, response: HttpResponse | None = None, credentials: Any = None) -> HttpResponse:
    """The login page again, saying why nothing was checked: too many wrong passwords for this account or from here."""
    message = _(
        "Demasiados intentos fallidos. Espera %(minutes)s minutos y vuelve a intentarlo, "
        "o pide a un administrador que desbloquee la cuenta."
    ) % {"minutes": cooloff_minutes()}
    next_url = request.POST.get("next", request.GET.get("next", ""))
    context = {"form": LoginForm(request), "locked": message, "next": next_url}
    response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(cooloff_minutes() * 60)  # at most: the lock-out runs from the last failure
    return response


SIGNUP_WINDOW = timedelta(hours=1)


def signup_wait(request: HttpRequest) -> int:
    """Seconds until this address may make another account: 0 while fewer than SIGNUPS_PER_HOUR were made from it in
    the last hour, else until enough of those have left the hour."""
    now = timezone.now()
    made = list(
        Signup.objects.filter(address=client_address(request), at__gte=now - SIGNUP_WINDOW)
        .order_by("at")
        .values_list("at", flat=True)
    )
    if len(made) < settings.SIGNUPS_PER_HOUR:
        return 0
    leaves = made[len(made) - settings.SIGNUPS_PER_HOUR] + SIGNUP_WINDOW
    return max(1, int((leaves - now).total_seconds()) + 1)


def record_signup(request: HttpRequest) -> None:
    Signup.objects.create(address=client_address(request))
    # the rows only matter for an hour: keep the table small
    Signup.objects.filter(at__lt=timezone.now() - 2 * SIGNUP_WINDOW).delete()


def too_many_signups_message() -> str:
    """What the sign-up page says when this address has made SIGNUPS_PER_HOUR accounts in the last hour."""
    return _("Se han creado demasiadas cuentas desde esta dirección. Vuelve a intentarlo dentro de una hora.")
