"""The ranking page's read queries: a page of a published list, whole or filtered, and
what the page shows around it.

In: a discipline and maybe a month (:func:`discipline_lists`: the current list, the
month's list, every published month), then a published
:class:`~rankings.models.RankingList`, a page number or a cursor, and the reader's filters
(a name or federation id, a country, a club). Out: a :class:`RankingPage` of
:class:`ListRow` (what the table shows: rank, movement, FLADUB, results counted, the
player and their club), in list order; the filters' choices (:func:`country_choices`,
:func:`club_choices`). Guaranteed: one query for a page of the whole list, two or three
for a filtered view, one each for the lists and the two choices, whatever the list's size
or the page's depth; never a ``COUNT(*)`` over a list (its ``entry_count`` is stored), and
each query a bounded amount of index work. The SQL is written out (:mod:`rankings.raw`)
because a page is a few fixed statements whose compiling in the ORM cost more CPU than
running them; the conditions on the players mirror the lookups of
:func:`rankings.selectors.list_entries` (``iexact`` country, club by club id, a name
``icontains`` or a federation id ``iexact``), spelled with the database backend's own
lookup operators so that each database matches exactly as the ORM does.

List order. The writer stores a list's entries in list order (FLADUB descending, then
federation id), so within a list (rank, entry id) is the export's (rank, federation id),
and the ``(ranking_list, rank, id) INCLUDE (player_id)`` index ``entry_list_order``
(migration 0003) serves it without reading the players. Groups of equal FLADUB can hold
tens of thousands of players, so pages never sort or skip a group through the players.

A whole list has page numbers: the first entry of a group of equal FLADUB sits at the
position equal to its rank, so page ``n`` starts at the largest rank ``r <= offset + 1``
and skips ``offset + 1 - r`` index entries of that group; one statement finds the anchor,
skips, and reads the 50 rows with their players and clubs.

A filtered view pages by cursor (the next 50 matches after a (rank, id)). How its page is
found is decided from a bounded look at the matching registered players (at most
:data:`MANY_PLAYERS` + 1 ids, read as one string), not left to the planner's estimate:

- at most :data:`EXACT_MATCHES`: their places are read by player (one index-only probe
  each on ``entry_once_per_list``), sorted, counted exactly and cut at the cursor;
- at most :data:`MANY_PLAYERS`: the list is walked in order from the cursor on
  ``entry_list_order`` alone, each entry's player checked against the ids (on
  PostgreSQL an array constant, which the executor hashes: a fraction of a microsecond
  per entry passed). The page says how many registered players match (not all need be
  on the list); counting the listed ones would mean a probe per player again;
- more: the list is walked from the cursor, each entry's player checked by a probe (a
  country on the ``(country, id)`` index, index-only; a name or a club on the player's
  row). With that many matching, a page passes a few thousand entries, usually far fewer.

Below :data:`EXACT_MATCHES` a probe per player is cheaper than a walk, above it the walk
(on a list of a million, 50 matches among 2,000 players are some 25,000 entries apart).
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from matches.models import Club, Player
from matches.months import Month

from . import raw
from .models import CurrentList, RankingEntry, RankingList

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
EXACT_MATCHES = 2_000
"""A filter matching at most this many registered players reads their places by player
and counts the matches on the list exactly."""
MANY_PLAYERS = 20_000
"""The bounded look at the matching registered players: up to this many, the list is
walked against their ids; more, against an index probe per entry."""
MIN_NAME_SEARCH = 3
"""Shorter name searches are refused (no index narrows "an" or "li"; ids are exempt)."""


_ENTRY = RankingEntry._meta.db_table
_PLAYER = Player._meta.db_table
_CLUB = Club._meta.db_table
_LIST = RankingList._meta.db_table
_CURRENT = CurrentList._meta.db_table
_LIST_FIELDS = raw.fields(RankingList)
_ROW = (
    "e.id, e.rank, e.fladub_cents, e.results_counted, e.previous_rank, e.movement, "
    "p.player_id, p.name, p.country, c.club_id, c.name"
)
_JOINS = f"JOIN {_PLAYER} p ON p.id = e.player_id LEFT JOIN {_CLUB} c ON c.id = p.club_id"

Condition = tuple[str, list[Any]]
"""A piece of SQL with its parameters."""
_ID_LIST = re.compile(r"[0-9]+(,[0-9]+)*")


class PageOutOfRange(LookupError):
    """The requested page lies beyond the last page."""


@dataclass(frozen=True)
class RankingFilters:
    """What a reader narrowed the list to: a name (or federation id), a country, a club."""

    q: str = ""
    country: str = ""
    club: str = ""

    @property
    def active(self) -> bool:
        return bool(self.q or self.country or self.club)


Cursor = tuple[int, int]
"""A place in a list: (rank, entry id). Entries are stored in list order, so (rank, id)
orders a list exactly as the export's (rank, federation id) does."""


