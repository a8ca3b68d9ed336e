"""Who sent a request: its session and its account, read on every request by compiled queries (config.compiled).

Django's database sessions and its ModelBackend, unchanged but for how their one read each is built: compiled once
per process instead of on every request (issue 22: half of each read's cost here was building its SQL).
`SESSION_ENGINE = "config.signed_in"`; `Accounts` stands in AUTHENTICATION_BACKENDS where ModelBackend stood.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from config.compiled import Compiled

ACCOUNTS = "config.signed_in.Accounts"
REPLACED = "django.contrib.auth.backends.ModelBackend"
SESSION = Compiled(lambda key, now: Session.objects.filter(session_key=key, expire_date__gt=now))
ACCOUNT = Compiled(lambda pk: User.objects.filter(pk=pk))


class SessionStore(DatabaseStore):
    def load(self) -> dict[str, Any]:
        """The session's data; one signed in through ModelBackend, before Accounts took its place, names Accounts."""
        data = super().load()
        if data.get(BACKEND_SESSION_KEY) == REPLACED:
            data[BACKEND_SESSION_KEY] = ACCOUNTS
        return data

    def _get_session_from_db(self) -> Session | None:
        found = SESSION.first(key=self.session_key, now=timezone.now())
        if found is None:
            self._session_key = None  # as Django's: a session gone or expired is a new one
        return found


class Accounts(ModelBackend):
    def get_user(self, user_id: Any) -> User | None:
        user = ACCOUNT.first(pk=user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
