"""An action's writes in one round trip (`in_one_trip`), each a prepared statement (`written`).

An action's writes (rules.mapping: one statement per table and set of columns, whatever the rows, their values all
parameters), its campaign's version, its event and its notification go to PostgreSQL in one round trip
(rules.actions.core.log). Each statement is prepared on a connection the first time it is sent there, as the compiled
reads are (config.compiled): PostgreSQL then plans an `UPDATE … FROM unnest(…)` once per connection, not once per
change (~0.1 ms each, four in a damage's one round trip: issue 22).

Measured by bench/written.py (2026-12-05): a quick damage's four writes take 0.66 ms in one round trip and 1.09 ms
sent one round trip each (both prepared; one `SELECT 1` round trip, 0.27 ms): one trip saves 0.43 ms a blow. The
advance's bulk writes (rules.mapping) go the same way, one statement per table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from config.compiled import PLACEHOLDER, sent
from config.prepared import PREPARED_LOCK, prepare_on, prepared_on


def in_one_trip(statements: Sequence[tuple[str, Sequence[Any]]]) -> list[tuple[Any, ...]]:
    """Several statements (an action's writes) in one round trip, as `together` runs reads, each a prepared statement
    (`written`): the rows the last one returns (none when it returns none)."""
    with sent([written(sql, params) for sql, params in statements]) as cursor:
        for _statement in statements[1:]:
            cursor.nextset()
        return list(cursor.fetchall()) if cursor.description is not None else []


# A statement's SQL names its prepared statement; past WRITTEN_MOST different ones (none is made with a value in its
# text: that would be a bug) the others are sent as they are.
WRITTEN: dict[str, str] = {}
WRITTEN_MOST = 512


def written(sql: str, params: Sequence[Any]) -> tuple[str, Sequence[Any]]:
    """A statement as its prepared statement's `EXECUTE`, prepared first on this thread's connection if it is not yet
    (its `%s` placeholders become the prepared statement's parameters: PostgreSQL infers their types)."""
    with PREPARED_LOCK:
        name = WRITTEN.get(sql)
        if name is None and len(WRITTEN) < WRITTEN_MOST:
            name = WRITTEN[sql] = f"written_{len(WRITTEN)}"
    if name is None:
        return sql, params
    connection = connections[DEFAULT_DB_ALIAS]
    connection.ensure_connection()
    prepared = prepared_on(connection)
    if name not in prepared:
        numbers = iter(range(1, len(params) + 1))
        body = PLACEHOLDER.sub(lambda found: "%" if found.group() == "%%" else f"${next(numbers)}", sql)
        prepare_on(connection, prepared, name, f"PREPARE {name} AS {body}")
    return (f"EXECUTE {name}({', '.join(['%s'] * len(params))})" if params else f"EXECUTE {name}"), params
