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

Nothing here decides anything about the domain; a query a page runs once stays on the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)

# Parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
MAX_PARAMS = 30_000

Converter = Callable[[Any, Any, Any], Any]


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


@cache
def _select_plan(model: type[models.Model], vendor: str) -> tuple[str, list[str], list[Any]]:
    """Column list, attribute names and per-column converters of ``model`` (per backend)."""
    del vendor  # part of the cache key only
    fields = list(model._meta.concrete_fields)
    table = model._meta.db_table
    columns = ", ".join(f"{quote(table)}.{quote(f.column)}" for f in fields)
    converters = []
    for field in fields:
        expression = field.get_col(table)
        found = connection.ops.get_db_converters(expression) + expression.get_db_converters(
            connection
        )
        converters.append((found, expression))
    return columns, [f.attname for f in fields], converters


def select(model: type[M], where: str, params: Sequence[Any] = ()) -> list[M]:
    """``SELECT <every column> FROM <table> <where>`` as model instances."""
    columns, names, converters = _select_plan(model, connection.vendor)
    with connection.cursor() as cursor:
        # ``where`` is the caller's constant SQL; every value travels as a parameter.
        sql = f"SELECT {columns} FROM {quote(model._meta.db_table)} {where}"  # noqa: S608
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    out = []
    for row in rows:
        values = list(row)
        for index, (found, expression) in enumerate(converters):
            for converter in found:
                values[index] = converter(values[index], expression, connection)
        out.append(model.from_db(connection.alias, names, values))
    return out


def scalar(sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row (None without rows)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else row[0]


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
    with connection.cursor() as cursor:
        for start in range(0, len(objects), per_statement):
            chunk = objects[start : start + per_statement]
            params = [
                field.get_db_prep_save(field.pre_save(obj, add=True), connection)
                for obj in chunk
                for field in fields
            ]
            cursor.execute(
                f"{head}{', '.join([row_sql] * len(chunk))} RETURNING {quote(pk.column)}",
                params,
            )
            keys = [row[0] for row in cursor.fetchall()]
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