@dataclass(frozen=True, slots=True)
class ListRow:
    """One row of the ranking table: an entry with its player and the player's club."""

    id: int
    rank: int
    fladub_cents: int
    results_counted: int
    previous_rank: int | None
    movement: int | None
    player_id: str
    name: str
    country: str
    club_id: str | None
    club_name: str | None

    @property
    def cursor(self) -> Cursor:
        return (self.rank, self.id)


@dataclass
class RankingPage:
    """A page of a list. Whole lists have page numbers; filtered views have cursors."""

    entries: list[ListRow]
    page_size: int
    total: int
    """What ``counted`` says: ``"entries"``: entries of the list or of the filtered view;
    ``"registered"``: registered players who match (not all need be on the list);
    ``"more"``: more than this many registered players match."""
    counted: str = "entries"
    number: int | None = None
    """The page number (whole lists only)."""
    next_cursor: Cursor | None = None
    previous_cursor: Cursor | None = None
    """Filtered views: the first entry of this page, to page backwards from."""

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def has_next(self) -> bool:
        if self.number is not None:
            return self.number < self.num_pages
        return self.next_cursor is not None

    @property
    def has_previous(self) -> bool:
        if self.number is not None:
            return self.number > 1
        return self.previous_cursor is not None

    @property
    def first_position(self) -> int | None:
        if self.number is None or not self.entries:
            return None
        return (self.number - 1) * self.page_size + 1

    @property
    def last_position(self) -> int | None:
        first = self.first_position
        return None if first is None else first + len(self.entries) - 1


def ranking_page(
    ranking_list: RankingList,
    *,
    filters: RankingFilters | None = None,
    page: int = 1,
    after: Cursor | None = None,
    before: Cursor | None = None,
    page_size: int = PAGE_SIZE,
) -> RankingPage:
    """A page of a published list, in list order (see the module docstring for how).

    Whole list: page ``page`` (one query); raises :class:`PageOutOfRange` after the last
    page. Filtered: the entries after the cursor ``after`` (or before ``before``, or from
    the start), in two or three queries.
    """
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError("page and page_size must be positive")
    filters = filters or RankingFilters()
    if not filters.active:
        return _numbered_page(ranking_list, page=page, page_size=page_size)
    condition = _player_condition(filters, "p")
    count, ids = _matching_players(condition)
    if count <= EXACT_MATCHES:
        places = _places_of(ranking_list, ids)
        return _page_of_places(places, after=after, before=before, page_size=page_size)
    if count <= MANY_PLAYERS:
        check = _in_id_set(ids, condition)
        found = _walked_page(ranking_list, check, after=after, before=before, size=page_size)
        found.total, found.counted = count, "registered"
        return found
    found = _walked_page(
        ranking_list, _by_probe(condition), after=after, before=before, size=page_size
    )
    found.total, found.counted = MANY_PLAYERS, "more"
    return found


# --- around the table: the discipline's lists, the filters' choices ----------------------------


@dataclass(frozen=True)
class DisciplineLists:
    """The published lists of a discipline as the page shows them."""

    current: RankingList | None
    """The list readers see now (the discipline's current pointer)."""
    of_month: RankingList | None
    """The list of the requested month, if one was requested and is published."""
    months: list[dt.date]
    """Every published list's month, newest first (the month switcher)."""


