"""Model rows in and out through ``connection.cursor()``: the submission hot path's SQL.

Why it exists: on the 2-core reference machine one ORM query costs about 0.5 ms of Python
CPU (building the query, compiling it, converting the rows), the same statement through a
raw cursor about 0.08 ms. A one-match API request ran fourteen ORM statements, most of the
request's CPU. These helpers keep what the ORM guarantees about values, through Django's
own field code, on PostgreSQL and SQLite alike:

- :func:`select` returns model instances as a queryset would (``Model.from_db``, the
  backend's and the fields' converters applied), for a ``WHERE ...`` written in SQL with
  ``%s`` placeholders and column names of the model's table;
- :func:`insert` writes unsaved instances with one multi-row ``INSERT ... RETURNING`` per
  chunk (values through ``Field.pre_save`` and ``get_db_prep_save``, as ``bulk_create``
  does), sets their primary keys in input order and marks them saved. It sends no signal
  and runs no ``full_clean``: callers validate first (:mod:`matches.validation`), and the
  database's constraints stay the last word.

On PostgreSQL the statements go through a server-side binding cursor and are prepared
(``prepare=True``): the hot path's dozen statements are the same text on every request, and
planning them again each time cost PostgreSQL more CPU than running them. Django's own
cursors keep client-side binding without prepared statements (its default, for the sake of
connection poolers in transaction mode; this service connects to PostgreSQL directly: see
docs/performance.md). Errors arrive as Django's exceptions (``IntegrityError`` ...), and
the statements are logged in ``connection.queries`` like any other when queries are logged.

Nothing here decides anything about the domain; a query a page runs once stays on the ORM.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache
from typing import Any, TypeVar

from django.db import connection, models

try:
    import psycopg
    from psycopg.pq import ExecStatus

    _TUPLES_OK = ExecStatus.TUPLES_OK
except ImportError:  # pragma: no cover - SQLite-only installs
    psycopg = None  # type: ignore[assignment]

M = TypeVar("M", bound=models.Model)

# Parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
MAX_PARAMS = 30_000

Converter = Callable[[Any, Any, Any], Any]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def converter(model: type[models.Model], attname: str) -> Callable[[Any], Any] | None:
    """value -> the value of ``model``'s field ``attname`` as the ORM converts it from this
    database's representation (the backend's converters, then the field's, as the SQL
    compiler applies them); None where the driver's value is already the ORM's."""
    return _converter(model, attname, connection.vendor)


@cache
def _converter(model: type[models.Model], attname: str, vendor: str) -> Callable[[Any], Any] | None:
    del vendor  # part of the cache key only
    field = next(f for f in model._meta.concrete_fields if f.attname == attname)
    column = field.get_col(model._meta.db_table)
    steps = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
    if not steps:
        return None

    def convert(value: Any) -> Any:
        for step in steps:
            value = step(value, column, connection)
        return value

    return convert


@cache
def _select_plan(
    model: type[models.Model], vendor: str
) -> tuple[str, list[str], list[tuple[int, Callable[[Any], Any]]]]:
    """Column list, attribute names and the (index, converter) pairs of ``model``'s
    columns that need converting (per backend)."""
    del vendor  # part of the cache key only
    fields = list(model._meta.concrete_fields)
    table = model._meta.db_table
    columns = ", ".join(f"{quote(table)}.{quote(f.column)}" for f in fields)
    converters = []
    for index, field in enumerate(fields):
        found = converter(model, field.attname)
        if found is not None:
            converters.append((index, found))
    return columns, [f.attname for f in fields], converters


def execute(sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement (``%s`` placeholders, no literal ``%``); its rows (an empty list
    for a statement without rows)."""
    return execute_all([(sql, params)])[0]


