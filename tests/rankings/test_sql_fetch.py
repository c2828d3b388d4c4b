"""The read side's statements (:func:`rankings.sql.fetch`) are prepared on PostgreSQL, and
their integer parameters are typed as the same numbers written in the statement would be
(``integer`` at least, never ``smallint``)."""

from __future__ import annotations

import pytest
from django.db import connection

from matches.sql import Statement
from rankings import sql

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def prepared(text: str) -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT parameter_types::text, generic_plans + custom_plans "
            "FROM pg_prepared_statements WHERE statement = %s",
            [text],
        )
        return cursor.fetchall()


def test_a_read_is_prepared_once_and_run_again_from_its_plan() -> None:
    statement = Statement("SELECT %(n)s + 1 AS fido_read_probe", {"n": 41})
    assert sql.fetch(statement) == [(42,)]
    assert sql.fetch(Statement(statement.sql, {"n": 1})) == [(2,)]
    assert prepared("SELECT $1 + 1 AS fido_read_probe") == [("{integer}", 2)]


def test_small_integers_fit_where_smallint_would_not() -> None:
    # A recursive CTE whose terms must agree on a column's type: a small int as smallint
    # in the first term and integer in the second was an error.
    statement = Statement(
        "WITH RECURSIVE s(k) AS (SELECT %(start)s UNION ALL SELECT k + 1 FROM s "
        "WHERE k < %(stop)s) SELECT sum(k) FROM s",
        {"start": 1, "stop": 4},
    )
    assert sql.fetch(statement) == [(10,)]
    big = Statement("SELECT %(n)s::text", {"n": 2**40})
    assert sql.fetch(big) == [(str(2**40),)]