def discipline_lists(discipline: str, month: Month | None = None) -> DisciplineLists:
    """The current list, the list of ``month`` and every published month of a discipline,
    in one query (a discipline publishes one list a month)."""
    rows = raw.fetch(
        f"SELECT {raw.columns('l', _LIST_FIELDS)}, cl.id FROM {_LIST} l "  # noqa: S608
        f"LEFT JOIN {_CURRENT} cl ON cl.ranking_list_id = l.id AND cl.discipline = l.discipline "
        "WHERE l.discipline = %s AND l.status = %s ORDER BY l.month DESC",
        [discipline, RankingList.Status.PUBLISHED.value],
    )
    current = of_month = None
    months: list[dt.date] = []
    month_index, as_date = _LIST_FIELDS.index("month"), raw.converter(RankingList, "month")
    for row in rows:
        day = as_date(row[month_index])
        months.append(day)
        is_current, is_wanted = row[-1] is not None, month is not None and day == month.first_day
        if is_current or is_wanted:
            found = raw.loaded(RankingList, _LIST_FIELDS, row[:-1])
            if is_current:
                current = found
            if is_wanted:
                of_month = found
    return DisciplineLists(current=current, of_month=of_month, months=months)


def country_choices() -> list[str]:
    """The countries of the registry, for the country filter.

    On PostgreSQL a loose index scan (a recursive query jumping from one country to the next
    through the ``(country, id)`` index) reads one index entry per country instead of every
    player.
    """
    if _postgres():
        rows = raw.fetch(
            f"""
            WITH RECURSIVE c(country) AS (
                (SELECT country FROM {_PLAYER} ORDER BY country LIMIT 1)
                UNION ALL
                SELECT (SELECT p.country FROM {_PLAYER} p
                        WHERE p.country > c.country ORDER BY p.country LIMIT 1)
                FROM c WHERE c.country IS NOT NULL
            )
            SELECT country FROM c WHERE country IS NOT NULL
            """,  # noqa: S608 - table names only
            [],
        )
    else:
        rows = raw.fetch(f"SELECT DISTINCT country FROM {_PLAYER} ORDER BY country", [])  # noqa: S608
    return [country for (country,) in rows]


CLUB_SELECT_LIMIT = 300


def club_choices(limit: int = CLUB_SELECT_LIMIT) -> tuple[list[tuple[str, str]], bool]:
    """Every club by id as (club id, "name (country)") for the club filter, and False; or,
    when there are more than ``limit``, none and True (the page asks for a club id)."""
    rows = raw.fetch(
        f"SELECT club_id, name, country FROM {_CLUB} ORDER BY club_id LIMIT %s",  # noqa: S608
        [limit + 1],
    )
    if len(rows) > limit:
        return [], True
    return [(club_id, f"{name} ({country})") for club_id, name, country in rows], False


# --- the page -------------------------------------------------------------------------------


def _list_rows(sql: str, params: Sequence[Any]) -> list[ListRow]:
    return [ListRow(*row) for row in raw.fetch(sql, params)]


def _numbered_page(ranking_list: RankingList, *, page: int, page_size: int) -> RankingPage:
    """Page ``page`` of the whole list: the anchor (the largest rank at or before the
    page's first position), the skip inside its group (index-only on
    ``entry_list_order``) and the 50 rows with their players and clubs, in one query."""
    total = ranking_list.entry_count
    offset = (page - 1) * page_size
    if offset and offset >= total:
        raise PageOutOfRange(page)
    if not total:
        return RankingPage(entries=[], number=page, page_size=page_size, total=0)
    position = offset + 1
    anchor = (
        f"(SELECT rank FROM {_ENTRY} WHERE ranking_list_id = %s AND rank <= %s "  # noqa: S608
        "ORDER BY rank DESC LIMIT 1)"
    )
    rows = _list_rows(
        f"SELECT {_ROW} FROM ("  # noqa: S608 - table names and fixed SQL only
        f"SELECT id FROM {_ENTRY} WHERE ranking_list_id = %s AND rank >= {anchor} "
        f"ORDER BY rank, id LIMIT %s OFFSET %s - {anchor}"
        f") page JOIN {_ENTRY} e ON e.id = page.id {_JOINS} ORDER BY e.rank, e.id",
        [
            ranking_list.pk,
            *(ranking_list.pk, position),
            page_size,
            position,
            *(ranking_list.pk, position),
        ],
    )
    return RankingPage(entries=rows, number=page, page_size=page_size, total=total)


