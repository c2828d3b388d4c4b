"""Every raw SQL statement of the matches app but the store's insert, and the helpers that
run them: model rows in and out through the connection, prepared, with named parameters.

Why raw SQL: on the 2-core reference machine one ORM query costs about 0.5 ms of Python
CPU (building the query, compiling it, converting the rows), the same statement through a
raw cursor about 0.08 ms. A one-match API request ran fourteen ORM statements, most of the
request's CPU. These helpers keep what the ORM guarantees about values, through Django's
own field code, on PostgreSQL and SQLite alike:

- a :class:`Statement` is SQL with NAMED placeholders (``%(name)s``) and a mapping of
  values: no statement depends on the order of its parameters;
- :func:`select` returns model instances as a queryset would (``Model.from_db``, the
  backend's and the fields' converters applied), for a ``WHERE ...`` written in SQL with
  column names of the model's table;
- :func:`insert` writes unsaved instances with one multi-row ``INSERT ... RETURNING`` per
  chunk (values through ``Field.pre_save`` and ``get_db_prep_save``, as ``bulk_create``
  does), sets their primary keys in input order and marks them saved. It sends no signal
  and runs no ``full_clean``: callers validate first (:mod:`matches.validation`), and the
  database's constraints stay the last word;
- the statements the app runs (the last closed month, a secretary's clubs, a token's
  user, the registry rows and stored revisions a submission reads, advisory locks) are
  built here, and their rows come back as model instances or data classes, never as
  tuples for the caller to read by position.

On PostgreSQL the statements go through a server-side binding cursor and are prepared
(``prepare=True``): the hot path's dozen statements are the same text on every request, and
planning them again each time cost PostgreSQL more CPU than running them. Django's own
cursors keep client-side binding without prepared statements (its default, for the sake of
connection poolers in transaction mode; this service connects to PostgreSQL directly: see
docs/performance.md). The named placeholders become ``$1, $2...`` once per statement text
(cached). Errors arrive as Django's exceptions (``IntegrityError`` ...), and the statements
are logged in ``connection.queries`` like any other when queries are logged. SQLite takes
the named placeholders through Django's cursor as they are.

Nothing here decides anything about the domain; a query a page runs once stays on the ORM.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.utils import timezone

from .models import ApiKey, ClosedMonth, Club, Match, Player, Secretary

try:
    import psycopg
    from psycopg.pq import ExecStatus

    _TUPLES_OK = ExecStatus.TUPLES_OK
except ImportError:  # pragma: no cover - SQLite-only installs
    psycopg = None  # type: ignore[assignment]

M = TypeVar("M", bound=models.Model)

# Parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
MAX_PARAMS = 30_000

_NAMED = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True, slots=True)
class Statement:
    """One SQL statement: ``%(name)s`` placeholders (no literal ``%``) and their values."""

    sql: str
    params: Mapping[str, Any] = field(default_factory=dict)


def quote(name: str) -> str:
    return connection.ops.quote_name(name)


def table(model: type[models.Model]) -> str:
    """``model``'s table name, quoted."""
    return quote(model._meta.db_table)


def converter(model: type[models.Model], attname: str) -> Callable[[Any], Any] | None:
    """value -> the value of ``model``'s field ``attname`` as the ORM converts it from this
    database's representation (the backend's converters, then the field's, as the SQL
    compiler applies them); None where the driver's value is already the ORM's."""
    return _converter(model, attname, connection.vendor)


@cache
def _converter(model: type[models.Model], attname: str, vendor: str) -> Callable[[Any], Any] | None:
    del vendor  # part of the cache key only
    found = next(f for f in model._meta.concrete_fields if f.attname == attname)
    column = found.get_col(model._meta.db_table)
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
    columns = ", ".join(f"{table(model)}.{quote(f.column)}" for f in fields)
    converters = []
    for index, one in enumerate(fields):
        found = converter(model, one.attname)
        if found is not None:
            converters.append((index, found))
    return columns, [f.attname for f in fields], converters


def execute(
    statement: Statement, *, dumpers: Mapping[type, type] | None = None
) -> list[tuple[Any, ...]]:
    """Run one statement; its rows (an empty list for a statement without rows)."""
    return execute_all([statement], dumpers=dumpers)[0]


