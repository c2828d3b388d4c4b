"""Writing a validated batch of new matches: submissions, matches, sides, members, events.

Contract: :func:`write` inserts, inside the caller's transaction, every row of ``entries``
(unsaved :class:`~matches.models.Match` instances whose ``submission`` is one of
``submissions``, with their sides and players) and one event per match; it sets the primary
keys of the submissions and matches. It validates nothing (:mod:`matches.validation` and
:mod:`matches.months` have) and sends no signal; the database's constraints stay the last
word, and a unique violation (a twin request storing the same id) is an ``IntegrityError``.

Two ways, the same rows (a test compares them column by column):

- PostgreSQL, one submission (a form, a CSV file, an API request: the hot path), under
  :data:`ONE_STATEMENT_MAX_PARAMS`: ONE prepared statement of data-modifying CTEs, whose
  sides and members find their match by its external id (unique in such a batch, which is
  one club's). A one-match request used to send five INSERTs; each statement costs the web
  worker and PostgreSQL a round trip and a parse.
- otherwise (SQLite, an import whose lines carry their own ``submitted_at``, a huge batch):
  one multi-row ``INSERT ... RETURNING`` per table (:func:`matches.rawsql.insert`), five
  statements for any number of matches.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from django.db import connection, models

from . import rawsql
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


def write(
    submissions: Sequence[Submission],
    entries: Sequence[Entry],
    *,
    event_kind: str | None,
    at: dt.datetime,
    by: Any,
) -> None:
    """Insert ``submissions`` and ``entries``; ``event_kind`` None: no event rows."""
    if not entries:
        return
    if (
        connection.vendor == "postgresql"
        and len(submissions) == 1
        and event_kind is not None
        and _param_count(entries) <= ONE_STATEMENT_MAX_PARAMS
    ):
        _write_one_statement(submissions[0], entries, event_kind=event_kind, at=at, by=by)
    else:
        write_table_by_table(submissions, entries, event_kind=event_kind, at=at, by=by)


def write_table_by_table(
    submissions: Sequence[Submission],
    entries: Sequence[Entry],
    *,
    event_kind: str | None,
    at: dt.datetime,
    by: Any,
) -> None:
    """Five multi-row INSERTs (more past the parameter limit), on any database."""
    rawsql.insert(submissions)
    for entry in entries:
        # Assigned before the submission had a key: assigning it again copies the key.
        entry.match.submission = entry.match.submission
    rows = [entry.match for entry in entries]
    rawsql.insert(rows)
    sides = rawsql.insert(
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
    rawsql.insert(members)
    if event_kind is not None:
        rawsql.insert(
            [
                MatchEvent(match=e.match, kind=event_kind, at=at, by=by, details=e.details)
                for e in entries
            ]
        )


# --- PostgreSQL: one statement -------------------------------------------------------------


def _param_count(entries: Sequence[Entry]) -> int:
    match_columns = len(_columns(Match)) + 2  # + the event's external id and details
    per_side, per_member = 3, 8
    return 8 + sum(
        match_columns + per_side * len(e.sides) + per_member * sum(len(p) for _s, p in e.sides)
        for e in entries
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


def _placeholder(model: type[models.Model], name: str) -> str:
    """``%s`` with the column's type: VALUES rows do not tell PostgreSQL their types."""
    cast = _field(model, name).cast_db_type(connection)  # type: ignore[attr-defined]
    return f"%s::{cast}"


def _needs_prep(field_: models.Field[Any, Any]) -> bool:
    """False where psycopg adapts the Python value exactly as Django would."""
    return (
        not isinstance(
            field_,
            models.IntegerField | models.CharField | models.TextField | models.ForeignKey,
        )
        and type(field_) is not models.DateField
    )


@cache
def _preps(model: type[models.Model]) -> list[tuple[models.Field[Any, Any], bool]]:
    """The INSERT's columns with whether their values need Django's conversion (without
    Match's ``submission``: the statement takes it from the submission it inserts)."""
    return [(f, _needs_prep(f)) for f in _columns(model) if f.name != "submission"]


def _row_values(obj: models.Model, preps: list[tuple[models.Field[Any, Any], bool]]) -> list[Any]:
    values = []
    for field_, prep in preps:
        raw = field_.pre_save(obj, add=True)
        values.append(field_.get_db_prep_save(raw, connection) if prep else raw)
    return values