def _player_condition(filters: RankingFilters, alias: str) -> Condition:
    """The condition a filter puts on the players table (aliased ``alias``)."""
    ops, operators = connection.ops, connection.operators
    parts: list[str] = []
    params: list[Any] = []
    if filters.country:
        parts.append(f"{alias}.country = %s")
        params.append(filters.country.upper())
    if filters.club:
        parts.append(f"{alias}.club_id IN (SELECT id FROM {_CLUB} WHERE club_id = %s)")  # noqa: S608
        params.append(filters.club)
    if filters.q:
        name = ops.lookup_cast("icontains", "CharField") % f"{alias}.name"
        player_id = ops.lookup_cast("iexact", "CharField") % f"{alias}.player_id"
        parts.append(
            f"({name} {operators['icontains'] % '%s'} OR {player_id} {operators['iexact'] % '%s'})"
        )
        params += [f"%{ops.prep_for_like_query(filters.q)}%", ops.prep_for_iexact_query(filters.q)]
    return " AND ".join(parts), params


def _matching_players(condition: Condition) -> tuple[int, str]:
    """How many registered players match (at most :data:`MANY_PLAYERS` + 1) and, when not
    more than :data:`MANY_PLAYERS`, their ids as one comma-separated string: the ids go back
    to the database as they came, so that thousands of them cost the page no Python
    objects."""
    where, params = condition
    ids = "array_to_string(array_agg(m.id), ',')" if _postgres() else "group_concat(m.id, ',')"
    [(count, ids)] = raw.fetch(
        f"SELECT count(*), CASE WHEN count(*) <= %s THEN {ids} END FROM "  # noqa: S608
        f"(SELECT p.id FROM {_PLAYER} p WHERE {where} LIMIT %s) m",
        [MANY_PLAYERS, *params, MANY_PLAYERS + 1],
    )
    return count, ids or ""


def _places_of(ranking_list: RankingList, ids: str) -> list[Cursor]:
    """(rank, id) of the given players' entries in a list, sorted.

    On PostgreSQL the ids travel as one array joined to the covering unique index
    ``(ranking_list, player) INCLUDE (rank, id)``: one index-only probe per player, and no
    plan time spent estimating each of thousands of literals of an ``IN`` list.
    """
    if not ids:
        return []
    if _postgres():
        sql = (
            "SELECT e.rank, e.id FROM unnest(CAST(%s AS bigint[])) AS u(player) "  # noqa: S608
            f"JOIN {_ENTRY} e ON e.player_id = u.player AND e.ranking_list_id = %s"
        )
        return sorted(raw.fetch(sql, [f"{{{ids}}}", ranking_list.pk]))
    player_ids = [int(i) for i in ids.split(",")]
    marks = ", ".join(["%s"] * len(player_ids))
    sql = (
        f"SELECT rank, id FROM {_ENTRY} "  # noqa: S608 - placeholders only
        f"WHERE ranking_list_id = %s AND player_id IN ({marks})"
    )
    return sorted(raw.fetch(sql, [ranking_list.pk, *player_ids]))


def _page_of_places(
    places: list[Cursor],
    *,
    after: Cursor | None,
    before: Cursor | None,
    page_size: int,
) -> RankingPage:
    """A page cut from every (rank, id) of a filtered view, sorted (few players matched)."""
    start = 0 if after is None else bisect.bisect_right(places, after)
    if before is not None:
        start = max(0, bisect.bisect_left(places, before) - page_size)
    chosen = places[start : start + page_size]
    rows: list[ListRow] = []
    if chosen:
        marks = ", ".join(["%s"] * len(chosen))
        rows = _list_rows(
            f"SELECT {_ROW} FROM {_ENTRY} e {_JOINS} "  # noqa: S608 - placeholders only
            f"WHERE e.id IN ({marks}) ORDER BY e.rank, e.id",
            [entry_id for _, entry_id in chosen],
        )
    return RankingPage(
        entries=rows,
        page_size=page_size,
        total=len(places),
        next_cursor=chosen[-1] if start + page_size < len(places) else None,
        previous_cursor=chosen[0] if start > 0 and chosen else None,
    )


