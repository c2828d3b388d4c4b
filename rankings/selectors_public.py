"""Read queries of the public pages: rankings, players, clubs, the archive, the feed, badges.

Every function here reads published data only (a list whose status is ``published``, and the
registry and results behind it) and runs a fixed, small number of queries, whatever the size
of the list: never a ``COUNT(*)`` over a list (its ``entry_count`` is stored; a filtered view
counts up to a cap), never a query per row.

List order. The writer stores a list's entries in list order (FLADUB descending, then
federation id: the order the FLADUB core ranks them in), so within a list (rank, entry id)
is exactly the export's (rank, federation id), and the ``(ranking_list, rank, id)`` index
(migration 0003) serves it without reading the players. Groups of equal FLADUB can hold
tens of thousands of players (everyone with one result of the same age and place), so
pages never sort or skip a group through the player table.

Paging a whole list (:func:`ranking_page` without filters) is exact and cheap at any depth:
the first entry of a group of equal FLADUB sits at the position equal to its rank (rank =
1 + the number of players with a strictly larger FLADUB), so page ``n`` starts at the
largest rank ``r <= offset + 1`` and skips ``offset + 1 - r`` index entries of that group.
A filtered view (a name, a country, a club) has no positions to jump to without counting
every match before it, so it pages by cursor instead: each page is the next 50 matches
after a (rank, id), however deep it is.

The player page's results (:func:`counting_results`) are recomputed from the stored results
with the FLADUB core (:mod:`rankings.fladub`), the same code the ranking job runs, on the
player's matches only: their match points need the opponents' published FLADUB in the list
before each match, and the weights follow from the list's month. It differs from
:func:`rankings.selectors.player_breakdown` in what a page needs: the other sides of every
match (who the player played against, and the scores), a fixed three queries whatever the
number of months, and player indices renumbered densely so that the core's per-player
tables hold the few dozen players of those matches, not one slot per player id of a
registry of a million.

The general read queries (the current list, a month's list, the archive, a list's entries
in order with filters, a player's history, merged records) are those of
:mod:`rankings.selectors`; this module adds what only the pages need.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Count, F, Q, QuerySet
from django.db.models.fields.tuple_lookups import Tuple, TupleGreaterThan, TupleLessThan
from django.db.models.functions import TruncMonth

from matches.models import Club, Match, Player, Secretary, SideMember, Status
from matches.months import Month

from . import fladub, selectors
from .models import CurrentList, RankingEntry, RankingList

PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MANY_PLAYERS = 20_000
"""A name search matching at most this many registered players reads their entries by
player; a broader one walks the list in order."""
MANY_BY_INDEX = 5_000
"""The same bound for a country or club filter (checked on an index while walking)."""
MIN_NAME_SEARCH = 3
"""Shorter name searches are refused (no index narrows "an" or "li"; ids are exempt)."""


class PageOutOfRange(LookupError):
    """The requested page lies beyond the last page."""


# --- lists ----------------------------------------------------------------------------------


def current_lists() -> dict[str, RankingList]:
    """Discipline -> the published list readers see now (one query)."""
    pointers = CurrentList.objects.select_related("ranking_list").filter(
        ranking_list__status=RankingList.Status.PUBLISHED
    )
    return {p.discipline: p.ranking_list for p in pointers}


def latest_published(limit: int = 30) -> list[RankingList]:
    """The most recently published lists (the Atom feed)."""
    return list(
        RankingList.objects.filter(status=RankingList.Status.PUBLISHED).order_by(
            "-published_at", "-id"
        )[:limit]
    )


def list_months(discipline: str) -> list[dt.date]:
    """The months of the published lists of a discipline, newest first (month switcher)."""
    return list(selectors.published_lists(discipline=discipline).values_list("month", flat=True))


def top_entries(lists: Iterable[RankingList], n: int = 10) -> dict[int, list[RankingEntry]]:
    """List id -> its first ``n`` entries (one query per list, each an index range)."""
    return {
        ranking_list.pk: list(selectors.list_entries(ranking_list=ranking_list)[:n])
        for ranking_list in lists
    }


def top_entries_by_rank(list_ids: Sequence[int], max_rank: int) -> dict[int, list[RankingEntry]]:
    """List id -> entries of rank <= ``max_rank`` (one query for all lists; the feed)."""
    grouped: dict[int, list[RankingEntry]] = defaultdict(list)
    rows = (
        RankingEntry.objects.select_related("player")
        .filter(ranking_list_id__in=list(list_ids), rank__lte=max_rank)
        .order_by("ranking_list_id", "rank", "player__player_id")
    )
    for entry in rows:
        grouped[entry.ranking_list_id].append(entry)
    return grouped


# --- the ranking page -----------------------------------------------------------------------


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


@dataclass
class RankingPage:
    """A page of a list. Whole lists have page numbers; filtered views have cursors."""

    entries: list[RankingEntry]
    page_size: int
    total: int
    """What ``counted`` says: ``"entries"`` of the list or of the filtered view; ``"more"``:
    more than this many registered players match (not all need be on the list)."""
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


def _rows_by_id(ids: Sequence[int]) -> list[RankingEntry]:
    """The entries of ``ids`` with their players and clubs, in list order (one query)."""
    rows = (
        RankingEntry.objects.select_related("player", "player__club")
        .filter(id__in=ids)
        .order_by()  # sorted here: the model's ordering would join its relations to sort
    )
    return sorted(rows, key=lambda e: (e.rank, e.id))


def ranking_page(
    ranking_list: RankingList,
    *,
    filters: RankingFilters | None = None,
    page: int = 1,
    after: Cursor | None = None,
    before: Cursor | None = None,
    page_size: int = PAGE_SIZE,
) -> RankingPage:
    """A page of a published list, in list order.

    Whole list: page ``page``, in three index lookups at any depth: the largest rank at or
    before the page's first position (the start of its group of equal FLADUB, whose first
    entry sits at the position equal to its rank), the page's entry ids skipped to from
    there on the ``(ranking_list, rank, id)`` index (index-only), and those entries.
    Raises :class:`PageOutOfRange` after the last page.

    Filtered (a name, a country, a club): the entries after the cursor ``after`` (or
    before ``before``, or from the start). How the page is found is decided here from a
    bounded look at the matching registered players, not left to the planner's estimate
    of a name search:

    - at most :data:`MANY_PLAYERS` for a name search, :data:`MANY_BY_INDEX` for a country
      or a club: their entries are looked up by player (index-only), sorted, counted
      exactly and cut at the cursor;
    - more: the list is walked in order from the cursor joined to the players (a country
      is checked on the ``(country, id)`` index); with that many matching, a page reads
      at most some 10,000 entries (a name) or 50,000 index entries (a country), usually
      far fewer.

    So a filtered page costs some 20,000 index lookups at most, however deep it is.
    """
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError("page and page_size must be positive")
    filters = filters or RankingFilters()
    if not filters.active:
        return _numbered_page(ranking_list, page=page, page_size=page_size)
    # A name is checked on the player's row, so walking the list for a name reads a player
    # per entry passed: looking the matches up by player pays off up to many more of them
    # than for a country or club, which an index checks.
    most = MANY_PLAYERS if filters.q else MANY_BY_INDEX
    players = list(_matching_players(filters).values_list("id", flat=True)[: most + 1])
    if len(players) <= most:
        places = _places_of(ranking_list, players)
        return _page_of_places(places, after=after, before=before, page_size=page_size)
    matches = selectors.list_entries(
        ranking_list=ranking_list,
        country=filters.country or None,
        club=filters.club or None,
        search=filters.q or None,
    )
    page_found = _walked_page(matches, after=after, before=before, page_size=page_size)
    page_found.total, page_found.counted = most, "more"
    return page_found


def _places_of(ranking_list: RankingList, player_ids: list[int]) -> list[tuple[int, int]]:
    """(rank, id) of the given players' entries in a list, sorted.

    On PostgreSQL the ids travel as one array joined to the covering unique index
    ``(ranking_list, player) INCLUDE (rank, id)``: one index-only probe per player, and no
    plan time spent estimating each of thousands of literals of an ``IN`` list.
    """
    if connection.vendor != "postgresql":
        entries = RankingEntry.objects.filter(ranking_list=ranking_list, player_id__in=player_ids)
        return sorted(entries.order_by().values_list("rank", "id"))
    table = connection.ops.quote_name(RankingEntry._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.rank, e.id FROM unnest(%s::bigint[]) AS u(player) "  # noqa: S608
            f"JOIN {table} e ON e.player_id = u.player AND e.ranking_list_id = %s",
            [player_ids, ranking_list.pk],
        )
        return sorted(cursor.fetchall())


def _matching_players(filters: RankingFilters) -> QuerySet[Player]:
    """The registered players a filter selects (the predicate of
    :func:`rankings.selectors.list_entries`, on the players)."""
    players = Player.objects.all()
    if filters.country:
        players = players.filter(country=filters.country.upper())
    if filters.club:
        players = players.filter(club__club_id=filters.club)
    if filters.q:
        players = players.filter(Q(name__icontains=filters.q) | Q(player_id__iexact=filters.q))
    return players.order_by()


def _page_of_places(
    places: list[tuple[int, int]],
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
    rows = _rows_by_id([entry_id for _, entry_id in chosen])
    return RankingPage(
        entries=rows,
        page_size=page_size,
        total=len(places),
        next_cursor=chosen[-1] if start + page_size < len(places) else None,
        previous_cursor=chosen[0] if start > 0 and chosen else None,
    )


def _walked_page(
    matches: QuerySet[RankingEntry],
    *,
    after: Cursor | None,
    before: Cursor | None,
    page_size: int,
) -> RankingPage:
    """A page of the ``matches`` of a list walked in (rank, id) order from the cursor."""
    place = Tuple(F("rank"), F("id"))
    if before is not None:
        earlier = list(
            matches.filter(TupleLessThan(place, before))
            .order_by("-rank", "-id")
            .values_list("rank", "id")[: page_size + 1]
        )
        if len(earlier) > page_size:
            rows = _rows_by_id([entry_id for _, entry_id in earlier[:page_size]])
            return RankingPage(
                entries=rows,
                page_size=page_size,
                total=0,
                next_cursor=(rows[-1].rank, rows[-1].id),
                previous_cursor=(rows[0].rank, rows[0].id),
            )
        after = None  # back at the start: show the first page, full
    forward = matches if after is None else matches.filter(TupleGreaterThan(place, after))
    found = list(forward.order_by("rank", "id").values_list("rank", "id")[: page_size + 1])
    rows = _rows_by_id([entry_id for _, entry_id in found[:page_size]])
    return RankingPage(
        entries=rows,
        page_size=page_size,
        total=0,
        next_cursor=(rows[-1].rank, rows[-1].id) if len(found) > page_size else None,
        previous_cursor=(rows[0].rank, rows[0].id) if after is not None and rows else None,
    )


def _numbered_page(ranking_list: RankingList, *, page: int, page_size: int) -> RankingPage:
    total = ranking_list.entry_count
    offset = (page - 1) * page_size
    if offset and offset >= total:
        raise PageOutOfRange(page)
    in_list = RankingEntry.objects.filter(ranking_list=ranking_list)
    anchor = (
        in_list.filter(rank__lte=offset + 1).order_by("-rank").values_list("rank", flat=True)
    ).first()
    if anchor is None:
        return RankingPage(entries=[], number=page, page_size=page_size, total=total)
    skip = offset + 1 - anchor
    ids = list(
        in_list.filter(rank__gte=anchor)
        .order_by("rank", "id")
        .values_list("id", flat=True)[skip : skip + page_size]
    )
    return RankingPage(entries=_rows_by_id(ids), number=page, page_size=page_size, total=total)


def list_countries() -> list[str]:
    """The countries of the registry, for the country filter.

    On PostgreSQL a loose index scan (a recursive query jumping from one country to the next
    through the country index) reads one index entry per country instead of every player.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                """
                WITH RECURSIVE c(country) AS (
                    (SELECT country FROM matches_player ORDER BY country LIMIT 1)
                    UNION ALL
                    SELECT (SELECT p.country FROM matches_player p
                            WHERE p.country > c.country ORDER BY p.country LIMIT 1)
                    FROM c WHERE c.country IS NOT NULL
                )
                SELECT country FROM c WHERE country IS NOT NULL
                """
            )
            return [row[0] for row in cursor.fetchall()]
    return list(Player.objects.order_by("country").values_list("country", flat=True).distinct())


