"""Database locks that order submissions against the close of a month.

A submission takes the discipline's lock SHARED inside its transaction, the freeze of a
month takes it EXCLUSIVE: so a match is never classified against a month that closes
before the match commits. PostgreSQL advisory transaction locks do it; SQLite serialises
writers anyway (``transaction_mode = IMMEDIATE``), so there the functions do nothing.
The statements are :func:`matches.sql.advisory_lock`'s.

A change of a player's name or country takes every discipline's close lock SHARED inside its
transaction (:func:`closes_shared`), which the close holds EXCLUSIVE for its whole job
(:func:`close_key`, ``rankings.services.close.close_lock``): so a close never reads the
names it seals while one changes, and a change is dated after any list it did not reach.
"""

from __future__ import annotations

import zlib

from django.db import connection

from . import sql
from .disciplines import CODES

# First key of every advisory lock this service takes: the ASCII of "FIDO".
LOCK_NAMESPACE = 0x4649444F - 2**31


def lock_key(name: str) -> int:
    """A stable 32-bit key for a lock name (crc32, signed as PostgreSQL expects)."""
    return zlib.crc32(name.encode()) - 2**31


def _statement(function: str, name: str) -> sql.Statement | None:
    if connection.vendor != "postgresql":
        return None
    return sql.advisory_lock(function, LOCK_NAMESPACE, lock_key(name))


def discipline_shared_statement(discipline: str) -> sql.Statement | None:
    """The statement taking :func:`discipline_shared`, to send along with others through
    :func:`matches.sql.execute_all` (None where no lock is needed: SQLite)."""
    return _statement("pg_advisory_xact_lock_shared", f"discipline:{discipline}")


def discipline_shared(discipline: str) -> None:
    """Held until the end of the current transaction; many submitters at once."""
    statement = discipline_shared_statement(discipline)
    if statement is not None:
        sql.execute(statement)


def close_key(discipline: str) -> tuple[int, int]:
    """The two keys of the discipline's close lock (held by the close for its whole job)."""
    return LOCK_NAMESPACE, lock_key(f"close:{discipline}")


def closes_shared() -> None:
    """Every discipline's close lock, shared, until the end of the current transaction:
    waits for a close under way to publish (or fail); many holders at once."""
    if connection.vendor != "postgresql":
        return
    for discipline in CODES:
        sql.execute(sql.advisory_lock("pg_advisory_xact_lock_shared", *close_key(discipline)))


def discipline_exclusive(discipline: str) -> None:
    """Held until the end of the current transaction; waits for submitters to finish."""
    statement = _statement("pg_advisory_xact_lock", f"discipline:{discipline}")
    if statement is not None:
        sql.execute(statement)
