"""Database locks that order submissions against the close of a month.

A submission takes the discipline's lock SHARED inside its transaction, the freeze of a
month takes it EXCLUSIVE: so a match is never classified against a month that closes
before the match commits. PostgreSQL advisory transaction locks do it; SQLite serialises
writers anyway (``transaction_mode = IMMEDIATE``), so there the functions do nothing.
"""

from __future__ import annotations

import zlib

from django.db import connection

from . import rawsql

# First key of every advisory lock this service takes: the ASCII of "FIDO".
LOCK_NAMESPACE = 0x4649444F - 2**31


def lock_key(name: str) -> int:
    """A stable 32-bit key for a lock name (crc32, signed as PostgreSQL expects)."""
    return zlib.crc32(name.encode()) - 2**31


def _advisory(function: str, name: str) -> None:
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [LOCK_NAMESPACE, lock_key(name)])


def discipline_shared_statement(discipline: str) -> tuple[str, list[int]] | None:
    """The statement taking :func:`discipline_shared`, to send along with others through
    :func:`matches.rawsql.execute_all` (None where no lock is needed: SQLite)."""
    if connection.vendor != "postgresql":
        return None
    key = lock_key(f"discipline:{discipline}")
    return "SELECT pg_advisory_xact_lock_shared(%s::int4, %s::int4)", [LOCK_NAMESPACE, key]


def discipline_shared(discipline: str) -> None:
    """Held until the end of the current transaction; many submitters at once."""
    statement = discipline_shared_statement(discipline)
    if statement is not None:
        rawsql.execute(*statement)


def discipline_exclusive(discipline: str) -> None:
    """Held until the end of the current transaction; waits for submitters to finish."""
    _advisory("pg_advisory_xact_lock", f"discipline:{discipline}")


def try_exclusive(name: str) -> bool:
    """Try a transaction-level exclusive lock on ``name``; False if another holds it."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, lock_key(name)])
        (acquired,) = cursor.fetchone()
    return bool(acquired)