CLUB_SELECT_LIMIT = 300


def list_clubs(limit: int = CLUB_SELECT_LIMIT) -> tuple[list[dict[str, str]], bool]:
    """Up to ``limit`` clubs by id (``club_id``, ``name``, ``country``) for the club filter,
    and whether there are more (then the page asks for a club id instead)."""
    rows = Club.objects.order_by("club_id").values_list("club_id", "name", "country")
    clubs = [
        {"club_id": club_id, "name": name, "country": country}
        for club_id, name, country in rows[: limit + 1]
    ]
    return clubs[:limit], len(clubs) > limit


def all_clubs() -> QuerySet[Club]:
    return Club.objects.order_by("country", "name")


# --- players --------------------------------------------------------------------------------


def player_by_id(player_id: str) -> Player | None:
    return Player.objects.select_related("club").filter(player_id=player_id).first()


@dataclass(frozen=True)
class HistoryPoint:
    month: dt.date
    rank: int | None
    fladub_cents: int
    entry_count: int

    @property
    def fladub(self) -> float:
        return self.fladub_cents / 100


def player_history(player: Player, discipline: str) -> list[HistoryPoint]:
    """One point per published list of the discipline since the player's first listing,
    oldest first; a month whose list does not hold the player has rank None and FLADUB 0 (a
    list holds only players with FLADUB > 0). Two queries."""
    listed = {
        row.month.first_day: row
        for row in selectors.player_history(player=player, discipline=discipline)
    }
    if not listed:
        return []
    lists = (
        selectors.published_lists(discipline=discipline)
        .filter(month__gte=min(listed))
        .order_by("month")
        .values_list("month", "entry_count")
    )
    points = []
    for month, entry_count in lists:
        row = listed.get(month)
        points.append(
            HistoryPoint(
                month=month,
                rank=row.rank if row else None,
                fladub_cents=int(row.fladub * 100) if row else 0,
                entry_count=entry_count,
            )
        )
    return points


