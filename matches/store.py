"""Writing a validated batch of new matches: submissions, matches, sides, members, events.

Contract: :func:`write` inserts, inside the caller's transaction, every row of ``entries``
(unsaved :class:`~matches.models.Match` instances whose ``submission`` is one of
``submissions``, with their sides and players) and one :class:`Event` per match, if given;
it sets the primary keys of the submissions and matches. It validates nothing
(:mod:`matches.validation` and :mod:`matches.months` have) and sends no signal; the
database's constraints stay the last word, and a unique violation (a twin request storing
the same id) is an ``IntegrityError``.

Two ways, the same rows (a test compares them column by column):

- PostgreSQL, one submission (a form, a CSV file, an API request: the hot path), under
  :data:`ONE_STATEMENT_MAX_PARAMS`: ONE prepared statement of data-modifying CTEs, whose
  sides and members find their match by its external id (unique in such a batch, which is
  one club's). Its values are named parameters, one name per row and column, so no CTE
  depends on the order in which another's parameters stand. A one-match request used to
  send five INSERTs; each statement costs the web worker and PostgreSQL a round trip and
  a parse.
- otherwise (SQLite, an import whose lines carry their own ``submitted_at``, a huge batch):
  one multi-row ``INSERT ... RETURNING`` per table (:func:`matches.sql.insert`), five
  statements for any number of matches.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, models

from . import sql
from .models import Match, MatchEvent, Side, SideMember, Submission

# Above this many parameters the batch goes table by table (PostgreSQL allows 65,535).
ONE_STATEMENT_MAX_PARAMS = 30_000


@dataclass(slots=True)
class Entry:
    """One new match: the unsaved row, its sides in position order, its event's details."""

    match: Match
    sides: Sequence[tuple[int, Sequence[int]]]  # (score, player primary keys)
    base: int  # the game's base score, repeated on every member row for the loader
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Event:
    """The event every stored match gets: its kind, when, by whom (a user or None)."""

    kind: str
    at: dt.datetime
    by: Any


def write(
    submissions: Sequence[Submission], entries: Sequence[Entry], *, event: Event | None
) -> None:
    """Insert ``submissions`` and ``entries``, and ``event`` for each match (None: none)."""
    if not entries:
        return
    if (
        connection.vendor == "postgresql"
        and len(submissions) == 1
        and event is not None
        and _param_count(entries) <= ONE_STATEMENT_MAX_PARAMS
    ):
        _write_one_statement(submissions[0], entries, event)
    else:
        write_table_by_table(submissions, entries, event=event)


def write_table_by_table(
    submissions: Sequence[Submission], entries: Sequence[Entry], *, event: Event | None
) -> None:
    """Five multi-row INSERTs (more past the parameter limit), on any database."""
    sql.insert(submissions)
    for entry in entries:
        # Assigned before the submission had a key: assigning it again copies the key.
        entry.match.submission = entry.match.submission
    rows = [entry.match for entry in entries]
    sql.insert(rows)
    sides = sql.insert(
        [
            Side(match=entry.match, position=position, score=score)
            for entry in entries
            for position, (score, _players) in enumerate(entry.sides, start=1)
        ]
    )
    members: list[SideMember] = []
    side_rows = iter(sides)
    for entry in entries:
        match = entry.match
        month_played = match.date_played.replace(day=1)
        for score, players in entry.sides:
            side = next(side_rows)
            members.extend(
                SideMember(
                    match=match,
                    side=side,
                    player_id=player,
                    discipline=match.discipline,
                    month_played=month_played,
                    counting_month=match.counting_month,
                    base=entry.base,
                    side_position=side.position,
                    score=score,
                )
                for player in players
            )
    sql.insert(members)
    if event is not None:
        sql.insert(
            [
                MatchEvent(
                    match=e.match, kind=event.kind, at=event.at, by=event.by, details=e.details
                )
                for e in entries
            ]
        )


# --- PostgreSQL: one statement -------------------------------------------------------------
#
# Every value is a NAMED parameter, named for its row and column: ``s__<column>`` (the
# submission), ``m<i>__<column>`` (match i), ``d<i>_<k>__position`` / ``__score`` (its side
# k), ``p<i>_<k>_<j>__player`` (that side's player j), ``m<i>__month_played`` /
# ``m<i>__base`` / ``m<i>__details`` (what its members and event repeat), ``e__kind`` /
# ``e__at`` / ``e__by`` (every event). A name that stands in two CTEs (a match's external
# id joins its sides, members and event to it) is one value, whatever the order.


def _param_count(entries: Sequence[Entry]) -> int:
    """How many values the statement sends (distinct names)."""
    per_match = len(_preps(Match)) + 3  # + month played, base, the event's details
    per_side, per_member = 2, 1
    return (
        len(_columns(Submission))
        + 3
        + sum(
            per_match + per_side * len(e.sides) + per_member * sum(len(p) for _s, p in e.sides)
            for e in entries
        )
    )