def execute_all(
    statements: Sequence[Statement], *, dumpers: Mapping[type, type] | None = None
) -> list[list[tuple[Any, ...]]]:
    """Run statements in order, on one cursor; the rows of each. ``dumpers``: psycopg
    dumpers by Python type for this cursor's parameters (PostgreSQL), instead of the
    connection's.

    (psycopg's pipeline mode would send them in one round trip, but measured on the
    submission path it cost the web worker more CPU than the round trips it saved: its
    send loop wakes up once per queued command.)
    """
    # The connection itself, not Django's proxy: every attribute read through the proxy
    # looks the thread's connection up again (two dozen lookups a request).
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        out = []
        with db.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement.sql, dict(statement.params))
                out.append(cursor.fetchall() if cursor.description is not None else [])
        return out
    db.close_if_health_check_failed()
    db.ensure_connection()
    started = time.monotonic()
    out = []
    with db.wrap_database_errors, psycopg.RawCursor(db.connection) as raw:
        for python_type, dumper in (dumpers or {}).items():
            raw.adapters.register_dumper(python_type, dumper)
        for statement in statements:
            text, names = _numbered(statement.sql)
            params = statement.params
            raw.execute(text, [params[name] for name in names], prepare=True)
            result = raw.pgresult
            out.append(raw.fetchall() if result and result.status == _TUPLES_OK else [])
    if db.queries_logged:
        took = f"{(time.monotonic() - started) / len(statements):.3f}"
        db.queries_log.extend(
            {"sql": f"{s.sql} -- {dict(s.params)!r}", "time": took} for s in statements
        )
    return out


@lru_cache(maxsize=1024)
def _numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """``%(name)s`` placeholders as PostgreSQL's ``$1, $2...`` (one number per name, however
    often it stands), and the names in number order. psycopg converts only short statements
    with few parameters through its cache; ours are reused, so cache them all."""
    names: dict[str, int] = {}

    def number(found: re.Match[str]) -> str:
        return f"${names.setdefault(found.group(1), len(names) + 1)}"

    return _NAMED.sub(number, sql), tuple(names)


def column_list(model: type[models.Model]) -> str:
    """Every column of ``model``, qualified by its table, in :func:`instances`' order."""
    return _select_plan(model, connection.vendor)[0]


def select_sql(model: type[models.Model], where: str) -> str:
    """``SELECT <every column> FROM <table> <where>`` (for :func:`instances`)."""
    columns, _names, _converters = _select_plan(model, connection.vendor)
    # ``where`` is the caller's constant SQL; every value travels as a parameter.
    return f"SELECT {columns} FROM {table(model)} {where}"  # noqa: S608


def instances(model: type[M], rows: Sequence[Sequence[Any]]) -> list[M]:
    """Rows of :func:`select_sql` as model instances, as a queryset would build them."""
    db = connections[DEFAULT_DB_ALIAS]
    _columns, names, converters = _select_plan(model, db.vendor)
    width = len(names)
    out = []
    for row in rows:
        values = list(row[:width])
        for index, convert in converters:
            values[index] = convert(values[index])
        out.append(model.from_db(db.alias, names, values))
    return out


def select(model: type[M], where: str, params: Mapping[str, Any]) -> list[M]:
    """``SELECT <every column> FROM <table> <where>`` as model instances."""
    return instances(model, execute(Statement(select_sql(model, where), params)))


def scalar(statement: Statement) -> Any:
    """The first column of the first row (None without rows)."""
    rows = execute(statement)
    return rows[0][0] if rows else None


def in_list(name: str, values: Iterable[Any]) -> tuple[str, dict[str, Any]]:
    """``%(name_0)s, %(name_1)s, ...`` for an ``IN (...)`` of ``values`` (at least one
    placeholder), and the parameters it names."""
    params = {f"{name}_{i}": value for i, value in enumerate(values)}
    return ", ".join(f"%({key})s" for key in params) or f"%({name}_0)s", params


