"""A page of a published list, whole or filtered: what the ranking page, the API and the
home page show of a list.

In: a published list (:class:`rankings.sql.ListInfo`), a page number or a cursor, and the
reader's filters (a name or federation id, a country, a club). Out: a :class:`RankingPage`
of :class:`rankings.sql.ListRow` (rank, movement, FLADUB, results counted, the player and
their club), in list order; the filters' choices (:func:`country_choices`,
:func:`club_choices`). Guaranteed: one query for a page of the whole list, two or three for
a filtered view, whatever the list's size or the page's depth; never a ``COUNT(*)`` over a
whole list (its ``entry_count`` is stored), and, but for a numbered page of a filter that
matches very many players (the API's), a bounded amount of index work per query.

List order. The writer stores a list's entries in list order (FLADUB descending, then
federation id), so within a list (rank, entry id) is the export's (rank, federation id),
and the ``(ranking_list, rank, id) INCLUDE (player_id)`` index ``entry_list_order``
(migration 0003, now in 0001_squashed_0011) serves it without reading the players.
Groups of equal FLADUB can hold tens of thousands of players, so pages never sort or skip
a group through the players.

A whole list has page numbers (:func:`rankings.sql.numbered_page`: anchor, skip, rows).

A filtered view is found from a bounded look at the matching registered players (at most
:data:`MANY_PLAYERS` + 1 ids, read as one string), not left to the planner's estimate:

- at most :data:`EXACT_MATCHES`: their places are read by player (one index-only probe
  each on ``entry_once_per_list``), sorted, counted exactly and cut at the cursor or page;
- at most :data:`MANY_PLAYERS`: the list is walked in order from the cursor on
  ``entry_list_order`` alone, each entry's player checked against the ids (on
  PostgreSQL an array constant, which the executor hashes: a fraction of a microsecond
  per entry passed). The page says how many registered players match (not all need be
  on the list); counting the listed ones would mean a probe per player again;
- more: the list is walked from the cursor, each entry's player checked by a probe (a
  country on the ``(country, id)`` index, index-only; a name or a club on the player's
  row). With that many matching, a page passes a few thousand entries, usually far fewer.

The ranking page pages a filtered view by cursor (the next 50 matches after a (rank, id));
the API by number, with the exact count of matching entries (up to :data:`MANY_PLAYERS`
players: their places read by player as above; beyond: a count and an ``OFFSET`` walk,
work that grows with the page's depth).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from fido.collation import name_key

from .. import sql
from ..sql import Cursor, ListInfo, ListRow

PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
EXACT_MATCHES = 2_000
"""A filter matching at most this many registered players reads their places by player
and counts the matches on the list exactly."""
MANY_PLAYERS = 20_000
"""The bounded look at the matching registered players: up to this many, the list is
walked against their ids; more, against an index probe per entry."""
MIN_NAME_SEARCH = 3
"""The ranking page refuses shorter name searches (no index narrows "an" or "li"; ids
are exempt)."""
CLUB_SELECT_LIMIT = 300

__all__ = ["Cursor", "ListRow", "PageOutOfRange", "RankingFilters", "RankingPage", "list_page"]


class PageOutOfRange(LookupError):
    """The requested page lies beyond the last page (``pages``)."""

    def __init__(self, page: int, pages: int) -> None:
        super().__init__(f"page {page} is after the last page, {pages}")
        self.page = page
        self.pages = pages


@dataclass(frozen=True)
class RankingFilters:
    """What a reader narrowed the list to: a name (or federation id), a country, a club."""

    q: str = ""
    country: str = ""
    club: str = ""

    @property
    def active(self) -> bool:
        return bool(self.q or self.country or self.club)

    def condition(self) -> sql.Condition:
        return sql.player_condition(q=self.q, country=self.country, club=self.club)


@dataclass
class RankingPage:
    """A page of a list. Whole lists and the API have page numbers; the ranking page's
    filtered views have cursors."""

    entries: list[ListRow]
    page_size: int
    total: int
    """What ``counted`` says: ``"entries"``: entries of the list or of the filtered view;
    ``"registered"``: registered players who match (not all need be on the list);
    ``"more"``: more than this many registered players match."""
    counted: str = "entries"
    number: int | None = None
    """The page number (numbered pages only)."""
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


def list_page(
    ranking_list: ListInfo,
    *,
    filters: RankingFilters | None = None,
    page: int | None = None,
    after: Cursor | None = None,
    before: Cursor | None = None,
    page_size: int = PAGE_SIZE,
) -> RankingPage:
    """A page of a published list, in list order (see the module docstring for how).

    Whole list: page ``page`` (default 1; one query). Filtered: page ``page`` if given
    (counted exactly), else the entries after the cursor ``after`` (or before ``before``,
    or from the start). Raises :class:`PageOutOfRange` after the last page.
    """
    if (page is not None and page < 1) or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError("page and page_size must be positive")
    filters = filters or RankingFilters()
    if not filters.active:
        return _numbered_page(ranking_list, page=page or 1, page_size=page_size)
    condition = filters.condition()
    count, ids = _matching_players(condition)
    if page is not None:
        return _numbered_filtered_page(ranking_list, condition, count, ids, page, page_size)
    if count <= EXACT_MATCHES:
        places = _places_of(ranking_list, ids)
        return _page_of_places(
            ranking_list, places, after=after, before=before, page_size=page_size
        )
    if count <= MANY_PLAYERS:
        check = sql.in_id_set(ids, condition)
        found = _walked_page(ranking_list, check, after=after, before=before, size=page_size)
        found.total, found.counted = count, "registered"
        return found
    found = _walked_page(
        ranking_list, sql.by_probe(condition), after=after, before=before, size=page_size
    )
    found.total, found.counted = MANY_PLAYERS, "more"
    return found


def country_choices() -> list[str]:
    """The countries of the registry, for the country filter."""
    return [country for (country,) in sql.fetch(sql.countries())]


def club_choices(limit: int = CLUB_SELECT_LIMIT) -> tuple[list[tuple[str, str]], bool]:
    """Every club as (club id, "name (country)") sorted by name, for the club filter, and
    False; or,
    when there are more than ``limit``, none and True (the page asks for a club id)."""
    rows = sql.CLUB_CHOICE.rows(sql.clubs_by_id(limit + 1))
    if len(rows) > limit:
        return [], True
    rows = sorted(rows, key=lambda c: (name_key(c.name), c.club_id))
    return [(c.club_id, f"{c.name} ({c.country})") for c in rows], False


# --- whole lists ------------------------------------------------------------------------------


def _out_of_range(page: int, offset: int, total: int, page_size: int) -> None:
    if offset and offset >= total:
        raise PageOutOfRange(page, max(1, -(-total // page_size)))


def _numbered_page(ranking_list: ListInfo, *, page: int, page_size: int) -> RankingPage:
    total = ranking_list.entry_count
    offset = (page - 1) * page_size
    _out_of_range(page, offset, total, page_size)
    if not total:
        return RankingPage(entries=[], number=page, page_size=page_size, total=0)
    rows = sql.LIST_ROW.rows(
        sql.numbered_page(ranking_list.id, position=offset + 1, size=page_size)
    )
    return RankingPage(entries=rows, number=page, page_size=page_size, total=total)


# --- filtered views ---------------------------------------------------------------------------


def _matching_players(condition: sql.Condition) -> tuple[int, str]:
    [found] = sql.matching().rows(sql.matching_players(condition, many=MANY_PLAYERS))
    return found.count, found.ids or ""


def _places_of(ranking_list: ListInfo, ids: str) -> list[Cursor]:
    """(rank, id) of the given players' entries in a list, sorted."""
    if not ids:
        return []
    return sorted((p.rank, p.id) for p in sql.PLACE.rows(sql.places_of(ranking_list.id, ids)))


