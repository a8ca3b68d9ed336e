"""The statements prepared on each connection (config.compiled's reads, config.written's writes): which ones each
connection holds, every one this process prepared so far (for the connections to come), and when one is stale."""

from __future__ import annotations

import threading
import weakref
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper

# The names of the statements prepared on each connection (psycopg's, which the pool keeps from request to request).
PREPARED: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
PREPARED_LOCK = threading.Lock()
# Every statement prepared in this process so far, by name: its `PREPARE`. A connection new to the pool is given them
# all in one round trip at its first use (`prepared_on`), not one round trip each as its first requests meet them
# (a damage meets about fifteen: ~5 ms more for the click that first uses a connection).
KNOWN: dict[str, str] = {}


def prepared_on(connection: BaseDatabaseWrapper) -> set[str]:
    """The statements prepared on this connection (connected): on its first use, every statement prepared in this
    process so far, in one round trip (after a stale one was met on it, its old ones let go first: `sent`)."""
    raw = connection.connection
    with PREPARED_LOCK:
        prepared = PREPARED.get(raw)
        if prepared is not None:
            return prepared
        known = dict(KNOWN)
    if known:
        with connection.wrap_database_errors:
            raw.execute("; ".join(["DEALLOCATE ALL", *known.values()]))
    with PREPARED_LOCK:
        return PREPARED.setdefault(raw, set(known))


def prepare_on(connection: BaseDatabaseWrapper, prepared: set[str], name: str, statement: str) -> None:
    """Prepare one statement on this connection (`PREPARE name AS …`), and know it for the connections to come."""
    with connection.wrap_database_errors:
        connection.connection.execute(statement)
    prepared.add(name)
    with PREPARED_LOCK:
        KNOWN.setdefault(name, statement)


def stale(error: BaseException) -> bool:
    """A prepared statement that no longer fits the database: a migration changed the type of what it returns
    (PostgreSQL plans it again by itself after any other change, an added column included), or it is gone."""
    cause = error.__cause__
    state = getattr(cause, "sqlstate", None)
    return state == "26000" or (state == "0A000" and "cached plan must not change result type" in str(cause))
