"""The project package's only SQL: the probe that proves a database connection answers.

:func:`select_one` runs ``SELECT 1`` on the default connection (opening it if needed) and
returns what came back; any database error is raised as Django's. ``/healthz``
(:mod:`fido.health`) and the worker's ``fido.database_ping`` task (:mod:`fido.tasks`) use it.
"""

from __future__ import annotations

from django.db import connection


def select_one() -> int:
    """``SELECT 1``'s one value (1, from a database that answers)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        row = cursor.fetchone()
    if row is None:  # pragma: no cover - a database that answers returns the row
        raise RuntimeError("SELECT 1 returned no row")
    return int(row[0])