@lru_cache(maxsize=256)
def _one_statement_sql(shape: tuple[tuple[int, ...], ...]) -> str:
    """The statement for matches whose sides have these numbers of players.

    Its parameters, in order: the submission's columns; each match's columns (but
    ``submission``); per side (external id, position, score); per member (external id,
    position, player, discipline, month played, counting month, base, score); the event's
    kind, time and author; per match (external id, details).
    """
    q = rawsql.quote
    sub_fields = _columns(Submission)
    match_fields = [f for f, _prep in _preps(Match)]
    match_row = "(" + ", ".join(_placeholder(Match, f.name) for f in match_fields) + ")"
    external_id = _placeholder(Match, "external_id")
    position = _placeholder(Side, "position")
    side_row = f"({external_id}, {position}, {_placeholder(Side, 'score')})"
    member_row = (
        f"({external_id}, {position}, "
        + ", ".join(
            _placeholder(SideMember, name)
            for name in ("player", "discipline", "month_played", "counting_month", "base", "score")
        )
        + ")"
    )
    event_row = f"({external_id}, {_placeholder(MatchEvent, 'details')})"
    sides = [n for match in shape for n in match]
    match_columns = ", ".join(q(f.column) for f in match_fields)
    v_columns = ", ".join(f"v.{q(f.column)}" for f in match_fields)
    sub_values = ", ".join(_placeholder(Submission, f.name) for f in sub_fields)
    event_head = ", ".join(_placeholder(MatchEvent, name) for name in ("kind", "at", "by"))
    # Table and column names from the models; every value a parameter with its cast.
    return (
        f"WITH s AS (INSERT INTO {q(Submission._meta.db_table)} "  # noqa: S608
        f"({', '.join(q(f.column) for f in sub_fields)}) VALUES ({sub_values}) RETURNING id), "
        f"m AS (INSERT INTO {q(Match._meta.db_table)} ({match_columns}, submission_id) "
        f"SELECT {v_columns}, s.id FROM s, (VALUES {', '.join([match_row] * len(shape))}) "
        f"AS v({match_columns}) RETURNING id, external_id), "
        f"d AS (INSERT INTO {q(Side._meta.db_table)} (match_id, position, score) "
        f"SELECT m.id, v.position, v.score FROM (VALUES {', '.join([side_row] * len(sides))}) "
        "AS v(external_id, position, score) JOIN m USING (external_id) "
        "RETURNING id, match_id, position), "
        f"sm AS (INSERT INTO {q(SideMember._meta.db_table)} (match_id, side_id, player_id, "
        "discipline, month_played, counting_month, base, side_position, score) "
        "SELECT m.id, d.id, v.player_id, v.discipline, v.month_played, v.counting_month, "
        f"v.base, v.position, v.score FROM (VALUES {', '.join([member_row] * sum(sides))}) "
        "AS v(external_id, position, player_id, discipline, month_played, counting_month, "
        "base, score) JOIN m USING (external_id) "
        "JOIN d ON d.match_id = m.id AND d.position = v.position), "
        f"e AS (INSERT INTO {q(MatchEvent._meta.db_table)} "
        f"(match_id, kind, at, by_id, reason, details) SELECT m.id, {event_head}, '', v.details "
        f"FROM (VALUES {', '.join([event_row] * len(shape))}) AS v(external_id, details) "
        "JOIN m USING (external_id)) "
        "SELECT (SELECT id FROM s), m.id, m.external_id FROM m"
    )


def _write_one_statement(
    submission: Submission,
    entries: Sequence[Entry],
    *,
    event_kind: str,
    at: dt.datetime,
    by: Any,
) -> None:
    sql = _one_statement_sql(tuple(tuple(len(p) for _s, p in e.sides) for e in entries))
    details = _field(MatchEvent, "details")
    at_field = _field(MatchEvent, "at")
    params: list[Any] = _row_values(submission, _preps(Submission))
    match_preps = _preps(Match)
    side_p: list[Any] = []
    member_p: list[Any] = []
    event_p: list[Any] = []
    for entry in entries:
        match = entry.match
        params.extend(_row_values(match, match_preps))
        month_played = match.date_played.replace(day=1)
        external_id = match.external_id
        for position, (score, players) in enumerate(entry.sides, start=1):
            side_p += (external_id, position, score)
            for player in players:
                member_p += (
                    external_id,
                    position,
                    player,
                    match.discipline,
                    month_played,
                    match.counting_month,
                    entry.base,
                    score,
                )
        event_p += (external_id, details.get_db_prep_save(entry.details, connection))
    params += side_p
    params += member_p
    params += (str(event_kind), at_field.get_db_prep_save(at, connection), getattr(by, "pk", by))
    params += event_p
    rows = rawsql.execute(sql, params)
    if len(rows) != len(entries):  # pragma: no cover - the database broke its contract
        raise RuntimeError(f"stored {len(rows)} matches of {len(entries)}")
    _saved(submission, rows[0][0])
    keys = {external_id: pk for _s, pk, external_id in rows}
    for entry in entries:
        entry.match.submission = submission
        _saved(entry.match, keys[entry.match.external_id])


def _saved(obj: models.Model, pk: int) -> None:
    obj.pk = pk
    obj._state.adding = False
    obj._state.db = connection.alias
