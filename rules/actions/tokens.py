"""Personal access tokens for the API (campaigns.models.AccessToken, play.api): made, revoked, and marked as used.

An account's own state, not the game's: nothing here is logged in a campaign's log, bumps a version or takes a
campaign's lock. A token is shown once, when it is made; only its SHA-256 digest is kept, so that a copy of the
database lets nobody act as its account. A token acts with exactly its account's rights, asked again at every call
(campaigns.access); a campaign it is limited to must be one the account sees when it is made.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import AccessToken, Campaign, TokenScope
from rules import notify
from rules.actions.core import ActionError, checked_name

PREFIX = "12p_"  # every token starts so: a scanner of leaked secrets can tell ours
TOKENS_PER_ACCOUNT = 20
LONGEST = timedelta(days=5 * 365)  # the furthest expiry a token may have
USED_EVERY = timedelta(minutes=1)  # "último uso" is written at most this often: a bot's calls are not each a write


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def create_token(
    user: User,
    *,
    name: str,
    scope: str = TokenScope.READ,
    campaign: Campaign | int | None = None,
    expires: datetime | None = None,
    now: datetime | None = None,
) -> tuple[AccessToken, str]:
    """A new token for this account: its row, and the token itself (shown once, never kept)."""
    now = now or timezone.now()
    name = checked_name(name, 100)
    if scope not in TokenScope.values:
        raise ActionError(_("Elige qué puede hacer: leer, o leer y actuar."), "scope")
    if expires is not None and not now < expires <= now + LONGEST:
        raise ActionError(_("La caducidad debe ser una fecha futura, a menos de 5 años."), "expires")
    limited = None
    if campaign is not None:
        limited = access.campaigns_of(user).filter(pk=campaign if isinstance(campaign, int) else campaign.pk).first()
        if limited is None:
            raise ActionError(_("Esa campaña no es tuya ni juegas en ella."), "campaign")
    # The account's row first: two tokens made at once by two tabs count one after the other.
    User.objects.select_for_update().filter(pk=user.pk).first()
    if AccessToken.objects.filter(user=user, revoked=None).count() >= TOKENS_PER_ACCOUNT:
        message = _("Ya tienes %(count)s tokens: anula alguno antes de crear otro.")
        raise ActionError(message % {"count": TOKENS_PER_ACCOUNT}, "name")
    token = PREFIX + secrets.token_urlsafe(32)
    row = AccessToken.objects.create(
        user=user,
        name=name,
        digest=digest_of(token),
        prefix=token[: len(PREFIX) + 4],
        scope=scope,
        campaign=limited,
        expires=expires,
    )
    return row, token


@transaction.atomic
def revoke_token(user: User, token_id: int, *, now: datetime | None = None) -> bool:
    """Revoke one of the account's tokens, at once: its event streams end in every process (as a logout ends a
    session's: rules.notify). False if it was not one of them or was revoked already."""
    if not 0 < token_id < 2**63:
        return False
    revoked = AccessToken.objects.filter(pk=token_id, user=user, revoked=None).update(revoked=now or timezone.now())
    if revoked:
        notify.send_session_ended(notify.session_digest(stream_key(token_id)))
    return revoked == 1


STREAM = "token:"  # an API stream's key (play.api.stream): never a session key, which has no colon


def stream_key(token_id: int) -> str:
    """What the live streams know an API stream's token by, as they know a page's stream by its session key."""
    return f"{STREAM}{token_id}"


def token_of_stream(key: str) -> int | None:
    """The token an API stream's key names, or None for a session's key."""
    rest = key.removeprefix(STREAM)
    return int(rest) if rest != key and rest.isascii() and rest.isdigit() and len(rest) < 19 else None


def live_streams(signed: set[tuple[int, str]], *, now: datetime | None = None) -> set[tuple[int, str]]:
    """Which of these API streams (user id, stream key) may go on: their token still live and still their user's,
    the user active. One query."""
    ids = {token_id for _user, key in signed if (token_id := token_of_stream(key)) is not None}
    if not ids:
        return set()
    live = AccessToken.objects.filter(pk__in=ids, revoked=None, user__is_active=True).filter(
        Q(expires=None) | Q(expires__gt=now or timezone.now())
    )
    found = {(user_id, stream_key(pk)) for pk, user_id in live.values_list("pk", "user_id")}
    return signed & found


def token_for(token: str, *, now: datetime | None = None) -> AccessToken | None:
    """The live token this is (not revoked, not expired), with its account; marked as used (at most once a minute)."""
    if not token.startswith(PREFIX) or len(token) > 100:
        return None
    now = now or timezone.now()
    found = AccessToken.objects.select_related("user").filter(digest=digest_of(token), revoked=None).first()
    if found is None or not found.user.is_active or (found.expires is not None and found.expires <= now):
        return None
    if found.last_used is None or found.last_used <= now - USED_EVERY:
        AccessToken.objects.filter(pk=found.pk).update(last_used=now)
        found.last_used = now
    return found
