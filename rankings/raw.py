"""Raw SQL for the public pages' read paths: rows, and model instances as the ORM loads them.

The ranking and player pages run a few fixed statements per request; building them through
the ORM cost more CPU than the database spends answering them (some 0.5 ms per query
against 0.1 ms through a cursor), so those read paths write their SQL out and use this.

Contract: :func:`fetch` runs one statement on the default connection and returns its rows.
:func:`fields` names a model's fields (by attribute name) in the model's own field order;
:func:`loaded` turns values selected in that order into an instance of the model, each
value converted from the database's representation exactly as the ORM converts it (on
SQLite, aware datetimes and dates from text, for example; :func:`converter` does it for
one field), every other field deferred: reading one costs a query, as after ``.only()``,
never a wrong value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, models

from matches import rawsql

M = TypeVar("M", bound=models.Model)


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every row of one statement (``%s`` placeholders, as Django's cursors take them)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def fields(model: type[models.Model], *names: str) -> tuple[str, ...]:
    """The named fields' attribute names (``club_id`` for ``club``) in the model's order,
    which is the order :func:`loaded` takes their values in; all of them without names."""
    concrete = [f.attname for f in model._meta.concrete_fields]
    unknown = set(names) - set(concrete)
    if unknown:
        raise ValueError(f"{model.__name__} has no column {sorted(unknown)}")
    return tuple(name for name in concrete if not names or name in names)


def columns(alias: str, names: Sequence[str]) -> str:
    """``alias.a, alias.b``: the select list of :func:`loaded`'s values (the attribute
    names of these models' fields are their column names)."""
    return ", ".join(f"{alias}.{connection.ops.quote_name(name)}" for name in names)


def converter(model: type[models.Model], name: str) -> Callable[[Any], Any]:
    """value -> the value as the ORM converts the field ``name`` of ``model`` from this
    database's representation (the identity where the driver returns it as it is)."""
    return rawsql.converter(model, name) or _identity


def _identity(value: Any) -> Any:
    return value


def loaded(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """An instance of ``model`` with the fields ``names`` (from :func:`fields`) set from
    ``values``, converted as the ORM converts them; the other fields are deferred."""
    converted = [converter(model, name)(value) for name, value in zip(names, values, strict=True)]
    return model.from_db(DEFAULT_DB_ALIAS, list(names), converted)