def execute_all(
    statements: Sequence[tuple[str, Sequence[Any]]],
) -> list[list[tuple[Any, ...]]]:
    """Run statements in order, on one cursor; the rows of each.

    (psycopg's pipeline mode would send them in one round trip, but measured on the
    submission path it cost the web worker more CPU than the round trips it saved: its
    send loop wakes up once per queued command.)
    """
    if connection.vendor != "postgresql":
        out = []
        with connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                out.append(cursor.fetchall() if cursor.description is not None else [])
        return out
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    started = time.monotonic()
    out = []
    with connection.wrap_database_errors, psycopg.RawCursor(connection.connection) as raw:
        for sql, params in statements:
            raw.execute(_numbered(sql), params, prepare=True)
            result = raw.pgresult
            out.append(raw.fetchall() if result and result.status == _TUPLES_OK else [])
    if connection.queries_logged:
        took = f"{(time.monotonic() - started) / len(statements):.3f}"
        connection.queries_log.extend(
            {"sql": f"{sql} -- {list(params)!r}", "time": took} for sql, params in statements
        )
    return out


@lru_cache(maxsize=1024)
def _numbered(sql: str) -> str:
    """``%s`` placeholders as PostgreSQL's ``$1, $2...`` (psycopg converts only short
    statements with few parameters through its cache; ours are reused, so cache them all)."""
    parts = sql.split("%s")
    return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], start=1)) + parts[-1]


def column_list(model: type[models.Model]) -> str:
    """Every column of ``model``, qualified by its table, in :func:`instances`' order."""
    return _select_plan(model, connection.vendor)[0]


def select_sql(model: type[models.Model], where: str) -> str:
    """``SELECT <every column> FROM <table> <where>`` (for :func:`instances`)."""
    columns, _names, _converters = _select_plan(model, connection.vendor)
    # ``where`` is the caller's constant SQL; every value travels as a parameter.
    return f"SELECT {columns} FROM {quote(model._meta.db_table)} {where}"  # noqa: S608


def instances(model: type[M], rows: Sequence[Sequence[Any]]) -> list[M]:
    """Rows of :func:`select_sql` as model instances, as a queryset would build them."""
    _columns, names, converters = _select_plan(model, connection.vendor)
    out = []
    for row in rows:
        values = list(row)
        for index, convert in converters:
            values[index] = convert(values[index])
        out.append(model.from_db(connection.alias, names, values))
    return out


def select(model: type[M], where: str, params: Sequence[Any] = ()) -> list[M]:
    """``SELECT <every column> FROM <table> <where>`` as model instances."""
    return instances(model, execute(select_sql(model, where), params))


def scalar(sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row (None without rows)."""
    rows = execute(sql, params)
    return rows[0][0] if rows else None


@cache
def _insert_plan(model: type[models.Model]) -> tuple[list[models.Field[Any, Any]], str]:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    head = (
        f"INSERT INTO {quote(model._meta.db_table)} "  # noqa: S608 - model metadata
        f"({', '.join(quote(f.column) for f in fields)}) VALUES "
    )
    return fields, head


def insert(objects: Sequence[M]) -> Sequence[M]:
    """Insert unsaved instances of one model; their primary keys are set, in order."""
    if not objects:
        return objects
    model = type(objects[0])
    fields, head = _insert_plan(model)
    pk = model._meta.pk
    assert pk is not None  # noqa: S101 - every concrete model has one
    row_sql = "(" + ", ".join(["%s"] * len(fields)) + ")"
    per_statement = max(1, MAX_PARAMS // len(fields))
    for start in range(0, len(objects), per_statement):
        chunk = objects[start : start + per_statement]
        params = [
            field.get_db_prep_save(field.pre_save(obj, add=True), connection)
            for obj in chunk
            for field in fields
        ]
        keys = [
            row[0]
            for row in execute(
                f"{head}{', '.join([row_sql] * len(chunk))} RETURNING {quote(pk.column)}",
                params,
            )
        ]
        if len(keys) != len(chunk):  # pragma: no cover - the database broke its contract
            raise RuntimeError(f"INSERT returned {len(keys)} keys for {len(chunk)} rows")
        for obj, key in zip(chunk, keys, strict=True):
            obj.pk = key
            obj._state.adding = False
            obj._state.db = connection.alias
    return objects


def placeholders(values: Iterable[Any]) -> str:
    """``%s, %s, ...`` for an ``IN (...)`` of ``values`` (at least one)."""
    count = sum(1 for _ in values)
    return ", ".join(["%s"] * max(count, 1))
