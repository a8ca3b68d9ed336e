"""A benchmark's own database: made before it runs and dropped after, so that a test run on the same server does not
get in the way (each benchmark names its own)."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


@contextmanager
def own_database(name: str) -> Iterator[None]:
    """`bench_<name>_<the configured database's name>`, with the project's migrations, for as long as the block runs:
    the connection and every server a benchmark starts after it use it (Django points the settings at it)."""
    connection.settings_dict["TEST"]["NAME"] = f"bench_{name}_{connection.settings_dict['NAME']}"
    made = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.close()
        connection.creation.destroy_test_db(made, verbosity=0)