@cache
def _insert_plan(model: type[models.Model]) -> tuple[list[models.Field[Any, Any]], str]:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    head = (
        f"INSERT INTO {table(model)} "  # noqa: S608 - model metadata
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
    per_statement = max(1, MAX_PARAMS // len(fields))
    for start in range(0, len(objects), per_statement):
        chunk = objects[start : start + per_statement]
        params = {
            f"{one.column}__{row}": one.get_db_prep_save(one.pre_save(obj, add=True), connection)
            for row, obj in enumerate(chunk)
            for one in fields
        }
        values = ", ".join(
            "(" + ", ".join(f"%({one.column}__{row})s" for one in fields) + ")"
            for row in range(len(chunk))
        )
        statement = Statement(f"{head}{values} RETURNING {quote(pk.column)}", params)
        keys = [row[0] for row in execute(statement)]
        if len(keys) != len(chunk):  # pragma: no cover - the database broke its contract
            raise RuntimeError(f"INSERT returned {len(keys)} keys for {len(chunk)} rows")
        for obj, key in zip(chunk, keys, strict=True):
            saved(obj, key)
    return objects


def saved(obj: models.Model, pk: int) -> None:
    """Mark ``obj`` as stored under primary key ``pk`` (as ``save()`` would)."""
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = connection.alias


# --- the app's statements ------------------------------------------------------------------


def last_closed_month(discipline: str) -> Statement:
    """One row, one column: the discipline's latest closed month (NULL: none)."""
    return Statement(
        f"SELECT MAX(month) FROM {table(ClosedMonth)} "  # noqa: S608 - model metadata
        "WHERE discipline = %(discipline)s",
        {"discipline": discipline},
    )


def secretary_clubs(user_id: int) -> Statement:
    """The rows (:func:`select_sql` of Club) of the clubs ``user_id`` is secretary of, by
    club id."""
    return Statement(
        select_sql(
            Club,
            f"WHERE id IN (SELECT club_id FROM {table(Secretary)} "  # noqa: S608
            "WHERE user_id = %(user_id)s) ORDER BY club_id",
        ),
        {"user_id": user_id},
    )


def clubs_by_code(codes: Sequence[str]) -> Statement:
    """The rows (:func:`select_sql` of Club) of the clubs with these federation ids."""
    listed, params = in_list("code", codes)
    return Statement(select_sql(Club, f"WHERE club_id IN ({listed})"), params)


def players_by_id(ids: Sequence[str]) -> Statement:
    """The rows (:func:`select_sql` of Player) of the players with these federation ids."""
    listed, params = in_list("player", ids)
    return Statement(select_sql(Player, f"WHERE player_id IN ({listed})"), params)


def match_revisions(codes: Sequence[str], external_ids: Sequence[str]) -> Statement:
    """The rows (:func:`select_sql` of Match) of every stored revision of these clubs' matches
    with these ids, oldest revision first."""
    clubs, club_params = in_list("code", codes)
    ids, id_params = in_list("external_id", external_ids)
    return Statement(
        select_sql(
            Match,
            f"WHERE club_id IN (SELECT id FROM {table(Club)} "  # noqa: S608
            f"WHERE club_id IN ({clubs})) AND external_id IN ({ids}) ORDER BY revision",
        ),
        {**club_params, **id_params},
    )


def advisory_lock(function: str, namespace: int, key: int) -> Statement:
    """``SELECT <function>(namespace, key)`` for one of PostgreSQL's advisory lock functions
    (a name from :mod:`matches.locks`, never user input); one row: its result."""
    return Statement(
        f"SELECT {function}(%(namespace)s::int4, %(key)s::int4)",
        {"namespace": namespace, "key": key},
    )


@dataclass(frozen=True, slots=True)
class TokenOwner:
    """The active or inactive user an API token belongs to, and the clubs they are
    secretary of (by club id)."""

    user: Any
    clubs: tuple[Club, ...]


def token_owner(key: str) -> TokenOwner | None:
    """The owner of API token ``key`` with their clubs, in ONE statement (None: no such
    token, or revoked, or expired; keys are looked up by their SHA-256 digest, the only
    form stored: :mod:`matches.services.tokens`). The user's columns come first in each
    row, then a club's (NULL without one)."""
    user_model = get_user_model()
    users, clubs, secretaries = table(user_model), table(Club), table(Secretary)
    rows = execute(
        Statement(
            f"SELECT {column_list(user_model)}, {column_list(Club)} "  # noqa: S608
            f"FROM {users} LEFT JOIN {secretaries} ON {secretaries}.user_id = {users}.id "
            f"LEFT JOIN {clubs} ON {clubs}.id = {secretaries}.club_id "
            f"WHERE {users}.id = (SELECT user_id FROM {table(ApiKey)} "
            f"WHERE digest = %(digest)s AND revoked_at IS NULL AND expires_at > %(now)s) "
            f"ORDER BY {clubs}.club_id",
            {
                "digest": hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest(),
                "now": timezone.now(),
            },
        )
    )
    if not rows:
        return None
    width = len(user_model._meta.concrete_fields)
    user = instances(user_model, [rows[0]])[0]
    club_rows = [row[width:] for row in rows if row[width] is not None]
    return TokenOwner(user=user, clubs=tuple(instances(Club, club_rows)))
