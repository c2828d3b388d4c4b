"""The rankings app's SQL statements, the rows they return, and the helpers that run them.

Why raw SQL: the public pages run a few fixed statements per request, and building them
through the ORM cost more CPU than the database spends answering them (some 0.5 ms per
query against 0.1 ms through a cursor). Every such statement of the read side is written
here and nowhere else (the binary ``COPY`` paths of the close are in
:mod:`rankings.loader` and :mod:`rankings.writer`).

Contract:

- A statement is a :class:`matches.sql.Statement`: SQL with NAMED parameters
  (``%(name)s``) and their values, never a positional order shared across subqueries.
  :func:`fetch` runs one and returns its rows; :meth:`Select.rows` returns them as data
  classes. On PostgreSQL it runs through :func:`matches.sql.execute`: server-side binding,
  prepared once per connection (the web's connections persist): a player's page runs nine
  of its ten statements here, and parsing and planning them again on every request was a
  third of the backend's CPU for the page (docs/performance-history.md, "Prepared reads").
  PostgreSQL plans the first five executions of a statement for their values and then
  keeps a generic plan only when it costs no more than those did (``plan_cache_mode =
  auto``).
  Elsewhere (SQLite) through Django's cursor.
- A statement that returns rows of a data class builds its select list from the class's
  fields (:class:`Select`), so ``Row(*row)`` reads every column by the name it was
  selected under.
- :func:`window_condition` is THE definition of "results of discipline D counting in
  L(R)": ``counting_month <= R``, ``R - 11 <= month_played <= R``, not voided before R. The
  close's loader (whole discipline, ``COPY``) and a player's counting results (one
  player's matches) both put it in their ``WHERE``.
- :func:`erratum_condition` is the erratum's window (docs/fladub.md, "Errata"): the
  results of L(R)'s window as they stood after the events up to an :class:`ErratumBasis`
  (corrections in, voids out, nothing submitted after R's deadline added).
- Model instances: :func:`fields` names a model's fields in the model's order,
  :func:`loaded` turns values selected in that order into an instance, each value
  converted as the ORM converts it (the other fields deferred: reading one costs a query,
  never a wrong value).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, models
from psycopg.adapt import Dumper, PyFormat
from psycopg.types.numeric import IntDumper

from matches import sql as matches_sql
from matches.models import Club, Match, MatchEvent, Player, SideMember
from matches.months import Month

from .models import CurrentList, EntryFigures, RankingEntry, RankingList
from .numbers import TwoListsMove

M = TypeVar("M", bound=models.Model)
R = TypeVar("R")
Params = dict[str, Any]

_PLAYER = Player._meta.db_table
_CLUB = Club._meta.db_table
_MATCH = Match._meta.db_table
_MEMBER = SideMember._meta.db_table
_EVENT = MatchEvent._meta.db_table
_LIST = RankingList._meta.db_table
_ENTRY = RankingEntry._meta.db_table
_CURRENT = CurrentList._meta.db_table
PUBLISHED = RankingList.Status.PUBLISHED.value
SUPERSEDED = RankingList.Status.SUPERSEDED.value
_ID_LIST = re.compile(r"[0-9]+(,[0-9]+)*")


# --- running statements -----------------------------------------------------------------------

Statement = matches_sql.Statement


def fetch(statement: Statement) -> list[tuple[Any, ...]]:
    """Every row of one statement, on the default connection (prepared on PostgreSQL)."""
    if postgres():
        return matches_sql.execute(statement, dumpers=_READ_DUMPERS)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
        return cursor.fetchall()


class _IntAsInteger(IntDumper):
    """A Python int as a parameter typed as PostgreSQL types the same number written in
    the statement: ``integer``, ``bigint`` or ``numeric`` by its size, never ``smallint``
    (psycopg's choice for small values, which the statements' expressions were not written
    for: a recursive CTE's column of ``smallint`` in one term and ``integer`` in the other
    is an error)."""

    def upgrade(self, obj: int, format: PyFormat) -> Dumper:
        if -(2**15) <= obj < 2**15:
            return self._int4_dumper
        return super().upgrade(obj, format)


_READ_DUMPERS: Mapping[type, type] = {int: _IntAsInteger}


class Select(Generic[R]):
    """The select list of rows of the data class ``row``, built from its fields in order:
    a field is one SQL expression, or a nested :class:`Select` (a data class of several
    columns; None when all of its columns are NULL, as after an outer join that found
    nothing). So ``row(*values)`` puts every value in the field it was selected for.
    ``convert`` names the model field whose ORM conversion a value gets (dates and times
    come back from SQLite as text, for example)."""

    def __init__(
        self,
        row: type[R],
        /,
        *,
        convert: Mapping[str, tuple[type[models.Model], str]] | None = None,
        **expressions: str | Select[Any],
    ) -> None:
        names = [f.name for f in dataclasses.fields(row)]  # type: ignore[arg-type]
        if list(expressions) != names:
            raise TypeError(f"the select list of {row.__name__} must name {names}")
        self.row = row
        self.sql: str = ", ".join(e if isinstance(e, str) else e.sql for e in expressions.values())
        self._parts: list[Select[Any] | None] = [
            e if isinstance(e, Select) else None for e in expressions.values()
        ]
        self.width: int = sum(1 if part is None else part.width for part in self._parts)
        self._convert = {names.index(name): source for name, source in (convert or {}).items()}
        self._flat = not self._convert and all(part is None for part in self._parts)

    @classmethod
    def of_table(
        cls,
        row: type[R],
        alias: str,
        /,
        *,
        convert: Mapping[str, tuple[type[models.Model], str]] | None = None,
        **expressions: str | Select[Any],
    ) -> Select[R]:
        """The select list of ``row`` in which each field not named in ``expressions`` is
        the column of the same name of the table aliased ``alias``."""
        names = [f.name for f in dataclasses.fields(row)]  # type: ignore[arg-type]
        chosen = {name: expressions.get(name, f"{alias}.{name}") for name in names}
        return cls(row, convert=convert, **chosen)  # type: ignore[arg-type]

    def make(self, values: Sequence[Any]) -> R:
        """One row from the :attr:`width` values selected by :attr:`sql`."""
        if self._flat:
            return self.row(*values)
        fields: list[Any] = []
        start = 0
        for index, part in enumerate(self._parts):
            if part is not None:
                chunk = values[start : start + part.width]
                fields.append(None if all(v is None for v in chunk) else part.make(chunk))
                start += part.width
                continue
            value = values[start]
            if index in self._convert:
                value = converter(*self._convert[index])(value)
            fields.append(value)
            start += 1
        return self.row(*fields)

    def rows(self, statement: Statement) -> list[R]:
        if self._flat:  # the common case, one call per row (pages read hundreds)
            row = self.row
            return [row(*values) for values in fetch(statement)]
        return [self.make(values) for values in fetch(statement)]


@dataclass(frozen=True, slots=True)
class Count:
    count: int


COUNT = Select(Count, count="count(*)")


def named_list(prefix: str, values: Iterable[Any]) -> tuple[str, dict[str, Any]]:
    """``%(prefix_0)s, %(prefix_1)s, ...`` for an ``IN (...)`` of ``values`` (at least
    one), and the parameters: constants the planner sees one by one (index lookups)."""
    marks, params = matches_sql.in_list(prefix, values)
    if not params:
        raise ValueError(f"an IN list needs at least one value ({prefix})")
    return marks, params


def postgres() -> bool:
    return connection.vendor == "postgresql"


# --- model instances ----------------------------------------------------------------------------


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
    return matches_sql.converter(model, name) or _identity


def _identity(value: Any) -> Any:
    return value


def loaded(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """An instance of ``model`` with the fields ``names`` (from :func:`fields`) set from
    ``values``, converted as the ORM converts them; the other fields are deferred."""
    converted = [converter(model, name)(value) for name, value in zip(names, values, strict=True)]
    return model.from_db(DEFAULT_DB_ALIAS, list(names), converted)


PLAYER_FIELDS = fields(Player, "id", "player_id", "name", "country", "club_id", "merged_into_id")
CLUB_FIELDS = fields(Club, "id", "club_id", "name", "country")


# --- the window ---------------------------------------------------------------------------------


def window_condition(alias: str = "") -> str:
    """Results (``SideMember`` rows, aliased ``alias``) of discipline ``%(discipline)s``
    counting in the list of ``%(month)s``: counted by then, played in the 12 months up to
    it (from ``%(first)s``), not voided before it. Parameters: :func:`window_params`."""
    return _counting_condition(alias, void_after="month")


def span_condition(alias: str = "") -> str:
    """Results (aliased ``alias``) of discipline ``%(discipline)s`` counting in at least one
    of the lists from L(``%(earliest)s``) to L(``%(month)s``): the union of their windows
    (:func:`window_condition` when the two months are one). Parameters:
    :func:`span_params`."""
    return _counting_condition(alias, void_after="earliest")


def _counting_condition(alias: str, *, void_after: str) -> str:
    a = f"{alias}." if alias else ""
    return (
        f"{a}discipline = %(discipline)s AND {a}counting_month <= %(month)s "
        f"AND {a}month_played >= %(first)s AND {a}month_played <= %(month)s "
        f"AND ({a}void_effective_month IS NULL OR {a}void_effective_month > %({void_after})s)"
    )


def shard_condition() -> str:
    """The rows of every match of the window in which a player of shard ``%(shard)s`` of
    ``%(shards)s`` (``player_id % shards = shard``, :func:`rankings.fladub.worker_of`)
    took part: whole matches, because a side's points depend on every side of its table.
    Parameters: :func:`window_params` and those two. Appended to :func:`window_condition`."""
    return (
        f"match_id IN (SELECT s.match_id FROM {_MEMBER} s WHERE {window_condition('s')} "  # noqa: S608
        "AND s.player_id %% %(shards)s = %(shard)s)"
    )


@dataclass(frozen=True, slots=True)
class ErratumBasis:
    """What an erratum read: the results as they stood after the matches and match events
    up to these ids (the highest visible under the discipline's exclusive lock, when no
    submission, correction or void of the discipline was under way)."""

    as_of_match: int
    as_of_event: int


def erratum_condition(alias: str = "") -> str:
    """Results (``SideMember`` rows, aliased ``alias``) of discipline ``%(discipline)s`` in
    an erratum of L(``%(month)s``): played in its 12 months; the match existed by
    ``%(as_of_match)s``; it, or the revision it corrects, counted in ``%(month)s`` or before
    (a correction made later replaces the result in the month it counted in; nothing
    submitted after the month's deadline is added); not voided nor replaced by an event up
    to ``%(as_of_event)s`` (the latest void or correction event of a voided match is its
    void). Parameters: :func:`erratum_params`."""
    # Always qualified: inside the subqueries a bare ``match_id`` would be the event's.
    a = f"{alias or _MEMBER}."
    return (
        f"{a}discipline = %(discipline)s "  # noqa: S608 - placeholders only
        f"AND {a}month_played >= %(first)s AND {a}month_played <= %(month)s "
        f"AND {a}match_id <= %(as_of_match)s "
        f"AND ({a}counting_month <= %(month)s OR EXISTS (SELECT 1 FROM {_MATCH} r "
        f"JOIN {_MATCH} c ON r.club_id = c.club_id AND r.external_id = c.external_id "
        f"WHERE c.id = {a}match_id AND r.counting_month <= %(month)s)) "
        f"AND ({a}void_effective_month IS NULL OR COALESCE((SELECT max(e.id) FROM {_EVENT} e "
        f"WHERE e.match_id = {a}match_id AND e.kind IN (%(voided)s, %(corrected)s)), 0) "
        "> %(as_of_event)s)"
    )


def erratum_params(discipline: str, month: Month, basis: ErratumBasis) -> Params:
    return {
        **window_params(discipline, month),
        "as_of_match": int(basis.as_of_match),
        "as_of_event": int(basis.as_of_event),
        "voided": MatchEvent.Kind.VOIDED.value,
        "corrected": MatchEvent.Kind.CORRECTED.value,
    }


def window_where(
    discipline: str, month: Month, basis: ErratumBasis | None = None, alias: str = ""
) -> tuple[str, Params]:
    """The condition and parameters of L(month)'s window: the close's, or an erratum's."""
    if basis is None:
        return window_condition(alias), window_params(discipline, month)
    return erratum_condition(alias), erratum_params(discipline, month, basis)


def erratum_basis() -> Statement:
    """The highest match and match-event ids visible (0 for none): an erratum's basis."""
    return Statement(
        f"SELECT (SELECT COALESCE(MAX(id), 0) FROM {_MATCH}), "  # noqa: S608
        f"(SELECT COALESCE(MAX(id), 0) FROM {_EVENT})"
    )


def window_params(discipline: str, month: Month) -> Params:
    from .fladub import WINDOW_MONTHS  # NumPy: not before a statement needs it (start-up)

    return {
        "discipline": discipline,
        "month": month.first_day,
        "first": (month + (1 - WINDOW_MONTHS)).first_day,
    }


def span_params(discipline: str, earliest: Month, latest: Month) -> Params:
    """The parameters of :func:`span_condition` for the lists L(earliest) .. L(latest)."""
    from .fladub import WINDOW_MONTHS

    return {
        **window_params(discipline, latest),
        "first": (earliest + (1 - WINDOW_MONTHS)).first_day,
        "earliest": earliest.first_day,
    }


WINDOW_SIDE_COLUMNS = (
    "match_id",
    "month_played",
    "counting_month",
    "base",
    "side_position",
    "score",
    "player_id",
)
"""The columns of a result the FLADUB computation reads, in (match, side, player) order."""


def window_sides(discipline: str, month: Month, basis: ErratumBasis | None = None) -> Statement:
    """Every result of the window (an erratum's with ``basis``), in (match, side, player)
    order (the portable path; on PostgreSQL the loader reads the same condition with
    ``COPY``)."""
    condition, params = window_where(discipline, month, basis)
    return Statement(
        f"SELECT {', '.join(WINDOW_SIDE_COLUMNS)} FROM {_MEMBER} "  # noqa: S608
        f"WHERE {condition} ORDER BY match_id, side_position, player_id",
        params,
    )


@dataclass(frozen=True, slots=True)
class MemberRow:
    """A player at a table of one of a player's matches, with the match's facts: the
    rows of the results a page shows (:func:`match_members`)."""

    match_id: int
    month_played: dt.date
    counting_month: dt.date
    base: int
    side_position: int
    score: int
    player_pk: int
    player_id: str
    name: str
    external_id: str
    date_played: dt.date
    category: str
    club_id: str
    club_name: str


MEMBER_ROWS = Select.of_table(
    MemberRow,
    "m",
    player_pk="m.player_id",
    player_id="p.player_id",
    name="p.name",
    external_id="x.external_id",
    date_played="x.date_played",
    category="x.category",
    club_id="c.club_id",
    club_name="c.name",
)


@dataclass(frozen=True, slots=True)
class MatchSide:
    """A player at a table of one of a player's matches: what the FLADUB core reads, and
    from which list on the match no longer counts (voided; None: it was not)."""

    match_id: int
    month_played: dt.date
    counting_month: dt.date
    base: int
    side_position: int
    score: int
    player_pk: int
    void_effective_month: dt.date | None


PLAYER_MATCH_SIDES = Select(
    MatchSide,
    match_id="m.match_id",
    month_played="m.month_played",
    counting_month="m.counting_month",
    base="m.base",
    side_position="m.side_position",
    score="m.score",
    player_pk="m.player_id",
    void_effective_month="m.void_effective_month",
)


def player_match_sides(
    player_pk: int, discipline: str, earliest: Month, latest: Month
) -> Statement:
    """Every member of every match of a player that counts in at least one of the lists
    L(earliest) .. L(latest) (:func:`span_condition`), from the members' rows alone (no
    player, match or club row: a busy player's matches seat thousands of players, whose
    names only the shown page needs): the player's results are found on the
    ``member_player`` index, under the span's condition. In no particular order: the FLADUB
    core sorts its input (:meth:`rankings.fladub.Sides.canonical`, a NumPy ``lexsort``), and
    PostgreSQL sorting a busy player's 6,579 rows cost its backend 1.8 of 10.2 ms CPU."""
    return Statement(
        f"SELECT {PLAYER_MATCH_SIDES.sql} {_player_matches_from()}",
        {"player": player_pk, **span_params(discipline, earliest, latest)},
    )


NOT_VOIDED_DAY = dt.date(9999, 12, 1)
"""The void month :func:`player_match_sides_columns` gives a result not voided (a year
outside :class:`matches.months.Month`'s range: no real void month)."""


@dataclass(frozen=True, slots=True)
class Unpacked:
    """What a player's pack of points cannot say (:mod:`rankings.player_packs`): results of
    counting months after ``packed``, of the ``changed`` matches, or played in the months
    ``stale`` (month indices) whose strength list an erratum replaced."""

    packed: int
    changed: Sequence[int]
    stale: Sequence[int]


def player_match_sides_columns(
    player_pk: int,
    discipline: str,
    earliest: Month,
    latest: Month,
    unpacked: Unpacked | None = None,
) -> Statement:
    """The rows of :func:`player_match_sides` with every column NOT NULL, for a binary
    ``COPY`` into NumPy (:func:`rankings.loader.player_sides`): the columns of
    :data:`WINDOW_SIDE_COLUMNS`, then the void month, :data:`NOT_VOIDED_DAY` for a
    result not voided. With ``unpacked`` (PostgreSQL), only the matches of the player's
    results that their pack cannot say (whole matches still)."""
    columns = ", ".join(f"m.{name}" for name in WINDOW_SIDE_COLUMNS)
    params: Params = {
        "player": player_pk,
        "not_voided": NOT_VOIDED_DAY,
        **span_params(discipline, earliest, latest),
    }
    condition = ""
    if unpacked is not None:
        # Only the arms that can hold a row: alone (no matches changed, no month stale, the
        # usual case), the counting months after the pack's are a range of the
        # ``member_player`` index (player, discipline, counting_month), most often empty,
        # where an ``OR`` would have PostgreSQL fetch and check every result of the player.
        arms = ["s.counting_month > %(packed)s"]
        params["packed"] = Month.from_index(unpacked.packed).first_day
        if unpacked.changed:
            arms.append("s.match_id = ANY(CAST(%(changed)s AS bigint[]))")
            params["changed"] = [int(m) for m in unpacked.changed]
        if unpacked.stale:
            arms.append("s.month_played = ANY(CAST(%(stale)s AS date[]))")
            params["stale"] = [Month.from_index(m).first_day for m in unpacked.stale]
        condition = f" AND ({' OR '.join(arms)})"
    return Statement(
        f"SELECT {columns}, COALESCE(m.void_effective_month, %(not_voided)s) AS void_month "
        f"{_player_matches_from(condition)}",
        params,
    )


def _player_matches_from(condition: str = "") -> str:
    return (
        f"FROM {_MEMBER} m WHERE m.match_id IN (SELECT s.match_id FROM {_MEMBER} s "  # noqa: S608
        f"WHERE s.player_id = %(player)s AND {span_condition('s')}{condition})"
    )


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What a result names of its match: the club's match id, the day, the category, the
    club."""

    match_pk: int
    external_id: str
    date_played: dt.date
    category: str
    club_id: str
    club_name: str


MATCH_FACTS = Select(
    MatchFacts,
    match_pk="x.id",
    external_id="x.external_id",
    date_played="x.date_played",
    category="x.category",
    club_id="c.club_id",
    club_name="c.name",
)


CLUB_PROBES_UP_TO = 500
"""A statement naming up to this many matches reads each match's club by a probe of the
club's key (:func:`_club_of_match`); more, and it hashes every club once."""


def _club_of_match(matches: int) -> str:
    """The join of the club (aliased ``c``: ``club_id``, ``name``) of the match aliased
    ``x``, for a statement reading ``matches`` matches. On PostgreSQL, up to
    :data:`CLUB_PROBES_UP_TO`, a probe of the club's key per match (a lateral subquery kept
    a probe by ``OFFSET 0``; it memoizes the clubs met again): joined, the planner hashed
    all 5,000 clubs for a page of a hundred results (1.6 against 0.5 ms, 0.7 against 0.1 ms
    of planning; a page's tables 3.3 against 2.8 ms). A busy player's 1,354 matches are
    the other way round: probed 8,946 buffers and 5.0 ms, hashed 5,447 and 4.4 ms."""
    if postgres() and matches <= CLUB_PROBES_UP_TO:
        return (
            f"CROSS JOIN LATERAL (SELECT c.club_id, c.name FROM {_CLUB} c "  # noqa: S608
            "WHERE c.id = x.club_id OFFSET 0) c"
        )
    return f"JOIN {_CLUB} c ON c.id = x.club_id"


def match_facts(match_ids: Collection[int]) -> Statement:
    """:class:`MatchFacts` of the given matches (at least one; a busy player's thousand
    results: one array on PostgreSQL, see :func:`any_id`), each with its club
    (:func:`_club_of_match`)."""
    condition, params = any_id("x.id", "match", match_ids)
    return Statement(
        f"SELECT {MATCH_FACTS.sql} FROM {_MATCH} x {_club_of_match(len(match_ids))} "  # noqa: S608
        f"WHERE {condition}",
        params,
    )


@dataclass(frozen=True, slots=True)
class PackedFacts:
    """A match's facts with its club by primary key: what a player's pack of points keeps
    of it (:mod:`rankings.player_tables`; the club is named live, :func:`club_names`)."""

    match_pk: int
    external_id: str
    date_played: dt.date
    category: str
    club_pk: int


PACKED_FACTS = Select(
    PackedFacts,
    match_pk="x.id",
    external_id="x.external_id",
    date_played="x.date_played",
    category="x.category",
    club_pk="x.club_id",
)


def packed_facts(match_ids: Collection[int]) -> Statement:
    """:class:`PackedFacts` of the given matches (at least one): the matches alone."""
    condition, params = any_id("x.id", "match", match_ids)
    return Statement(
        f"SELECT {PACKED_FACTS.sql} FROM {_MATCH} x WHERE {condition}",  # noqa: S608
        params,
    )


@dataclass(frozen=True, slots=True)
class Named:
    """A player or a club by primary key: its public id (``player_id``, ``club_id``) and
    name."""

    pk: int
    code: str
    name: str


PLAYER_NAMES = Select(Named, pk="p.id", code="p.player_id", name="p.name")
CLUB_NAMES = Select(Named, pk="c.id", code="c.club_id", name="c.name")


def player_names(player_pks: Collection[int]) -> Statement:
    """:class:`Named` of the given players (at least one)."""
    condition, params = any_id("p.id", "player", player_pks)
    return Statement(
        f"SELECT {PLAYER_NAMES.sql} FROM {_PLAYER} p WHERE {condition}",  # noqa: S608
        params,
    )


def club_names(club_pks: Collection[int]) -> Statement:
    """:class:`Named` of the given clubs (at least one)."""
    condition, params = any_id("c.id", "club", club_pks)
    return Statement(
        f"SELECT {CLUB_NAMES.sql} FROM {_CLUB} c WHERE {condition}",  # noqa: S608
        params,
    )


def any_id(column: str, prefix: str, ids: Collection[int]) -> tuple[str, Params]:
    """``column`` is one of ``ids`` (at least one): on PostgreSQL ``= ANY`` of one array
    parameter (thousands of placeholders cost the driver more, splitting and quoting each,
    than the database's index probes), elsewhere an ``IN`` list of named placeholders."""
    if not ids:
        raise ValueError(f"an id condition needs at least one value ({prefix})")
    if postgres():
        values = "{" + ",".join(str(int(i)) for i in sorted(ids)) + "}"
        return f"{column} = ANY(CAST(%({prefix}_ids)s AS bigint[]))", {f"{prefix}_ids": values}
    marks, params = named_list(prefix, sorted(ids))
    return f"{column} IN ({marks})", params


def match_members(match_ids: Collection[int]) -> Statement:
    """:class:`MemberRow` of every member of the given matches (at least one): the tables
    of the results a page shows, with names, dates, categories and clubs. The condition is
    on the matches (:func:`any_id`), so that each match and its club are read once, then
    its members (a hundred matches seat some 500: 500 probes of the matches' key saved);
    each match's club by :func:`_club_of_match`."""
    condition, params = any_id("x.id", "match", match_ids)
    return Statement(
        f"SELECT {MEMBER_ROWS.sql} FROM {_MATCH} x "  # noqa: S608 - placeholders only
        f"{_club_of_match(len(match_ids))} JOIN {_MEMBER} m ON m.match_id = x.id "
        f"JOIN {_PLAYER} p ON p.id = m.player_id WHERE {condition} "
        "ORDER BY m.match_id, m.side_position, m.player_id",
        params,
    )


# --- published lists ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListMonth:
    id: int
    month: dt.date


LIST_MONTH = Select(ListMonth, convert={"month": (RankingList, "month")}, id="id", month="month")


def published_list_ids(discipline: str, months: Collection[Month]) -> Statement:
    """:class:`ListMonth` of the discipline's published lists of ``months`` (at least one)."""
    marks, params = named_list("month", [m.first_day for m in sorted(months)])
    return Statement(
        f"SELECT {LIST_MONTH.sql} FROM {_LIST} "  # noqa: S608 - placeholders only
        f"WHERE discipline = %(discipline)s AND status = %(published)s AND month IN ({marks})",
        {"discipline": discipline, "published": PUBLISHED, **params},
    )


@dataclass(frozen=True, slots=True)
class LastMonth:
    month: dt.date | None


LAST_MONTH = Select(LastMonth, convert={"month": (RankingList, "month")}, month="max(month)")


def last_published_month(discipline: str) -> Statement:
    """One :class:`LastMonth`: the month of the discipline's latest published list (None:
    none yet)."""
    return Statement(
        f"SELECT {LAST_MONTH.sql} FROM {_LIST} "  # noqa: S608 - placeholders only
        "WHERE discipline = %(discipline)s AND status = %(published)s",
        {"discipline": discipline, "published": PUBLISHED},
    )


@dataclass(frozen=True, slots=True)
class ProjectionRow:
    """A projected list's row as its readers need it."""

    id: int
    discipline: str
    month: dt.date
    version: int
    entry_count: int
    created_at: dt.datetime


PROJECTION_ROW = Select.of_table(
    ProjectionRow,
    "l",
    convert={"month": (RankingList, "month"), "created_at": (RankingList, "created_at")},
)


def current_projection(discipline: str, player_pk: int | None = None) -> Statement:
    """:class:`ProjectionRow` of the discipline's latest projected list of a month that has
    no published list (none or one row); with a player, :class:`ProjectionStanding` (a
    probe for the player's entry in it)."""
    select, join = PROJECTION_ROW.sql, ""
    if player_pk is not None:
        select = PROJECTION_STANDING.sql
        join = f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %(player)s "
    return Statement(
        f"SELECT {select} FROM {_LIST} l {join}"  # noqa: S608 - placeholders only
        "WHERE l.discipline = %(discipline)s AND l.status = %(projected)s AND NOT EXISTS ("
        f"SELECT 1 FROM {_LIST} p WHERE p.discipline = %(discipline)s "
        "AND p.status = %(published)s AND p.month >= l.month) "
        "ORDER BY l.created_at DESC, l.id DESC LIMIT 1",
        {
            "discipline": discipline,
            "player": player_pk,
            "projected": RankingList.Status.PROJECTED.value,
            "published": PUBLISHED,
        },
    )


def list_ids_as_of(discipline: str, months: Collection[Month], at: dt.datetime) -> Statement:
    """:class:`ListMonth` of the version of each of ``months`` that was the latest published
    one just before ``at`` (superseded since or not): the lists a close or an erratum
    published at ``at`` read (closes of a discipline run one at a time, under its lock)."""
    marks, params = named_list("month", [m.first_day for m in sorted(months)])

    def shown(a: str) -> str:
        return f"{a}.status IN (%(published)s, %(superseded)s) AND {a}.published_at < %(at)s"

    return Statement(
        f"SELECT {LIST_MONTH.sql} FROM {_LIST} l "  # noqa: S608 - placeholders only
        f"WHERE l.discipline = %(discipline)s AND {shown('l')} AND l.month IN ({marks}) "
        f"AND NOT EXISTS (SELECT 1 FROM {_LIST} n WHERE n.discipline = l.discipline "
        f"AND n.month = l.month AND {shown('n')} AND n.edition > l.edition)",
        {
            "discipline": discipline,
            "published": PUBLISHED,
            "superseded": SUPERSEDED,
            "at": at,
            **params,
        },
    )


@dataclass(frozen=True, slots=True)
class Strength:
    """A player's published FLADUB in a list (and their rank, where asked for)."""

    list_id: int
    player: int
    rank: int
    fladub_cents: int


STRENGTH = Select(
    Strength,
    list_id="ranking_list_id",
    player="player_id",
    rank="rank",
    fladub_cents="fladub_cents",
)


def list_strengths(list_id: int) -> Statement:
    """:class:`Strength` of every entry of a list (the portable whole-list path)."""
    return Statement(
        f"SELECT {STRENGTH.sql} FROM {_ENTRY} "  # noqa: S608
        "WHERE ranking_list_id = %(list)s ORDER BY player_id",
        {"list": list_id},
    )


def strengths_of_players(players: Mapping[int, Collection[int]], *, tops: bool = True) -> Statement:
    """:class:`Strength` of the given players' entries in each given list (list id ->
    players, at least one list), and (``tops``) of each list's rank 1.

    On PostgreSQL each list's players travel as one array, each player one probe of the
    unique index ``(ranking_list, player)`` of that list's partition (kept a probe by the
    ``OFFSET 0`` fence, as in :func:`places_of`, whatever the statistics say); the tops are
    probes of ``(ranking_list, rank)``. Elsewhere: the pairs as ``IN`` lists of placeholders.
    """
    list_marks, params = named_list("list", sorted(players))
    parts = []
    if tops:
        parts.append(
            f"SELECT {STRENGTH.sql} FROM {_ENTRY} "  # noqa: S608 - placeholders only
            f"WHERE ranking_list_id IN ({list_marks}) AND rank = 1"
        )
    for n, (_list, among) in enumerate(sorted(players.items())):
        if not among:
            continue
        if postgres():
            # One probe set per list, its list id a constant: the planner then reads that
            # list's partition only (a list id taken from an array of pairs made it plan a
            # probe of every partition per pair: 13 times the cost with 12 lists, enough to
            # trigger JIT, 0.35 s of compilation on the busiest player's page).
            params[f"players_{n}"] = "{" + ",".join(str(int(p)) for p in sorted(among)) + "}"
            parts.append(
                f"SELECT {STRENGTH.sql} FROM unnest(CAST(%(players_{n})s AS bigint[])) "  # noqa: S608
                "AS u(player) CROSS JOIN LATERAL (SELECT x.ranking_list_id, x.player_id, "
                f"x.rank, x.fladub_cents FROM {_ENTRY} x WHERE x.ranking_list_id = "
                f"%(list_{n})s AND x.player_id = u.player OFFSET 0) e"
            )
        else:
            marks, player_params = named_list(f"player{n}", sorted(among))
            parts.append(
                f"SELECT {STRENGTH.sql} FROM {_ENTRY} "  # noqa: S608 - placeholders only
                f"WHERE ranking_list_id = %(list_{n})s AND player_id IN ({marks})"
            )
            params.update(player_params)
    if not parts:
        parts.append(f"SELECT {STRENGTH.sql} FROM {_ENTRY} WHERE 1 = 0")  # noqa: S608
    return Statement(" UNION ALL ".join(parts), params)


@dataclass(frozen=True, slots=True)
class ListSeal:
    """What anyone can check a list against (:mod:`rankings.seal`)."""

    content_sha256: str
    inputs_sha256: str | None
    inputs_count: int | None
    fladub_version: str | None
    code_version: str | None


LIST_SEAL = Select.of_table(ListSeal, "l")


@dataclass(frozen=True, slots=True)
class ListInfo:
    """A published list as readers see it (its entries are read page by page)."""

    id: int
    discipline: str
    month: dt.date
    """The first day of the list's month."""
    version: int
    entry_count: int
    published_at: dt.datetime | None
    seal: ListSeal | None = None
    """None for a list published before seals existed."""
    edition: int | None = None
    """The public version of the month's list: 1 the close, 2 the first erratum, ..."""
    status: str = PUBLISHED
    """``published`` (the month's latest version) or ``superseded`` (an erratum replaced it)."""

    @property
    def pk(self) -> int:
        return self.id

    @property
    def superseded(self) -> bool:
        return self.status == SUPERSEDED

    @property
    def list_month(self) -> Month:
        return Month.of(self.month)


LIST_INFO = Select.of_table(
    ListInfo,
    "l",
    convert={"month": (RankingList, "month"), "published_at": (RankingList, "published_at")},
    seal=LIST_SEAL,
)


@dataclass(frozen=True, slots=True)
class EntryInfo(EntryFigures):
    """A player's entry in a list: rank, FLADUB, results counted, the move since the last."""

    rank: int
    fladub_cents: int
    results_counted: int
    previous_rank: int | None
    movement: int | None


ENTRY_INFO = Select.of_table(EntryInfo, "e")


def _first_from(rank: str, column: str) -> str:
    """``column`` of the first entry (by rank) of list ``%(list)s`` at rank ``rank`` or
    after: one probe of ``(ranking_list, rank)``."""
    return (
        f"(SELECT {column} FROM {_ENTRY} x WHERE x.ranking_list_id = %(list)s "  # noqa: S608
        f"AND x.rank >= {rank} ORDER BY x.rank LIMIT 1)"
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a FLADUB would stand in a list, and a player's own entry in it."""

    above: int
    """How many entries have a FLADUB strictly above it."""
    entry: EntryInfo | None
    """The player's entry (None: not listed)."""


def _binary_search() -> str:
    """The recursive query ``s(lo, hi, above)`` of :func:`standing`'s binary search over
    the ranks of list ``%(list)s`` (``%(stop)s`` = entries + 1) for ``%(cents)s``. Each
    step narrows the ranks ``lo..hi`` in which the rank of the first entry at or below
    ``cents`` lies; ``above``: the first entry from the middle rank on is above ``cents``
    (so that rank lies after the middle)."""

    def above(rank: str) -> str:
        probe = _first_from(rank, "CASE WHEN x.fladub_cents > %(cents)s THEN 1 ELSE 0 END")
        return f"COALESCE({probe}, 0)"

    mid = "(s.lo + s.hi) / 2"
    lo = f"(CASE WHEN s.above = 1 THEN {mid} + 1 ELSE s.lo END)"
    hi = f"(CASE WHEN s.above = 1 THEN s.hi ELSE {mid} END)"
    return (
        "WITH RECURSIVE s(lo, hi, above) AS ("  # noqa: S608 - placeholders only
        f"SELECT 1, %(stop)s, {above('(1 + %(stop)s) / 2')} "
        f"UNION ALL SELECT {lo}, {hi}, {above(f'({lo} + {hi}) / 2')} FROM s WHERE s.lo < s.hi)"
    )


STANDING = Select(
    Standing,
    above=f"COALESCE({_first_from('s.lo', 'x.rank - 1')}, %(entries)s)",
    entry=ENTRY_INFO,
)


def standing(list_id: int, entry_count: int, cents: int, player_pk: int) -> Statement:
    """One :class:`Standing`: how many entries of the list (of ``entry_count``) have a
    FLADUB strictly above ``cents``, and the player's entry. A list's FLADUB falls as its
    rank rises (ties share a rank, the next rank leaves a gap), so the count is the rank of
    the first entry at or below ``cents``, minus 1: a binary search over the ranks in the
    database (a recursive query: about ``log2(entry_count) + 2`` probes of
    ``(ranking_list, rank)``, no scan), and one probe of ``(ranking_list, player)``: one
    round trip."""
    return Statement(
        f"{_binary_search()} SELECT {STANDING.sql} FROM s "  # noqa: S608 - placeholders only
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = %(list)s AND e.player_id = %(player)s "
        "WHERE s.lo >= s.hi",
        {
            "list": list_id,
            "cents": cents,
            "entries": entry_count,
            "stop": entry_count + 1,
            "player": player_pk,
        },
    )


@dataclass(frozen=True, slots=True)
class ListEntry:
    list_id: int
    entry: EntryInfo


LIST_ENTRY = Select(ListEntry, list_id="e.ranking_list_id", entry=ENTRY_INFO)


def entries_of(player_pk: int, list_ids: Collection[int]) -> Statement:
    """:class:`ListEntry` of the player's entries in the given lists (at least one): a
    probe of ``(ranking_list, player)`` each."""
    marks, params = named_list("list", sorted(list_ids))
    return Statement(
        f"SELECT {LIST_ENTRY.sql} FROM {_ENTRY} e "  # noqa: S608 - placeholders only
        f"WHERE e.ranking_list_id IN ({marks}) AND e.player_id = %(player)s",
        {**params, "player": player_pk},
    )


def published_list(discipline: str, month: Month, edition: int | None = None) -> Statement:
    """The discipline's published list of ``month`` (one row or none): its latest version,
    or version ``edition`` (the latest or a superseded one)."""
    params: Params = {"discipline": discipline, "month": month.first_day, "published": PUBLISHED}
    which = "l.status = %(published)s"
    if edition is not None:
        which = "l.edition = %(edition)s AND l.status IN (%(published)s, %(superseded)s)"
        params.update(edition=edition, superseded=SUPERSEDED)
    return Statement(
        f"SELECT {LIST_INFO.sql} FROM {_LIST} l WHERE l.discipline = %(discipline)s "  # noqa: S608
        f"AND l.month = %(month)s AND {which}",
        params,
    )


@dataclass(frozen=True, slots=True)
class ProjectionStanding:
    """A discipline's projected list and a player's entry in it (None: not on it)."""

    ranking_list: ProjectionRow
    entry: EntryInfo | None


PROJECTION_STANDING = Select(ProjectionStanding, ranking_list=PROJECTION_ROW, entry=ENTRY_INFO)


@dataclass(frozen=True, slots=True)
class Published:
    """A published list, and whether it is its discipline's current one."""

    ranking_list: ListInfo
    pointer: int | None
    """The discipline's current pointer, if it is on this list."""

    @property
    def current(self) -> bool:
        return self.pointer is not None


PUBLISHED_LIST = Select(Published, ranking_list=LIST_INFO, pointer="cl.id")


def published_lists(discipline: str | None) -> Statement:
    """:class:`Published` of every published list (of one discipline, or all), newest
    month first."""
    where = "l.status = %(published)s"
    params: Params = {"published": PUBLISHED}
    if discipline is not None:
        where += " AND l.discipline = %(discipline)s"
        params["discipline"] = discipline
    return Statement(
        f"SELECT {PUBLISHED_LIST.sql} FROM {_LIST} l "  # noqa: S608
        f"LEFT JOIN {_CURRENT} cl ON cl.ranking_list_id = l.id AND cl.discipline = l.discipline "
        f"WHERE {where} ORDER BY l.month DESC, l.discipline",
        params,
    )


def recent_versions(limit: int) -> Statement:
    """:class:`ListInfo` of the ``limit`` most recently published lists, every version
    (superseded ones too: each was announced once), newest publication first."""
    return Statement(
        f"SELECT {LIST_INFO.sql} FROM {_LIST} l "  # noqa: S608 - placeholders only
        "WHERE l.status IN (%(published)s, %(superseded)s) AND l.published_at IS NOT NULL "
        "ORDER BY l.published_at DESC, l.id DESC LIMIT %(limit)s",
        {"published": PUBLISHED, "superseded": SUPERSEDED, "limit": int(limit)},
    )


@dataclass(frozen=True, slots=True)
class Current:
    """A discipline's current list and a player's entry in it (None: not on it)."""

    ranking_list: ListInfo
    entry: EntryInfo | None


CURRENT = Select(Current, ranking_list=LIST_INFO, entry=ENTRY_INFO)


def current_lists(player_pk: int | None) -> Statement:
    """:class:`Current` of every discipline: the published list its pointer is on and,
    for a player, their entry in it (a probe of ``entry_once_per_list`` per discipline)."""
    return Statement(
        f"SELECT {CURRENT.sql} "  # noqa: S608
        f"FROM {_CURRENT} cl "
        f"JOIN {_LIST} l ON l.id = cl.ranking_list_id AND l.status = %(published)s "
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %(player)s "
        "ORDER BY l.discipline",
        {"published": PUBLISHED, "player": player_pk},
    )


# --- a player -----------------------------------------------------------------------------------


def player_by_id(player_id: str) -> Statement:
    """The player of a federation id with their club (left join)."""
    return Statement(
        f"SELECT {columns('p', PLAYER_FIELDS)}, {columns('c', CLUB_FIELDS)} "  # noqa: S608
        f"FROM {_PLAYER} p LEFT JOIN {_CLUB} c ON c.id = p.club_id "
        "WHERE p.player_id = %(player_id)s",
        {"player_id": player_id},
    )


def players_by_ids(player_ids: Collection[str]) -> Statement:
    """:data:`PLAYER_FIELDS` of the players of the given federation ids (at least one) that
    were not merged into another."""
    marks, params = named_list("player_id", sorted(player_ids))
    return Statement(
        f"SELECT {columns('p', PLAYER_FIELDS)} FROM {_PLAYER} p "  # noqa: S608
        f"WHERE p.player_id IN ({marks}) AND p.merged_into_id IS NULL",
        params,
    )


def player_by_pk(pk: int) -> Statement:
    """The player of a primary key with their club (following a merge)."""
    return Statement(
        f"SELECT {columns('p', PLAYER_FIELDS)}, {columns('c', CLUB_FIELDS)} "  # noqa: S608
        f"FROM {_PLAYER} p LEFT JOIN {_CLUB} c ON c.id = p.club_id WHERE p.id = %(pk)s",
        {"pk": pk},
    )


def player_disciplines(player_pk: int) -> Statement:
    """The disciplines in which a player has any result (index-only on ``member_player``)."""
    return Statement(
        f"SELECT DISTINCT discipline FROM {_MEMBER} WHERE player_id = %(player)s",  # noqa: S608
        {"player": player_pk},
    )


@dataclass(frozen=True, slots=True)
class HistoryPoint(EntryFigures):
    """A published list of a discipline and the player's place in it (rank None and
    FLADUB 0 when the list does not hold them)."""

    month: dt.date
    """The first day of the list's month."""
    entry_count: int
    """Players ranked in that list."""
    rank: int | None
    fladub_cents: int
    results_counted: int | None
    previous_rank: int | None
    movement: int | None
    list_id: int
    """The list's id."""

    @property
    def listed(self) -> bool:
        return self.rank is not None

    @property
    def list_month(self) -> Month:
        return Month.of(self.month)

    @property
    def entry(self) -> EntryInfo | None:
        """The player's entry in the list, or None when it does not hold them."""
        if self.rank is None or self.results_counted is None:
            return None
        return EntryInfo(
            self.rank, self.fladub_cents, self.results_counted, self.previous_rank, self.movement
        )


HISTORY = Select.of_table(
    HistoryPoint,
    "e",
    convert={"month": (RankingList, "month")},
    month="l.month",
    entry_count="l.entry_count",
    fladub_cents="COALESCE(e.fladub_cents, 0)",
    list_id="l.id",
)


def player_history(player_pk: int, discipline: str) -> Statement:
    """Every published list of a discipline, oldest first, with a probe for the player's
    entry in each."""
    return Statement(
        f"SELECT {HISTORY.sql} FROM {_LIST} l "  # noqa: S608
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %(player)s "
        "WHERE l.discipline = %(discipline)s AND l.status = %(published)s ORDER BY l.month",
        {"player": player_pk, "discipline": discipline, "published": PUBLISHED},
    )


@dataclass(frozen=True, slots=True)
class RankChangeCounts:
    """Who is above a player in L(R) and in L(R - 1) (:func:`rank_change_counts`)."""

    new_above: int
    """Above the player in L(R), not in L(R - 1)."""
    was_above: int
    """Above the player in both lists."""
    gone_above: int
    """Above the player in L(R - 1), not in L(R)."""


RANK_CHANGE_COUNTS = Select(
    RankChangeCounts,
    new_above="count(*) FILTER (WHERE b.rank IS NULL)",
    was_above="count(*) FILTER (WHERE b.rank < %(rank_before)s)",
    gone_above=(
        f"(SELECT count(*) FROM {_ENTRY} o "  # noqa: S608 - table names only
        "WHERE o.ranking_list_id = %(previous)s AND o.rank < %(rank_before)s "
        f"AND NOT EXISTS (SELECT 1 FROM {_ENTRY} n "
        "WHERE n.ranking_list_id = %(list)s AND n.player_id = o.player_id))"
    ),
)


RANK_CHANGE_NARROW_UP_TO = 10_000
"""Both ranks at most this: :func:`rank_change_counts` compares the two lists' heads."""

_RANK_CHANGE_HEADS = (
    f"WITH a AS MATERIALIZED (SELECT player_id FROM {_ENTRY} "  # noqa: S608
    "WHERE ranking_list_id = %(list)s AND rank < %(rank_now)s), "
    f"b AS MATERIALIZED (SELECT player_id FROM {_ENTRY} "
    "WHERE ranking_list_id = %(previous)s AND rank < %(rank_before)s) "
    "SELECT (SELECT count(*) FROM a WHERE NOT EXISTS "
    "(SELECT 1 FROM b WHERE b.player_id = a.player_id) AND NOT EXISTS "
    f"(SELECT 1 FROM {_ENTRY} x WHERE x.ranking_list_id = %(previous)s "
    "AND x.player_id = a.player_id)), "
    "(SELECT count(*) FROM a JOIN b ON b.player_id = a.player_id), "
    "(SELECT count(*) FROM b WHERE NOT EXISTS "
    "(SELECT 1 FROM a WHERE a.player_id = b.player_id) AND NOT EXISTS "
    f"(SELECT 1 FROM {_ENTRY} n WHERE n.ranking_list_id = %(list)s "
    "AND n.player_id = b.player_id))"
)


def rank_change_counts(
    previous_id: int, list_id: int, *, rank_before: int, rank_now: int
) -> Statement:
    """:class:`RankChangeCounts` of a player ranked ``rank_before`` in L(R - 1) and
    ``rank_now`` in L(R) (one row). A smaller rank is a strictly larger FLADUB, so the
    ``(ranking_list, rank)`` order bounds each side to the entries above the player.

    Near the top (both ranks at most :data:`RANK_CHANGE_NARROW_UP_TO`) the two heads are
    read (index-only) and matched by a hash: only the players in one head and not the
    other are looked up in the other list (a player ranked 589 and 594 before: 25 probes
    instead of 1,181, 2.2 against 4.9 ms on the 1M list). Further down, every player above
    in L(R) is one probe of ``(ranking_list, player)`` in L(R - 1), and those above in
    L(R - 1) are matched against L(R) whole (a head of 130,000 would be probed row by
    row)."""
    params = {
        "previous": previous_id,
        "list": list_id,
        "rank_before": rank_before,
        "rank_now": rank_now,
    }
    if max(rank_before, rank_now) <= RANK_CHANGE_NARROW_UP_TO:
        return Statement(_RANK_CHANGE_HEADS, params)
    return Statement(
        f"SELECT {RANK_CHANGE_COUNTS.sql} FROM {_ENTRY} e "  # noqa: S608 - table names only
        f"LEFT JOIN {_ENTRY} b ON b.ranking_list_id = %(previous)s AND b.player_id = e.player_id "
        "WHERE e.ranking_list_id = %(list)s AND e.rank < %(rank_now)s",
        params,
    )


# --- a page of a list ---------------------------------------------------------------------------

Cursor = tuple[int, int]
"""A place in a list: (rank, entry id). Entries are stored in list order, so (rank, id)
orders a list exactly as the export's (rank, federation id) does."""


@dataclass(frozen=True, slots=True)
class ListRow(EntryInfo):
    """One row of a list as the ranking table and the API show it: an entry with its
    player and the player's club."""

    id: int
    player_id: str
    name: str
    country: str
    club_id: str | None
    club_name: str | None

    @property
    def cursor(self) -> Cursor:
        return (self.rank, self.id)


LIST_ROW = Select.of_table(
    ListRow,
    "e",
    player_id="p.player_id",
    name="p.name",
    country="p.country",
    club_id="c.club_id",
    club_name="c.name",
)
_ROW_JOINS = f"JOIN {_PLAYER} p ON p.id = e.player_id LEFT JOIN {_CLUB} c ON c.id = p.club_id"


def numbered_page(list_id: int, *, position: int, size: int) -> Statement:
    """``size`` rows of a whole list from ``position`` (1-based) on, with their players and
    clubs, in one statement: the anchor (the largest rank at or before the position: the
    first entry of a group of equal FLADUB sits at the position equal to its rank), the
    skip inside its group (index-only on ``entry_list_order``), then the rows."""
    anchor = (
        f"(SELECT rank FROM {_ENTRY} WHERE ranking_list_id = %(list)s "  # noqa: S608
        "AND rank <= %(position)s ORDER BY rank DESC LIMIT 1)"
    )
    return Statement(
        f"SELECT {LIST_ROW.sql} FROM ("  # noqa: S608 - table names and fixed SQL only
        f"SELECT id FROM {_ENTRY} WHERE ranking_list_id = %(list)s AND rank >= {anchor} "
        f"ORDER BY rank, id LIMIT %(size)s OFFSET %(position)s - {anchor}"
        f") page JOIN {_ENTRY} e ON e.ranking_list_id = %(list)s AND e.id = page.id "
        f"{_ROW_JOINS} ORDER BY e.rank, e.id",
        {"list": list_id, "position": position, "size": size},
    )


def rows_by_ids(list_id: int, entry_ids: Collection[int]) -> Statement:
    """The rows of the given entries (at least one) of list ``list_id``, in list order."""
    marks, params = named_list("entry", entry_ids)
    return Statement(
        f"SELECT {LIST_ROW.sql} FROM {_ENTRY} e {_ROW_JOINS} "  # noqa: S608 - placeholders only
        f"WHERE e.ranking_list_id = %(list)s AND e.id IN ({marks}) ORDER BY e.rank, e.id",
        {**params, "list": list_id},
    )


@dataclass(frozen=True, slots=True)
class ListedRow:
    list_id: int
    row: ListRow


LISTED_ROW = Select(ListedRow, list_id="e.ranking_list_id", row=LIST_ROW)


def top_rows(list_ids: Collection[int], max_rank: int) -> Statement:
    """:class:`ListedRow` of the entries of rank <= ``max_rank`` of the given lists (at
    least one), in list order: the podium of each."""
    marks, params = named_list("list", sorted(list_ids))
    return Statement(
        f"SELECT {LISTED_ROW.sql} FROM {_ENTRY} e {_ROW_JOINS} "  # noqa: S608
        f"WHERE e.ranking_list_id IN ({marks}) AND e.rank <= %(max_rank)s "
        "ORDER BY e.ranking_list_id, e.rank, e.id",
        {**params, "max_rank": max_rank},
    )


@dataclass(frozen=True)
class Condition:
    """A piece of SQL with its named parameters (a condition on players or entries)."""

    sql: str
    params: Params


def player_condition(*, q: str, country: str, club: str) -> Condition:
    """The condition a filter puts on the players table (aliased ``p``): the ORM's lookups
    (``iexact`` country upper-cased, the club by club id, a name ``icontains`` or a
    federation id ``iexact``), spelled with the database backend's own lookup operators so
    that each database matches exactly as the ORM does. An empty filter matches all."""
    parts: list[str] = []
    params: Params = {}
    if country:
        parts.append("p.country = %(country)s")
        params["country"] = country.upper()
    if club:
        parts.append(f"p.club_id IN (SELECT id FROM {_CLUB} WHERE club_id = %(club)s)")  # noqa: S608
        params["club"] = club
    if q:
        parts.append(_name_or_id(q, params))
    return Condition(" AND ".join(parts) or "1 = 1", params)


def _name_or_id(q: str, params: Params) -> str:
    """A name containing ``q`` (``icontains``) or the federation id ``q`` (``iexact``).

    A search of several words looks its longest word up in the name's trigram index and
    checks the whole text on the names found, spelled so that no index serves it
    (``p.name || ''``): the index would otherwise intersect the posting lists of every
    trigram of the text, and a word in very many names (in the generated registry,
    "Player" is in all million) costs as much as the whole index. The same names match.
    """
    ops, operators = connection.ops, connection.operators
    contains, exact = operators["icontains"], operators["iexact"]
    name = ops.lookup_cast("icontains", "CharField") % "p.name"
    player_id = ops.lookup_cast("iexact", "CharField") % "p.player_id"
    params["name_like"] = f"%{ops.prep_for_like_query(q)}%"
    params["player_id_exact"] = ops.prep_for_iexact_query(q)
    words = q.split()
    longest = max(words, key=len) if words else q
    if longest == q:
        named = f"{name} {contains % '%(name_like)s'}"
    else:
        whole = ops.lookup_cast("icontains", "CharField") % "(p.name || '')"
        params["name_word"] = f"%{ops.prep_for_like_query(longest)}%"
        named = f"{name} {contains % '%(name_word)s'} AND {whole} {contains % '%(name_like)s'}"
    return f"({named} OR {player_id} {exact % '%(player_id_exact)s'})"


@dataclass(frozen=True, slots=True)
class Matching:
    count: int
    """How many registered players match (at most ``many`` + 1)."""
    ids: str | None
    """Their ids, comma-separated, when not more than ``many`` (else None)."""


def matching() -> Select[Matching]:
    """The select list of :func:`matching_players` (its string aggregate is the backend's)."""
    ids = "array_to_string(array_agg(m.id), ',')" if postgres() else "group_concat(m.id, ',')"
    return Select(Matching, count="count(*)", ids=f"CASE WHEN count(*) <= %(many)s THEN {ids} END")


def matching_players(condition: Condition, *, many: int) -> Statement:
    """:class:`Matching` (one row, :func:`matching`): the ids go back to the database as
    they came, so that thousands of them cost no Python objects."""
    return Statement(
        f"SELECT {matching().sql} FROM "  # noqa: S608
        f"(SELECT p.id FROM {_PLAYER} p WHERE {condition.sql} LIMIT %(look)s) m",
        {**condition.params, "many": many, "look": many + 1},
    )


@dataclass(frozen=True, slots=True)
class Place:
    """Where an entry stands in its list."""

    rank: int
    id: int


PLACE = Select(Place, rank="e.rank", id="e.id")


def places_of(list_id: int, ids: str) -> Statement:
    """:class:`Place` of the entries of the players ``ids`` (comma-separated digits) in a
    list.

    On PostgreSQL the ids travel as one array; each id is a lateral probe of the covering
    unique index ``(ranking_list, player) INCLUDE (rank, id)``, kept a probe by the
    ``OFFSET 0`` fence whatever the statistics say: a new list has none until it is
    analysed, and a plain join (or ``= ANY``) was then planned as a walk of the whole list,
    seconds instead of a millisecond. No plan time is spent on thousands of literals.
    """
    placed, params = _placed(list_id, ids)
    return Statement(f"SELECT {PLACE.sql} FROM {placed}", params)  # noqa: S608


def _placed(list_id: int, ids: str) -> tuple[str, Params]:
    """The ``FROM`` of the entries ``e`` (rank and id) of the players ``ids`` in a list
    (:func:`places_of`), and its parameters."""
    _check_ids(ids)
    if postgres():
        return (
            f"unnest(CAST(%(ids)s AS bigint[])) AS u(player) "  # noqa: S608
            f"CROSS JOIN LATERAL (SELECT x.rank, x.id FROM {_ENTRY} x "
            "WHERE x.ranking_list_id = %(list)s AND x.player_id = u.player OFFSET 0) e",
            {"ids": f"{{{ids}}}", "list": list_id},
        )
    marks, params = named_list("player", [int(i) for i in ids.split(",")])
    return (
        f"{_ENTRY} e WHERE e.ranking_list_id = %(list)s AND e.player_id IN ({marks})",
        {"list": list_id, **params},
    )


@dataclass(frozen=True, slots=True)
class PlacedRow:
    """A row of a page of the entries of some players, and how many entries they have."""

    row: ListRow
    total: int


PLACED_ROW = Select(PlacedRow, row=LIST_ROW, total="placed.total")


def placed_page(list_id: int, ids: str, *, offset: int, limit: int) -> Statement:
    """:class:`PlacedRow` of the entries ``offset`` to ``offset + limit`` in list order of
    the players ``ids`` in a list, each with the number of all of them (none: the page is
    after the last). The places are :func:`places_of`'s probes; they are counted, sorted
    and cut in the database, and only the page's rows are joined to their players."""
    placed, params = _placed(list_id, ids)
    return Statement(
        f"SELECT {PLACED_ROW.sql} FROM ("  # noqa: S608 - fixed SQL
        f"SELECT e.id, count(*) OVER () AS total FROM {placed} "
        "ORDER BY e.rank, e.id LIMIT %(limit)s OFFSET %(offset)s"
        f") placed JOIN {_ENTRY} e ON e.ranking_list_id = %(list)s AND e.id = placed.id "
        f"{_ROW_JOINS} ORDER BY e.rank, e.id",
        {**params, "limit": limit, "offset": offset},
    )


def in_id_set(ids: str, condition: Condition) -> Condition:
    """An entry's (``e``) player is among ``ids`` (the matching players, all of them).

    PostgreSQL: ``= ANY`` of an array constant, which the executor hashes once (a
    fraction of a microsecond per entry). The array is written into the statement, not
    bound as a parameter, so that it is a constant however the driver binds (PostgreSQL
    hashes constant arrays only); it is the database's own list of ids, checked to be
    digits and commas. The ``+ 0`` keeps the planner from estimating each of thousands of
    ids on the column's statistics and from pricing an index scan per id (milliseconds of
    planning at 20,000 ids). Elsewhere: the players' condition as a subquery (SQLite
    builds a set of it once).
    """
    _check_ids(ids)
    if postgres():
        return Condition(f"e.player_id + 0 = ANY('{{{ids}}}'::bigint[])", {})
    return Condition(
        f"e.player_id IN (SELECT p.id FROM {_PLAYER} p WHERE {condition.sql})",  # noqa: S608
        condition.params,
    )


def by_probe(condition: Condition) -> Condition:
    """An entry's (``e``) player matches ``condition``, checked by a probe per entry.

    The ``OFFSET 0`` (PostgreSQL) keeps the subquery from being turned into a join, so
    that each entry is one probe on the best index for the condition: for a country the
    ``(country, id)`` index, index-only, instead of the player's row (a name is checked
    on the row whatever the plan).
    """
    fence = " OFFSET 0" if postgres() else ""
    return Condition(
        f"EXISTS (SELECT 1 FROM {_PLAYER} p WHERE p.id = e.player_id "  # noqa: S608
        f"AND {condition.sql}{fence})",
        condition.params,
    )


def walk(
    list_id: int,
    check: Condition,
    *,
    cursor: Cursor | None,
    backwards: bool,
    limit: int,
    skip: int = 0,
) -> Statement:
    """Up to ``limit`` rows passing ``check`` after (or before) ``cursor``, nearest first,
    the first ``skip`` of them skipped: the walk reads ``entry_list_order`` (index-only,
    with the player included) and only the rows it keeps are joined to their players and
    clubs."""
    order = "e.rank DESC, e.id DESC" if backwards else "e.rank, e.id"
    params: Params = {**check.params, "list": list_id, "limit": limit}
    bound = ""
    if cursor is not None:
        bound = f"AND (e.rank, e.id) {'<' if backwards else '>'} (%(cursor_rank)s, %(cursor_id)s)"
        params.update(cursor_rank=cursor[0], cursor_id=cursor[1])
    offset = ""
    if skip:
        offset = " OFFSET %(skip)s"
        params["skip"] = skip
    return Statement(
        f"SELECT {LIST_ROW.sql} FROM ("  # noqa: S608 - fixed SQL and the filter's condition
        f"SELECT e.id FROM {_ENTRY} e WHERE e.ranking_list_id = %(list)s {bound} "
        f"AND {check.sql} ORDER BY {order} LIMIT %(limit)s{offset}"
        f") walked JOIN {_ENTRY} e ON e.ranking_list_id = %(list)s AND e.id = walked.id "
        f"{_ROW_JOINS} ORDER BY {order}",
        params,
    )


def count_passing(list_id: int, check: Condition) -> Statement:
    """How many entries of a list pass ``check`` (:class:`Count`)."""
    return Statement(
        f"SELECT {COUNT.sql} FROM {_ENTRY} e "  # noqa: S608 - fixed SQL and the condition
        f"WHERE e.ranking_list_id = %(list)s AND {check.sql}",
        {**check.params, "list": list_id},
    )


def _check_ids(ids: str) -> None:
    if not _ID_LIST.fullmatch(ids):
        raise ValueError("ids must be comma-separated digits")


def countries() -> Statement:
    """The countries of the registry. On PostgreSQL a loose index scan (a recursive query
    jumping from one country to the next through the ``(country, id)`` index) reads one
    index entry per country instead of every player."""
    if postgres():
        return Statement(
            f"""
            WITH RECURSIVE c(country) AS (
                (SELECT country FROM {_PLAYER} ORDER BY country LIMIT 1)
                UNION ALL
                SELECT (SELECT p.country FROM {_PLAYER} p
                        WHERE p.country > c.country ORDER BY p.country LIMIT 1)
                FROM c WHERE c.country IS NOT NULL
            )
            SELECT country FROM c WHERE country IS NOT NULL
            """  # noqa: S608 - table names only
        )
    return Statement(f"SELECT DISTINCT country FROM {_PLAYER} ORDER BY country")  # noqa: S608


@dataclass(frozen=True, slots=True)
class ClubChoice:
    club_id: str
    name: str
    country: str


CLUB_CHOICE = Select(ClubChoice, club_id="club_id", name="name", country="country")


def clubs_by_id(limit: int) -> Statement:
    """:class:`ClubChoice` of the first ``limit`` clubs by club id."""
    return Statement(
        f"SELECT {CLUB_CHOICE.sql} FROM {_CLUB} ORDER BY club_id LIMIT %(limit)s",  # noqa: S608
        {"limit": limit},
    )


# --- the difference between two lists ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiffRow(TwoListsMove):
    """A player whose place or FLADUB differs between two lists (None: not on that list)."""

    player_id: str
    name: str
    old_rank: int | None
    new_rank: int | None
    old_cents: int | None
    new_cents: int | None


DIFF_ROW = Select(
    DiffRow,
    player_id="p.player_id",
    name="p.name",
    old_rank="d.old_rank",
    new_rank="d.new_rank",
    old_cents="d.old_f",
    new_cents="d.new_f",
)
# Every player of either list with both places (a UNION of two probes on the index
# (ranking_list, player): SQLite before 3.39 has no FULL JOIN), then only the changed ones.
_DIFF = (
    "FROM (SELECT o.player_id AS pk, o.rank AS old_rank, o.fladub_cents AS old_f, "  # noqa: S608
    f"n.rank AS new_rank, n.fladub_cents AS new_f FROM {_ENTRY} o "
    f"LEFT JOIN {_ENTRY} n ON n.ranking_list_id = %(new)s AND n.player_id = o.player_id "
    "WHERE o.ranking_list_id = %(old)s "
    "UNION ALL SELECT n.player_id, NULL, NULL, n.rank, n.fladub_cents "
    f"FROM {_ENTRY} n WHERE n.ranking_list_id = %(new)s AND NOT EXISTS "
    f"(SELECT 1 FROM {_ENTRY} o WHERE o.ranking_list_id = %(old)s AND o.player_id = n.player_id)"
    f") d JOIN {_PLAYER} p ON p.id = d.pk "
    "WHERE d.old_rank IS NULL OR d.new_rank IS NULL OR d.old_rank <> d.new_rank "
    "OR d.old_f <> d.new_f"
)


def list_diff(old_id: int, new_id: int, *, limit: int, offset: int) -> Statement:
    """The players whose place or FLADUB differs between two lists, in the new list's order
    (then those who left it, in the old list's order): ``limit`` from ``offset``."""
    return Statement(
        f"SELECT {DIFF_ROW.sql} {_DIFF} "
        "ORDER BY d.new_rank IS NULL, d.new_rank, d.old_rank, p.player_id "
        "LIMIT %(limit)s OFFSET %(offset)s",
        {"old": old_id, "new": new_id, "limit": limit, "offset": offset},
    )


def list_diff_count(old_id: int, new_id: int) -> Statement:
    return Statement(f"SELECT count(*) {_DIFF}", {"old": old_id, "new": new_id})


# --- two players: their shared matches (head-to-head) ------------------------------------------


@dataclass(frozen=True, slots=True)
class SharedMatch:
    """A match both players sat at, with each one's side and score (the head-to-head)."""

    match_id: int
    date_played: dt.date
    side_a: int
    score_a: int
    side_b: int
    score_b: int


SHARED_MATCH = Select(
    SharedMatch,
    convert={"date_played": (Match, "date_played")},
    match_id="s.match_id",
    date_played="x.date_played",
    side_a="s.side_position",
    score_a="s.score",
    side_b="t.side_position",
    score_b="t.score",
)


def shared_matches(player_a: int, player_b: int, discipline: str) -> Statement:
    """:class:`SharedMatch` of every match of ``discipline`` at which both players sat,
    newest first, except voided ones (a correction voids the revision it replaces, so a
    superseded revision is left out too): ``a``'s results on the ``member_player`` index,
    ``b``'s seat in each on ``member_once_per_match``."""
    return Statement(
        f"SELECT {SHARED_MATCH.sql} FROM {_MEMBER} s "  # noqa: S608
        f"JOIN {_MEMBER} t ON t.match_id = s.match_id AND t.player_id = %(b)s "
        f"JOIN {_MATCH} x ON x.id = s.match_id "
        "WHERE s.player_id = %(a)s AND s.discipline = %(discipline)s "
        "AND s.void_effective_month IS NULL "
        "ORDER BY x.date_played DESC, s.match_id DESC",
        {"a": player_a, "b": player_b, "discipline": discipline},
    )


# --- a player in every version of every list (the player's feed) --------------------------------


@dataclass(frozen=True, slots=True)
class ListStanding:
    """A published or superseded list version and the player's place in it (rank None
    and FLADUB 0 when it does not hold them)."""

    list_id: int
    discipline: str
    month: dt.date
    edition: int | None
    published_at: dt.datetime | None
    entry_count: int
    rank: int | None
    fladub_cents: int

    @property
    def list_month(self) -> Month:
        return Month.of(self.month)


LIST_STANDING = Select(
    ListStanding,
    convert={"month": (RankingList, "month"), "published_at": (RankingList, "published_at")},
    list_id="l.id",
    discipline="l.discipline",
    month="l.month",
    edition="l.edition",
    published_at="l.published_at",
    entry_count="l.entry_count",
    rank="e.rank",
    fladub_cents="COALESCE(e.fladub_cents, 0)",
)


def player_standings(player_pk: int) -> Statement:
    """Every version of every list ever published (the latest and the superseded ones),
    per discipline in (month, version) order (a later version has a higher id), with a
    probe for the player's entry."""
    return Statement(
        f"SELECT {LIST_STANDING.sql} FROM {_LIST} l "  # noqa: S608
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %(player)s "
        "WHERE l.status IN (%(published)s, %(superseded)s) "
        "ORDER BY l.discipline, l.month, l.id",
        {"player": player_pk, "published": PUBLISHED, "superseded": SUPERSEDED},
    )


@dataclass(frozen=True, slots=True)
class PublicationMark:
    """What changes whenever a list version is published: the newest one's id and the
    number of versions (the player feed's ETag)."""

    last_id: int | None
    versions: int


PUBLICATION_MARK = Select(PublicationMark, last_id="max(l.id)", versions="count(*)")


def publication_mark() -> Statement:
    return Statement(
        f"SELECT {PUBLICATION_MARK.sql} FROM {_LIST} l "  # noqa: S608
        "WHERE l.status IN (%(published)s, %(superseded)s)",
        {"published": PUBLISHED, "superseded": SUPERSEDED},
    )
