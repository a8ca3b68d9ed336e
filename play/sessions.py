"""A live stream lasts as long as its session: what ends a session (a logout in any tab, an account saved with a new
password or made inactive, an account deleted) is sent to every process (rules.notify), whose hub ends the streams
it no longer signs in (play.live). Connected in every process that can end a session (PlayConfig.ready)."""

import hashlib
from importlib import import_module

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_out
from django.db import connections
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare

from rules import notify


def session_digest(session_key: str | None) -> str:
    """What a NOTIFY says of a session: never the key itself, which is a password."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:32]


def invalid_sessions(user_id: int, keys: set[str]) -> set[str]:
    """Which of these sessions of a user no longer sign them in: gone or expired, or signed with a password hash that
    is no longer the user's, or the user is inactive or gone (as Django's own get_user would find at a reload)."""
    try:
        user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
        if user is None:
            return keys
        store = import_module(settings.SESSION_ENGINE).SessionStore
        invalid = set()
        for key in keys:
            data = store(session_key=key).load()
            hashed = constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())
            if data.get(SESSION_KEY) != str(user_id) or not hashed:
                invalid.add(key)
        return invalid
    finally:
        connections["default"].close()


@receiver(post_save, sender=get_user_model())
def account_changed(
    sender: object, instance: AbstractBaseUser, update_fields: frozenset[str] | None, **kwargs: object
) -> None:
    """An account saved (its password, whether it is active): its sessions that no longer sign it in lose their live
    streams (Hub.check_sessions). A login's own save (its last_login) is not such a change."""
    if update_fields is None or not update_fields <= {"last_login"}:
        notify.send_user_changed(instance.pk)


@receiver(post_delete, sender=get_user_model())
def account_deleted(sender: object, instance: AbstractBaseUser, **kwargs: object) -> None:
    notify.send_user_changed(instance.pk)


@receiver(user_logged_out)
def session_ended(sender: object, request: HttpRequest | None, **kwargs: object) -> None:
    """A logout (in any tab, through any process) ends the live streams of that session."""
    if request is not None and request.session.session_key:
        notify.send_session_ended(session_digest(request.session.session_key))