def _in_id_set(ids: str, condition: Condition) -> Condition:
    """An entry's player is among ``ids`` (the matching players, all of them).

    PostgreSQL: ``= ANY`` of an array constant, which the executor hashes once (a
    fraction of a microsecond per entry). The array is written into the statement, not
    bound as a parameter, so that it is a constant however the driver binds (PostgreSQL
    hashes constant arrays only); it is the database's own list of ids, checked to be
    digits and commas. The ``+ 0`` keeps the planner from estimating each of thousands of
    ids on the column's statistics and from pricing an index scan per id (milliseconds of
    planning at 20,000 ids). Elsewhere: the players' condition as a subquery (SQLite
    builds a set of it once).
    """
    if not _ID_LIST.fullmatch(ids):
        raise ValueError("ids must be comma-separated digits")
    if _postgres():
        return f"e.player_id + 0 = ANY('{{{ids}}}'::bigint[])", []
    where, params = condition
    return f"e.player_id IN (SELECT p.id FROM {_PLAYER} p WHERE {where})", params  # noqa: S608


def _by_probe(condition: Condition) -> Condition:
    """An entry's player matches ``condition``, checked by a probe per entry.

    The ``OFFSET 0`` (PostgreSQL) keeps the subquery from being turned into a join, so
    that each entry is one probe on the best index for the condition: for a country the
    ``(country, id)`` index, index-only, instead of the player's row (a name is checked
    on the row whatever the plan).
    """
    where, params = condition
    fence = " OFFSET 0" if _postgres() else ""
    return (
        f"EXISTS (SELECT 1 FROM {_PLAYER} p WHERE p.id = e.player_id AND {where}{fence})",  # noqa: S608
        params,
    )


def _walked_page(
    ranking_list: RankingList,
    check: Condition,
    *,
    after: Cursor | None,
    before: Cursor | None,
    size: int,
) -> RankingPage:
    """A page of the entries passing ``check``, walked in (rank, id) order from a cursor."""
    where, params = check
    if before is not None:
        earlier = _walk(ranking_list, where, params, before, backwards=True, limit=size + 1)
        if len(earlier) > size:
            rows = earlier[:size][::-1]
            return RankingPage(
                entries=rows,
                page_size=size,
                total=0,
                next_cursor=rows[-1].cursor,
                previous_cursor=rows[0].cursor,
            )
        after = None  # back at the start: show the first page, full
    found = _walk(ranking_list, where, params, after, backwards=False, limit=size + 1)
    rows = found[:size]
    return RankingPage(
        entries=rows,
        page_size=size,
        total=0,
        next_cursor=rows[-1].cursor if len(found) > size else None,
        previous_cursor=rows[0].cursor if after is not None and rows else None,
    )


def _walk(
    ranking_list: RankingList,
    where: str,
    params: list[Any],
    cursor: Cursor | None,
    *,
    backwards: bool,
    limit: int,
) -> list[ListRow]:
    """Up to ``limit`` rows passing ``where`` after (or before) ``cursor``, nearest first:
    the walk reads ``entry_list_order`` (index-only, with the player included) and only
    the rows it keeps are joined to their players and clubs."""
    order = "e.rank DESC, e.id DESC" if backwards else "e.rank, e.id"
    bound = ""
    bound_params: list[Any] = []
    if cursor is not None:
        bound = f"AND (e.rank, e.id) {'<' if backwards else '>'} (%s, %s)"
        bound_params = list(cursor)
    sql = (
        f"SELECT {_ROW} FROM ("  # noqa: S608 - fixed SQL and the filter's condition
        f"SELECT e.id FROM {_ENTRY} e WHERE e.ranking_list_id = %s {bound} AND {where} "
        f"ORDER BY {order} LIMIT %s"
        f") walked JOIN {_ENTRY} e ON e.id = walked.id {_JOINS} ORDER BY {order}"
    )
    return _list_rows(sql, [ranking_list.pk, *bound_params, *params, limit])


def _postgres() -> bool:
    return connection.vendor == "postgresql"
