"""A live stream lasts as long as its session: what ends a session (a logout in any tab, an account saved with a new
password or made inactive, an account deleted) is sent to every process (rules.notify), whose hub ends the streams it no
longer signs in (play.live.streams), and every process asks again of all its streams' sessions now and then (what no
signal tells: a session row deleted, an account changed by a bulk update). The receivers are connected in every process
that can end a session (PlayConfig.ready)."""

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_out
from django.db import connections
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from rules import notify
from rules.actions import tokens

Signed = tuple[int, str]  # a stream's user id and session key


def invalid_sessions(streams: set[Signed]) -> set[Signed]:
    """Which of these (user, session key) no longer sign that user in: the session gone or expired, or signed with a
    password hash that is no longer the user's, or the user inactive or gone (as Django's own get_user would find at
    a reload); for an API stream (its key names its token: rules.actions.tokens.stream_key), its token no longer live.
    Three queries whatever their number, with the database's session store."""
    try:
        users = {user.pk: user for user in get_user_model().objects.filter(pk__in={pk for pk, _ in streams})}
        by_token = {(user_id, key) for user_id, key in streams if tokens.token_of_stream(key) is not None}
        invalid = by_token - tokens.live_streams(by_token)
        found = session_data({key for _, key in streams - by_token})
        for user_id, key in streams - by_token:
            user, data = users.get(user_id), found.get(key, {})
            hashed = user is not None and constant_time_compare(
                data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()
            )
            if user is None or not user.is_active or data.get(SESSION_KEY) != str(user_id) or not hashed:
                invalid.add((user_id, key))
        return invalid
    finally:
        connections["default"].close()


def session_data(keys: set[str]) -> dict[str, dict[str, Any]]:
    """What each of these sessions holds, if it is still there and unexpired."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store, "get_model_class"):  # a store not in the database: one at a time
        return {key: store(session_key=key).load() for key in keys}
    rows = store.get_model_class().objects.filter(session_key__in=keys, expire_date__gt=timezone.now())
    return {row.session_key: store().decode(row.session_data) for row in rows}


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
        notify.send_session_ended(notify.session_digest(request.session.session_key))