def player_entries(player: Player, lists: Iterable[RankingList]) -> dict[str, RankingEntry]:
    """Discipline -> the player's entry in each given list (one query)."""
    by_id = {ranking_list.pk: ranking_list for ranking_list in lists}
    entries = RankingEntry.objects.filter(player=player, ranking_list_id__in=list(by_id))
    return {by_id[e.ranking_list_id].discipline: e for e in entries.order_by()}


def player_disciplines(player: Player) -> set[str]:
    """The disciplines in which the player has any result (one query, by index)."""
    return set(
        SideMember.objects.filter(player=player).values_list("discipline", flat=True).distinct()
    )


@dataclass
class Opponent:
    player_id: str
    name: str


@dataclass
class CountingResult:
    """One result of the player that counts in a list, with what it is worth."""

    date_played: dt.date
    category: str
    club_id: str
    club_name: str
    month_played: dt.date
    age: int
    weight_twelfths: int
    points: float
    weighted: float
    in_best: bool
    side_score: int
    place: int
    sides: int
    team: list[Opponent]
    opponents: list[tuple[int, list[Opponent]]]
    """(score, players) of every other side, best score first."""

    @property
    def weight(self) -> float:
        return self.weight_twelfths / fladub.WINDOW_MONTHS

    @property
    def weight_next_twelfths(self) -> int:
        return max(0, self.weight_twelfths - 1)

    @property
    def weight_next(self) -> float:
        return self.weight_next_twelfths / fladub.WINDOW_MONTHS

    @property
    def weighted_next(self) -> float:
        return self.points * self.weight_next_twelfths / fladub.WINDOW_MONTHS