def _rows_of(ranking_list: ListInfo, chosen: list[Cursor]) -> list[ListRow]:
    if not chosen:
        return []
    return sql.LIST_ROW.rows(sql.rows_by_ids(ranking_list.id, [entry_id for _, entry_id in chosen]))


def _page_of_places(
    ranking_list: ListInfo,
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
    return RankingPage(
        entries=_rows_of(ranking_list, chosen),
        page_size=page_size,
        total=len(places),
        next_cursor=chosen[-1] if start + page_size < len(places) else None,
        previous_cursor=chosen[0] if start > 0 and chosen else None,
    )


def _numbered_filtered_page(
    ranking_list: ListInfo,
    condition: sql.Condition,
    count: int,
    ids: str,
    page: int,
    page_size: int,
) -> RankingPage:
    """Page ``page`` of a filtered view with the exact number of matching entries."""
    offset = (page - 1) * page_size
    if count <= MANY_PLAYERS:
        # A probe per matching player (at most 20,000, tens of milliseconds) beats
        # counting by a walk of the whole list (every entry: hundreds of milliseconds);
        # counted, sorted and cut in the database (thousands of places, one page of rows).
        found = (
            sql.PLACED_ROW.rows(
                sql.placed_page(ranking_list.id, ids, offset=offset, limit=page_size)
            )
            if ids
            else []
        )
        total = found[0].total if found else 0
        if not found and offset:  # after the last page: how many pages there are
            total = len(_places_of(ranking_list, ids))
        _out_of_range(page, offset, total, page_size)
        rows = [placed.row for placed in found]
        return RankingPage(entries=rows, number=page, page_size=page_size, total=total)
    check = sql.by_probe(condition)
    [passing] = sql.COUNT.rows(sql.count_passing(ranking_list.id, check))
    total = passing.count
    _out_of_range(page, offset, total, page_size)
    rows = sql.LIST_ROW.rows(
        sql.walk(ranking_list.id, check, cursor=None, backwards=False, limit=page_size, skip=offset)
    )
    return RankingPage(entries=rows, number=page, page_size=page_size, total=total)


def _walked_page(
    ranking_list: ListInfo,
    check: sql.Condition,
    *,
    after: Cursor | None,
    before: Cursor | None,
    size: int,
) -> RankingPage:
    """A page of the entries passing ``check``, walked in (rank, id) order from a cursor."""
    if before is not None:
        earlier = sql.LIST_ROW.rows(
            sql.walk(ranking_list.id, check, cursor=before, backwards=True, limit=size + 1)
        )
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
    found = sql.LIST_ROW.rows(
        sql.walk(ranking_list.id, check, cursor=after, backwards=False, limit=size + 1)
    )
    rows = found[:size]
    return RankingPage(
        entries=rows,
        page_size=size,
        total=0,
        next_cursor=rows[-1].cursor if len(found) > size else None,
        previous_cursor=rows[0].cursor if after is not None and rows else None,
    )