@cache
def _columns(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The columns an INSERT writes: every concrete one but the primary key."""
    return [f for f in model._meta.concrete_fields if not f.primary_key]


@cache
def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    found = model._meta.get_field(name)
    assert isinstance(found, models.Field)  # noqa: S101 - a column, not a relation's far side
    return found


def _placeholder(model: type[models.Model], field_name: str, name: str) -> str:
    """``%(name)s`` with the column's type: VALUES rows do not tell PostgreSQL their types."""
    cast = _field(model, field_name).cast_db_type(connection)  # type: ignore[attr-defined]
    return f"%({name})s::{cast}"


def _needs_prep(field_: models.Field[Any, Any]) -> bool:
    """False where psycopg adapts the Python value exactly as Django would."""
    return (
        not isinstance(
            field_,
            models.IntegerField | models.CharField | models.TextField | models.ForeignKey,
        )
        and type(field_) is not models.DateField
    )


def _plain_pre_save(field_: models.Field[Any, Any]) -> bool:
    """True where ``pre_save`` only reads the attribute (no ``auto_now``, no file to
    commit): the value is then read directly, without the call."""
    if isinstance(field_, models.DateField):  # DateTimeField too: both read it unless auto
        return not (field_.auto_now or field_.auto_now_add)
    return type(field_).pre_save is models.Field.pre_save


@dataclass(frozen=True, slots=True)
class _Prep:
    """How one INSERT column's value is taken from an instance."""

    field: models.Field[Any, Any]
    attname: str
    column: str
    plain: bool  # read the attribute, no pre_save
    convert: bool  # then Django's get_db_prep_save


@cache
def _preps(model: type[models.Model]) -> list[_Prep]:
    """The INSERT's columns, each with how its value is read and whether it needs Django's
    conversion (without Match's ``submission``: the statement takes it from the submission
    it inserts)."""
    return [
        _Prep(f, f.attname, f.column, _plain_pre_save(f), _needs_prep(f))
        for f in _columns(model)
        if f.name != "submission"
    ]


def _row_values(obj: models.Model, preps: list[_Prep], row: str, db: Any) -> dict[str, Any]:
    """``obj``'s column values named ``<row>__<column>``, as ``pre_save`` and
    ``get_db_prep_save`` (for the connection ``db``) give them."""
    values = {}
    for prep in preps:
        raw = getattr(obj, prep.attname) if prep.plain else prep.field.pre_save(obj, add=True)
        values[f"{row}__{prep.column}"] = (
            prep.field.get_db_prep_save(raw, db) if prep.convert else raw
        )
    return values


def _values(rows: Sequence[str], columns: str) -> str:
    """``(VALUES <rows>) AS v(<columns>)``."""
    return f"(VALUES {', '.join(rows)}) AS v({columns})"


@lru_cache(maxsize=256)
def _one_statement_sql(shape: tuple[tuple[int, ...], ...]) -> str:
    """The statement for matches whose sides have these numbers of players (parameters
    named as the comment above says)."""
    q = sql.quote
    sub_fields = _columns(Submission)
    match_fields = [prep.field for prep in _preps(Match)]
    match_columns = ", ".join(q(f.column) for f in match_fields)
    match_rows, side_rows, member_rows, event_rows = _value_rows(shape, match_fields)
    v_columns = ", ".join(f"v.{q(f.column)}" for f in match_fields)
    sub_values = ", ".join(_placeholder(Submission, f.name, f"s__{f.column}") for f in sub_fields)
    event_head = ", ".join(
        _placeholder(MatchEvent, name, f"e__{name}") for name in ("kind", "at", "by")
    )
    members = _values(
        member_rows,
        "external_id, position, player_id, discipline, month_played, counting_month, base, score",
    )
    # Table and column names from the models; every value a named parameter with its cast.
    ctes = [
        f"s AS (INSERT INTO {q(Submission._meta.db_table)} "  # noqa: S608
        f"({', '.join(q(f.column) for f in sub_fields)}) VALUES ({sub_values}) RETURNING id)",
        f"m AS (INSERT INTO {q(Match._meta.db_table)} ({match_columns}, submission_id) "  # noqa: S608
        f"SELECT {v_columns}, s.id FROM s, {_values(match_rows, match_columns)} "
        "RETURNING id, external_id)",
        f"d AS (INSERT INTO {q(Side._meta.db_table)} (match_id, position, score) "  # noqa: S608
        f"SELECT m.id, v.position, v.score FROM "
        f"{_values(side_rows, 'external_id, position, score')} JOIN m USING (external_id) "
        "RETURNING id, match_id, position)",
        f"sm AS (INSERT INTO {q(SideMember._meta.db_table)} (match_id, side_id, player_id, "  # noqa: S608
        "discipline, month_played, counting_month, base, side_position, score) "
        "SELECT m.id, d.id, v.player_id, v.discipline, v.month_played, v.counting_month, "
        f"v.base, v.position, v.score FROM {members} "
        "JOIN m USING (external_id) JOIN d ON d.match_id = m.id AND d.position = v.position)",
        f"e AS (INSERT INTO {q(MatchEvent._meta.db_table)} "  # noqa: S608
        f"(match_id, kind, at, by_id, reason, details) SELECT m.id, {event_head}, '', v.details "
        f"FROM {_values(event_rows, 'external_id, details')} JOIN m USING (external_id))",
    ]
    return (
        f"WITH {', '.join(ctes)} "  # noqa: S608
        "SELECT (SELECT id FROM s) AS submission_id, m.id AS match_id, m.external_id FROM m"
    )


def _value_rows(
    shape: tuple[tuple[int, ...], ...], match_fields: list[models.Field[Any, Any]]
) -> tuple[list[str], list[str], list[str], list[str]]:
    """The VALUES rows of the matches, sides, members and events of ``shape``."""
    match_rows: list[str] = []
    side_rows: list[str] = []
    member_rows: list[str] = []
    event_rows: list[str] = []
    for i, sides in enumerate(shape):
        m = f"m{i}"
        external_id = _placeholder(Match, "external_id", f"{m}__external_id")
        match_rows.append(
            "("
            + ", ".join(_placeholder(Match, f.name, f"{m}__{f.column}") for f in match_fields)
            + ")"
        )
        event_rows.append(
            f"({external_id}, {_placeholder(MatchEvent, 'details', f'{m}__details')})"
        )
        member_head = ", ".join(
            _placeholder(SideMember, name, f"{m}__{column}")
            for name, column in (
                ("discipline", "discipline"),
                ("month_played", "month_played"),
                ("counting_month", "counting_month"),
                ("base", "base"),
            )
        )
        for k, players in enumerate(sides):
            d = f"d{i}_{k}"
            position = _placeholder(Side, "position", f"{d}__position")
            score = _placeholder(Side, "score", f"{d}__score")
            side_rows.append(f"({external_id}, {position}, {score})")
            member_rows.extend(
                f"({external_id}, {position}, "
                f"{_placeholder(SideMember, 'player', f'p{i}_{k}_{j}__player')}, "
                f"{member_head}, {score})"
                for j in range(players)
            )
    return match_rows, side_rows, member_rows, event_rows


@dataclass(frozen=True, slots=True)
class _Stored:
    """A row the statement returns: the keys it gave the submission and one match."""

    submission_id: int
    match_id: int
    external_id: str


def _write_one_statement(submission: Submission, entries: Sequence[Entry], event: Event) -> None:
    statement = sql.Statement(
        _one_statement_sql(tuple(tuple(len(p) for _s, p in e.sides) for e in entries)),
        _one_statement_params(submission, entries, event),
    )
    stored = [_Stored(*row) for row in sql.execute(statement)]
    if len(stored) != len(entries):  # pragma: no cover - the database broke its contract
        raise RuntimeError(f"stored {len(stored)} matches of {len(entries)}")
    sql.saved(submission, stored[0].submission_id)
    keys = {row.external_id: row.match_id for row in stored}
    for one in entries:
        one.match.submission = submission
        sql.saved(one.match, keys[one.match.external_id])


def _one_statement_params(
    submission: Submission, entries: Sequence[Entry], event: Event
) -> dict[str, Any]:
    """The values of :func:`_one_statement_sql`, by name."""
    # The connection itself, not Django's proxy (which looks it up on every attribute).
    db = connections[DEFAULT_DB_ALIAS]
    details = _field(MatchEvent, "details")
    params = _row_values(submission, _preps(Submission), "s", db)
    params.update(
        e__kind=str(event.kind),
        e__at=_field(MatchEvent, "at").get_db_prep_save(event.at, db),
        e__by=getattr(event.by, "pk", event.by),
    )
    match_preps = _preps(Match)
    for i, one in enumerate(entries):
        match, m = one.match, f"m{i}"
        params.update(_row_values(match, match_preps, m, db))
        params[f"{m}__month_played"] = match.date_played.replace(day=1)
        params[f"{m}__base"] = one.base
        params[f"{m}__details"] = details.get_db_prep_save(one.details, db)
        for k, (score, players) in enumerate(one.sides):
            params[f"d{i}_{k}__position"] = k + 1
            params[f"d{i}_{k}__score"] = score
            for j, player in enumerate(players):
                params[f"p{i}_{k}_{j}__player"] = player
    return params