@dataclass
class CountingResults:
    ranking_list: RankingList
    results: list[CountingResult] = field(default_factory=list)
    fladub_cents: int = 0
    """The sum of the best 20, rounded as published: equals the list's number unless the
    results changed after the list was closed (a merge)."""
    next_month_cents: int = 0
    """What the same results would give in next month's list, with no new result."""

    @property
    def fladub(self) -> float:
        return self.fladub_cents / 100

    @property
    def next_month(self) -> float:
        return self.next_month_cents / 100


def counting_results(player: Player, ranking_list: RankingList) -> CountingResults:
    """Every result of ``player`` that counts in ``ranking_list``, best first.

    Three queries, whatever the list's size: every member of the player's matches in the
    list's window (with the match's date, category and club), the published lists before
    the months played, and in those the opponents' entries and each list's top entry.
    """
    month = Month.of(ranking_list.month)
    first_month = month + (1 - fladub.WINDOW_MONTHS)
    mine = SideMember.objects.filter(
        player=player,
        discipline=ranking_list.discipline,
        counting_month__lte=month.first_day,
        month_played__gte=first_month.first_day,
        month_played__lte=month.first_day,
    ).filter(Q(void_effective_month__isnull=True) | Q(void_effective_month__gt=month.first_day))
    members = list(
        SideMember.objects.filter(match_id__in=mine.values("match_id"))
        .order_by("match_id", "side_position", "player_id")
        .values(
            "match_id",
            "month_played",
            "counting_month",
            "base",
            "side_position",
            "score",
            "player_id",
            "player__player_id",
            "player__name",
            "match__date_played",
            "match__category",
            "match__club__club_id",
            "match__club__name",
        )
    )
    outcome = CountingResults(ranking_list=ranking_list)
    if not members:
        return outcome

    # Dense player indices: the core sizes its tables by the largest index.
    dense: dict[int, int] = {}
    for row in members:
        dense.setdefault(row["player_id"], len(dense))
    sides = fladub.Sides(
        match_id=np.array([r["match_id"] for r in members], dtype=np.int64),
        month_played=np.array([Month.of(r["month_played"]).index for r in members], np.int32),
        counting_month=np.array([Month.of(r["counting_month"]).index for r in members], np.int32),
        base=np.array([r["base"] for r in members], dtype=np.float64),
        side_no=np.array([r["side_position"] for r in members], dtype=np.int16),
        score=np.array([r["score"] for r in members], dtype=np.float64),
        player=np.array([dense[r["player_id"]] for r in members], dtype=np.int64),
    )
    published = _strength_lists(
        discipline=ranking_list.discipline,
        months_played={r["month_played"] for r in members},
        dense=dense,
    )
    results = fladub.match_points(sides, published)
    breakdown = fladub.player_breakdown(results, dense[player.pk], month.index)
    outcome.fladub_cents = breakdown.fladub_cents

    by_match: dict[int, dict[int, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for row in members:
        by_match[row["match_id"]][row["side_position"]].append(row)
    next_weighted: list[float] = []
    for i in range(len(breakdown.match_id)):
        match_pk = int(breakdown.match_id[i])
        table = by_match[match_pk]
        my_position = next(
            pos for pos, rows in table.items() if any(r["player_id"] == player.pk for r in rows)
        )
        my_score = table[my_position][0]["score"]
        others = sorted(
            (
                (rows[0]["score"], [_opponent(r) for r in rows])
                for pos, rows in table.items()
                if pos != my_position
            ),
            key=lambda side: -side[0],
        )
        first = table[my_position][0]
        result = CountingResult(
            date_played=first["match__date_played"],
            category=first["match__category"],
            club_id=first["match__club__club_id"],
            club_name=first["match__club__name"],
            month_played=Month.from_index(int(breakdown.month_played[i])).first_day,
            age=int(breakdown.age[i]),
            weight_twelfths=int(breakdown.weight_twelfths[i]),
            points=float(breakdown.points[i]),
            weighted=float(breakdown.weighted[i]),
            in_best=bool(breakdown.in_best[i]),
            side_score=my_score,
            place=1 + sum(1 for score, _ in others if score > my_score),
            sides=len(table),
            team=[_opponent(r) for r in table[my_position] if r["player_id"] != player.pk],
            opponents=others,
        )
        outcome.results.append(result)
        next_weighted.append(result.weighted_next)
    best_next = sorted(next_weighted, reverse=True)[: fladub.BEST_OF]
    outcome.next_month_cents = int(fladub.round_half_away_cents(np.array([sum(best_next)]))[0])
    return outcome


def _opponent(row: Any) -> Opponent:
    return Opponent(player_id=row["player__player_id"], name=row["player__name"])


def _strength_lists(
    *, discipline: str, months_played: set[dt.date], dense: dict[int, int]
) -> dict[int, fladub.PublishedList]:
    """The published lists L(M - 1) the given matches need, restricted to their players.

    Each restricted list also carries its top FLADUB (under an index no player uses), so
    that q = F / F_max divides by the whole list's maximum, as the ranking job does. Two
    queries: the lists, then their entries of those players or of rank 1 (the list ids
    given, so that both halves of the condition are index lookups).
    """
    before = {Month.of(m).prev().first_day for m in months_played}
    months = dict(
        RankingList.objects.filter(
            discipline=discipline, status=RankingList.Status.PUBLISHED, month__in=before
        ).values_list("pk", "month")
    )
    cents: dict[dt.date, list[tuple[int, int]]] = defaultdict(list)
    tops: dict[dt.date, int] = {}
    entries = (
        RankingEntry.objects.filter(
            Q(player_id__in=list(dense)) | Q(rank=1), ranking_list_id__in=list(months)
        )
        .order_by()
        .values_list("ranking_list_id", "player_id", "rank", "fladub_cents")
    )
    for list_id, player_pk, rank, value in entries:
        list_month = months[list_id]
        if rank == 1:
            tops[list_month] = max(tops.get(list_month, 0), value)
        if player_pk in dense:
            cents[list_month].append((dense[player_pk], value))
    outside = len(dense)
    published: dict[int, fladub.PublishedList] = {}
    for list_month, top in tops.items():  # every non-empty list has a rank 1
        rows = [*cents[list_month], (outside, top)]
        published[Month.of(list_month).index] = fladub.PublishedList(
            player=np.array([r[0] for r in rows], dtype=np.int64),
            fladub_cents=np.array([r[1] for r in rows], dtype=np.int64),
        )
    return published


# --- clubs ----------------------------------------------------------------------------------


def club_by_id(club_id: str) -> Club | None:
    return Club.objects.filter(club_id=club_id).first()


@dataclass
class ClubMember:
    player: Player
    entries: dict[str, RankingEntry]


def club_members(club: Club, lists: Iterable[RankingList]) -> list[ClubMember]:
    """The club's players (merged records left out) with their entries in the given lists,
    ordered by their rank in the first list, then the next, then by name (two queries)."""
    players = list(
        Player.objects.filter(club=club, merged_into__isnull=True).order_by("name", "player_id")
    )
    by_id = {ranking_list.pk: ranking_list for ranking_list in lists}
    entries: dict[int, dict[str, RankingEntry]] = defaultdict(dict)
    if players and by_id:
        for entry in RankingEntry.objects.filter(
            ranking_list_id__in=list(by_id), player__club=club
        ).order_by():
            entries[entry.player_id][by_id[entry.ranking_list_id].discipline] = entry
    members = [ClubMember(player=p, entries=entries.get(p.pk, {})) for p in players]
    order = [ranking_list.discipline for ranking_list in by_id.values()]
    unranked = 1 << 62
    members.sort(
        key=lambda m: tuple(m.entries[d].rank if d in m.entries else unranked for d in order)
    )
    return members


def club_recent_matches(club: Club, limit: int = 20) -> list[Match]:
    """The club's latest valid results (not voided), played most recently first, with their
    sides and players (three queries)."""
    from matches.selectors import match_list

    return list(
        match_list(club=club).filter(voided_at__isnull=True).order_by("-date_played", "-id")[:limit]
    )


@dataclass(frozen=True)
class Punctuality:
    month: dt.date
    total: int
    on_time: int

    @property
    def late(self) -> int:
        return self.total - self.on_time

    @property
    def share(self) -> float | None:
        return self.on_time / self.total if self.total else None

    @property
    def percent(self) -> int | None:
        return None if self.share is None else round(self.share * 100)


def club_punctuality(club: Club, *, last: Month, months: int = 12) -> list[Punctuality]:
    """Per month played (the ``months`` up to ``last``, oldest first): the club's matches
    and how many were submitted on time. A correction is not a new submission: only first
    revisions count. One query."""
    first = last + (1 - months)
    rows = (
        Match.objects.filter(
            club=club,
            revision=1,
            date_played__gte=first.first_day,
            date_played__lte=last.last_day,
        )
        .annotate(month=TruncMonth("date_played"))
        .values("month")
        .annotate(total=Count("id"), on_time=Count("id", filter=Q(status=Status.ON_TIME)))
    )
    found: dict[dt.date, tuple[int, int]] = {}
    for row in rows:
        month = row["month"]
        day = month.date() if isinstance(month, dt.datetime) else month
        found[day.replace(day=1)] = (row["total"], row["on_time"])
    out = []
    for i in range(months):
        day = (first + i).first_day
        total, on_time = found.get(day, (0, 0))
        out.append(Punctuality(month=day, total=total, on_time=on_time))
    return out


# --- navigation -----------------------------------------------------------------------------


def is_secretary(user: Any) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or Secretary.objects.filter(user=user).exists()
