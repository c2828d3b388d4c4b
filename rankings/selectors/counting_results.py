"""A player's counting results: every result that counts in a list, with what it is worth
today and next month.

In: a player (``Player`` primary key), a discipline and the month R of a list L(R): any
list, published or not (a projection of the open month reads the same way). Out:
:class:`CountingResults`, plain data: each :class:`CountingResult` with its match (the
club's match id, date, club, category, month played and counting month), the table (the
player's place, score, partners and every other side with its players), and its worth:
match points, age, weight now and next month, weighted points, whether among the best 20;
then the sum of the best 20 as published (``fladub_cents``) and what the same results give
in L(R + 1) with no new result. Best first. With ``limit``, a page of them: ``results``
holds the results ``offset`` to ``offset + limit`` of the ``count`` (the totals are always
those of every result), so a busy player's page and API response carry a hundred tables,
not thousands. :func:`counted_results`: every result as a :class:`CountedResult` (the
match's facts, no table), what a ledger or a forecast names.

How: the results are recomputed from the stored results with the FLADUB core
(:mod:`rankings.fladub`), the code the ranking job runs, on the player's matches only. Their
match points need the opponents' FLADUB in the list before each match: the strength lists
(:func:`~rankings.selectors.strength_lists.strength_lists`) restricted to the players of
those matches; the weights follow from R. Player indices are renumbered densely, so that the
core's per-player tables hold the few dozen players of those matches, not one slot per
player id of a registry of a million. A match's points do not depend on the list that
counts it, so :func:`player_points` computes them once for a span of lists (the union of
their windows, :func:`rankings.sql.span_condition`) and :class:`PlayerPoints` breaks them
down for each list of it: the player page reads a busy player's matches once for its page
of results, its two ledgers and its forecast, not four times.

On PostgreSQL a busy player has a pack of their points, made after each close
(:mod:`rankings.player_packs`): the results it holds are taken from it, and only the others
(the open month's, those changed since) are read and scored as above. The pack also holds
the tables of those matches (:mod:`rankings.player_tables`): a page of results takes its
tables and facts from it, and reads as rows only the matches it cannot say (not packed,
changed since, or seating a player renamed since); clubs are named live.

Guaranteed: three statements for the match points whatever the number of results, months
or players (the members of the player's matches in the span, from the members' rows alone;
the lists; their entries), on PostgreSQL one more first (the player's pack, if any; with
one, the members read are only those the pack cannot say, none at all when it says
everything); then one for the shown results' tables (names, dates, clubs) and
one for the facts of every result (:func:`counted_results`, once per :class:`PlayerPoints`),
with a pack one for its tables (none when read with it: ``tables``) and one for their
clubs, and the tables statement only for the matches the pack cannot say;
the core's input is built column by column (NumPy), and only the shown results become
Python objects; a list's results are the same whether read alone or from a span holding it
(tested); for a published list, ``fladub_cents`` equals the published number unless the
results changed after it was closed (a merge), which the player page says. The player page,
the API and later readers (ledgers, forecasts, the what-if calculator) all read a player's
results here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

import numpy as np
from django.db import connection

from matches.months import Month

from .. import fladub, loader, player_packs, player_tables, result_packs, sql
from .strength_lists import published_ids, restricted, strength_lists

_TWELFTHS = Decimal(fladub.WINDOW_MONTHS)

PAGE_SIZE = 100
"""Results a page of the player page (and of the API, by default) shows: the best 20, the
ones that make the number, are always on the first."""
MAX_PAGE_SIZE = 500


class PageOutOfRange(ValueError):
    """A page after the last one."""


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """A player as a table shows them."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class OtherSide:
    """Another side of the table: its final score and its players."""

    score: int
    players: tuple[PlayerRef, ...]


@dataclass(frozen=True)
class CountedResult:
    """One result of the player that counts in a list, with what it is worth and the facts
    that name it (no table: :class:`CountingResult` has it)."""

    match_id: str
    """The match's id at its club (the submission's ``id``)."""
    match_pk: int
    """The stored match (a correction is a new revision: a new one)."""
    club_id: str
    club_name: str
    date_played: dt.date
    category: str
    month_played: Month
    counting_month: Month
    age: int
    weight_twelfths: int
    points: float
    weighted: float
    in_best: bool

    @property
    def weight(self) -> Decimal:
        return Decimal(self.weight_twelfths) / _TWELFTHS

    @property
    def weight_next_twelfths(self) -> int:
        return max(0, self.weight_twelfths - 1)

    @property
    def weight_next(self) -> Decimal:
        return Decimal(self.weight_next_twelfths) / _TWELFTHS

    @property
    def weighted_next(self) -> float:
        return self.points * self.weight_next_twelfths / fladub.WINDOW_MONTHS


@dataclass(frozen=True)
class CountingResult(CountedResult):
    """A counting result with the table it was played at."""

    side_score: int
    place: int
    """1 + the number of sides that scored more."""
    sides: int
    team: tuple[PlayerRef, ...]
    """The player's partners (a team game)."""
    opponents: tuple[OtherSide, ...]
    """Every other side, best score first."""


ResultT = TypeVar("ResultT", bound=CountedResult)


@dataclass(frozen=True)
class CountingResults(Generic[ResultT]):
    player_pk: int
    discipline: str
    month: Month
    results: tuple[ResultT, ...] = ()
    """The shown results: all, or a page of them."""
    count: int = 0
    """How many results count (all of them, whatever is shown)."""
    offset: int = 0
    """The place of the first shown result among all, from 0."""
    fladub_cents: int = 0
    """The sum of the best 20, rounded as published."""
    next_month_cents: int = 0
    """What the same results would give in next month's list, with no new result."""
    limit: int | None = None
    """The page size asked for (None: every result shown)."""

    @property
    def number(self) -> int:
        """The shown page's number, from 1."""
        return 1 if not self.limit else self.offset // self.limit + 1

    @property
    def num_pages(self) -> int:
        return 1 if not self.limit else max(1, -(-self.count // self.limit))

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def first_shown(self) -> int:
        """The place of the first shown result among all, from 1."""
        return self.offset + 1

    @property
    def last_shown(self) -> int:
        return self.offset + len(self.results)

    @property
    def fladub(self) -> Decimal:
        return Decimal(self.fladub_cents) / 100

    @property
    def next_month(self) -> Decimal:
        return Decimal(self.next_month_cents) / 100


class PlayerPoints:
    """The match points of every result of a player counting in at least one of the lists
    L(``earliest``) .. L(``latest``): read and computed once (:func:`player_points`), then
    broken down for any list of the span (:meth:`breakdown`), so that a page showing a
    player in several lists (the page of results, the ledgers, the forecast) reads the
    player's matches once. A match's points depend on that match and the strength lists
    only, not on the list that counts it."""

    def __init__(
        self,
        *,
        player_pk: int,
        discipline: str,
        earliest: Month,
        latest: Month,
        results: fladub.Results,
        void_month: np.ndarray,
        strengths: dict[int, fladub.PublishedList] | None = None,
        sides: fladub.Sides | None = None,
        stored: player_packs.Stored | None = None,
    ) -> None:
        self.player_pk, self.discipline = player_pk, discipline
        self.earliest, self.latest = earliest, latest
        self._results = results  # the player's own rows (player index 0)
        self._void_month = void_month  # month index from which a row counts no more
        self._facts: dict[int, sql.MatchFacts] = {}  # those read so far
        self._stored = stored  # the pack the results were taken from, if any
        self._pack_tables: player_packs.StoredTables | bool | None = (
            stored.tables if stored is not None and stored.tables_read else stored is not None
        )  # True: the pack's tables not read yet; None: it has none.
        self._clubs: dict[int, sql.Named] = {}  # those read so far
        self.sides = sides
        """The members of every match of the span (players by primary key), when they
        were read as rows, not taken from a pack: what the pack's writer packs."""
        self._breakdowns: dict[Month, fladub.Breakdown] = {}  # made so far (read-only)
        self.strengths: dict[int, fladub.PublishedList] = strengths or {}
        """The strength lists read (month index of the list -> its entries of the players
        of the matches, and of those :func:`player_points` was asked about too, keyed by
        player primary key, with its top entry)."""
        self.counted: dict[Month, CountingResults[CountedResult]] = {}
        """What :func:`counted_results` made of each month (they are immutable)."""

    def columns(self) -> player_packs.Columns:
        """Every result of the span with its points and void month, as a pack holds them."""
        return player_packs.Columns(
            match_id=self._results.match_id,
            month_played=self._results.month_played,
            counting_month=self._results.counting_month,
            void_month=self._void_month,
            points=self._results.points,
        )

    def covers(self, month: Month, discipline: str) -> bool:
        return discipline == self.discipline and self.earliest <= month <= self.latest

    def breakdown(self, month: Month) -> fladub.Breakdown:
        """The player's results counting in L(``month``) (a month of the span), best first:
        made once per month (a player page asks for its three months ten times: the page
        of results, two ledgers, the calendar), its arrays read-only, since every caller
        shares them."""
        found = self._breakdowns.get(month)
        if found is None:
            found = self._breakdowns[month] = _read_only(self._breakdown(month))
        return found

    def _breakdown(self, month: Month) -> fladub.Breakdown:
        if not self.earliest <= month <= self.latest:
            raise ValueError(f"{month} is outside {self.earliest} .. {self.latest}")
        results = self._results
        live = self._void_month > month.index
        if not live.all():
            results = fladub.Results(
                match_id=results.match_id[live],
                month_played=results.month_played[live],
                counting_month=results.counting_month[live],
                player=results.player[live],
                points=results.points[live],
            )
        return fladub.player_breakdown(results, 0, month.index)

    def facts(self, match_ids: Iterable[int] | None = None) -> dict[int, sql.MatchFacts]:
        """The facts of the given matches of the player (None: every match in the span), by
        match (with any read before): one statement for those not read by an earlier call,
        none if all were. The player page reads only the few its ledgers and calendar name,
        not a busy player's thousand (1,354 matches: 5,447 buffers)."""
        wanted = set(self._results.match_id.tolist() if match_ids is None else match_ids)
        missing = wanted - self._facts.keys()
        stored = self._stored_tables() if missing else None
        if stored is not None:
            packed = stored.tables.facts(missing - self._changed())
            clubs = self._club_names({f.club_pk for f in packed.values()})
            self._facts.update((m, _facts(m, f, clubs[f.club_pk])) for m, f in packed.items())
            missing -= packed.keys()
        if missing:
            rows = sql.MATCH_FACTS.rows(sql.match_facts(missing))
            self._facts.update((row.match_pk, row) for row in rows)
        return self._facts

    def packed_tables(
        self, match_ids: Collection[int]
    ) -> dict[int, tuple[sql.MatchFacts, tuple[player_tables.Seat, ...]]]:
        """The tables of ``match_ids`` that the player's pack can say (none without a
        pack): each match's facts and seats, by match. Not those changed since the pack's
        snapshot, nor those seating a player renamed since: the caller reads them as rows.
        One statement for the pack's tables (the first call), one for the clubs not named
        yet."""
        stored = self._stored_tables()
        if stored is None:
            return {}
        changed = self._changed()
        found = stored.tables.matches(
            [m for m in match_ids if m not in changed], renamed=stored.renamed
        )
        clubs = self._club_names({t.facts.club_pk for t in found.values()})
        return {m: (_facts(m, t.facts, clubs[t.facts.club_pk]), t.seats) for m, t in found.items()}

    def _stored_tables(self) -> player_packs.StoredTables | None:
        """The pack's tables, read at the first call (None: no pack, or none in it)."""
        if self._pack_tables is True and self._stored is not None:
            with connection.cursor() as cursor:
                self._pack_tables = player_packs.read_tables(
                    cursor, self.player_pk, self.discipline, self._stored.month
                )
        found = self._pack_tables
        return found if isinstance(found, player_packs.StoredTables) else None

    def _changed(self) -> set[int]:
        """The pack's matches changed since its snapshot."""
        return set() if self._stored is None else set(self._stored.changed.tolist())

    def _club_names(self, club_pks: set[int]) -> dict[int, sql.Named]:
        """The clubs by primary key (one statement for those not read before, if any)."""
        missing = club_pks - self._clubs.keys()
        if missing:
            self._clubs.update((c.pk, c) for c in sql.CLUB_NAMES.rows(sql.club_names(missing)))
        return self._clubs


def _facts(match_pk: int, facts: player_tables.Facts, club: sql.Named) -> sql.MatchFacts:
    """A packed match's facts, its club named."""
    return sql.MatchFacts(
        match_pk=match_pk,
        external_id=facts.external_id,
        date_played=facts.date_played,
        category=facts.category,
        club_id=club.code,
        club_name=club.name,
    )


def _read_only(breakdown: fladub.Breakdown) -> fladub.Breakdown:
    """``breakdown`` with its arrays made read-only (a caller writing into a shared one
    gets an error, not another page's wrong numbers)."""
    for value in vars(breakdown).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return breakdown


_NOT_VOIDED = np.iinfo(np.int32).max
# Year 9999 lies outside Month's range: no stored void month can be this one.
_NOT_VOIDED_INDEX = sql.NOT_VOIDED_DAY.year * 12 + sql.NOT_VOIDED_DAY.month - 1
_NO_RESULTS = fladub.Results(
    match_id=np.zeros(0, dtype=np.int64),
    month_played=np.zeros(0, dtype=np.int32),
    counting_month=np.zeros(0, dtype=np.int32),
    player=np.zeros(0, dtype=np.int64),
    points=np.zeros(0, dtype=np.float64),
)


def player_points(
    player_pk: int,
    *,
    discipline: str,
    months: Collection[Month],
    also: Mapping[Month, Collection[int]] | None = None,
    packs: bool = True,
    tables: bool = False,
) -> PlayerPoints:
    """The match points of the player's results counting in any list from the earliest to
    the latest of ``months`` (at least one): three statements (the members of the
    player's matches, the strength lists' ids, their entries of those matches' players).
    ``also``: more players whose strength in the list in force in a month the caller needs
    (the what-if's opponents), read by the same two statements into
    :attr:`PlayerPoints.strengths`. On PostgreSQL, a busy player's pack of points
    (:mod:`rankings.player_packs`) stands for the results it holds, and only the others
    are read and scored (one statement more: the pack); ``packs`` False: never (the pack's
    writer). ``tables``: the caller will show tables (:func:`counting_results`): the pack's
    are read with it, in the same statement."""
    earliest, latest = min(months), max(months)
    also = also or {}
    stored = _pack(player_pk, discipline, earliest, tables) if packs else None
    sides = None
    if stored is None:
        sides, void = _match_sides(player_pk, discipline, earliest, latest)
        results, void_month, strengths = _own_points(player_pk, discipline, sides, void, also)
    else:
        results, void_month, strengths = _packed_points(
            player_pk, discipline, earliest, latest, stored, also
        )
    return PlayerPoints(
        player_pk=player_pk,
        discipline=discipline,
        earliest=earliest,
        latest=latest,
        results=results,
        void_month=void_month,
        strengths=strengths,
        sides=sides,
        stored=stored,
    )


def tables_to_pack(points: Sequence[PlayerPoints]) -> list[bytes]:
    """The tables of each player's matches (:mod:`rankings.player_tables`), from the
    members :func:`player_points` read as rows (``packs=False``): two statements for all
    of them (the matches' facts, the players' names), in the caller's snapshot."""
    if any(p.sides is None for p in points):
        raise ValueError("packed tables need the members read as rows (packs=False)")
    sides = [p.sides for p in points if p.sides is not None]
    match_ids = {m for s in sides for m in s.match_id.tolist()}
    players = {pk for s in sides for pk in s.player.tolist()}
    facts = {
        f.match_pk: player_tables.Facts(
            external_id=f.external_id,
            date_played=f.date_played,
            category=f.category,
            club_pk=f.club_pk,
        )
        for f in (sql.PACKED_FACTS.rows(sql.packed_facts(match_ids)) if match_ids else ())
    }
    names = {
        n.pk: player_tables.Named(player_id=n.code, name=n.name)
        for n in (sql.PLAYER_NAMES.rows(sql.player_names(players)) if players else ())
    }
    return [
        player_tables.encode(s.match_id, s.side_no, s.score, s.player, facts, names) for s in sides
    ]


def _pack(
    player_pk: int, discipline: str, earliest: Month, tables: bool
) -> player_packs.Stored | None:
    if not loader.uses_copy():
        return None
    with connection.cursor() as cursor:
        return player_packs.read(cursor, player_pk, discipline, earliest, tables=tables)


def _packed_points(
    player_pk: int,
    discipline: str,
    earliest: Month,
    latest: Month,
    stored: player_packs.Stored,
    also: Mapping[Month, Collection[int]],
) -> tuple[fladub.Results, np.ndarray, dict[int, fladub.PublishedList]]:
    """:func:`_own_points` of the span's results, those the pack holds taken from it: the
    rest (later counting months, matches changed since, months played whose strength list
    an erratum replaced) read as rows and scored."""
    first = earliest.index + 1 - fladub.WINDOW_MONTHS
    # The versions of the lists in force now, for each month played of the span and
    # ``also``: a month whose version is not the one the pack read is scored again.
    served = {Month.from_index(m) for m in range(first, latest.index + 1)} | set(also)
    lists = published_ids(discipline, {month.prev() for month in served})
    packed = stored.columns
    stale = [
        m for m in result_packs.stale_months(stored.strengths, lists) if first <= m <= latest.index
    ]
    keep = (
        (packed.month_played >= first)
        & (packed.month_played <= latest.index)
        & (packed.counting_month <= latest.index)
        & (packed.void_month > earliest.index)
    )
    if len(stored.changed):
        keep &= ~np.isin(packed.match_id, stored.changed)
    if stale:
        keep &= ~np.isin(packed.month_played, stale)
    kept = packed.take(np.flatnonzero(keep))
    if latest.index > stored.month or len(stored.changed) or stale:
        unpacked = sql.Unpacked(packed=stored.month, changed=stored.changed.tolist(), stale=stale)
        sides, void = _match_sides(player_pk, discipline, earliest, latest, unpacked)
    else:
        sides, void = fladub.Sides.empty(), np.zeros(0, dtype=np.int32)
    fresh, fresh_void, strengths = _own_points(player_pk, discipline, sides, void, also, lists)
    match_id = np.concatenate([kept.match_id, fresh.match_id])
    order = np.argsort(match_id, kind="stable")
    return (
        fladub.Results(
            match_id=match_id[order],
            month_played=np.concatenate([kept.month_played, fresh.month_played])[order],
            counting_month=np.concatenate([kept.counting_month, fresh.counting_month])[order],
            player=np.zeros(len(match_id), dtype=np.int64),
            points=np.concatenate([kept.points, fresh.points])[order],
        ),
        np.concatenate([kept.void_month, fresh_void])[order],
        strengths,
    )


def _match_sides(
    player_pk: int,
    discipline: str,
    earliest: Month,
    latest: Month,
    unpacked: sql.Unpacked | None = None,
) -> tuple[fladub.Sides, np.ndarray]:
    """The members of every match of the player counting in L(earliest) .. L(latest) (with
    ``unpacked``: those the player's pack cannot say), as the core's columns (players by
    primary key), and each row's void month (its index; :data:`_NOT_VOIDED`: not voided).
    PostgreSQL: a binary ``COPY`` straight into NumPy (:func:`rankings.loader.player_sides`);
    elsewhere the rows, converted here."""
    if loader.uses_copy():
        copied = loader.player_sides(
            sql.player_match_sides_columns(player_pk, discipline, earliest, latest, unpacked)
        )
        void = copied.pop("void_month")
        void[void == _NOT_VOIDED_INDEX] = _NOT_VOIDED
        return fladub.Sides(**copied), void
    rows = sql.fetch(sql.player_match_sides(player_pk, discipline, earliest, latest))
    if not rows:
        return fladub.Sides.empty(), np.zeros(0, dtype=np.int32)
    columns = list(zip(*rows, strict=True))
    index = {day: Month.of(day).index for day in {*columns[1], *columns[2], *columns[7]} if day}
    sides = fladub.Sides(
        match_id=np.array(columns[0], dtype=np.int64),
        month_played=np.array([index[d] for d in columns[1]], dtype=np.int32),
        counting_month=np.array([index[d] for d in columns[2]], dtype=np.int32),
        base=np.array(columns[3], dtype=np.float64),
        side_no=np.array(columns[4], dtype=np.int16),
        score=np.array(columns[5], dtype=np.float64),
        player=np.array(columns[6], dtype=np.int64),
    )
    void = np.array([_NOT_VOIDED if d is None else index[d] for d in columns[7]], dtype=np.int32)
    return sides, void


def _own_points(
    player_pk: int,
    discipline: str,
    sides: fladub.Sides,
    void: np.ndarray,
    also: Mapping[Month, Collection[int]],
    lists: Mapping[int, int] | None = None,
) -> tuple[fladub.Results, np.ndarray, dict[int, fladub.PublishedList]]:
    """The player's rows among ``sides`` (whole matches, players by primary key; ``void``:
    each row's void month) with their match points, the month index from which each counts
    no more, and the strength lists read (by player primary key: those matches' players
    and ``also``). ``lists``: the ids of the lists in force, if read already."""
    if not len(sides):
        return _NO_RESULTS, np.zeros(0, dtype=np.int32), _strengths(discipline, {}, also, lists)
    players, dense = np.unique(sides.player, return_inverse=True)
    sides = dataclasses.replace(sides, player=dense.astype(np.int64))
    # Each month's opponents are looked up in the list in force that month only.
    played = np.unique(sides.month_played).tolist()
    needed = {
        Month.from_index(i): players[np.unique(sides.player[sides.month_played == i])].tolist()
        for i in played
    }
    published = _strengths(discipline, needed, also, lists)
    me = int(np.searchsorted(players, player_pk))
    computed = fladub.match_points(sides, _renumbered(published, players))
    mine = computed.player == me
    # The void month of each of the player's matches (a player sits once in a match).
    read = np.flatnonzero(sides.player == me)
    read = read[np.argsort(sides.match_id[read], kind="stable")]
    voided = void[read]
    match_id = computed.match_id[mine]
    at = np.searchsorted(sides.match_id[read], match_id)
    return (
        fladub.Results(
            match_id=match_id,
            month_played=computed.month_played[mine],
            counting_month=computed.counting_month[mine],
            player=np.zeros(len(match_id), dtype=np.int64),
            points=computed.points[mine],
        ),
        voided[at],
        published,
    )


def _strengths(
    discipline: str,
    needed: Mapping[Month, Collection[int]],
    also: Mapping[Month, Collection[int]],
    lists: Mapping[int, int] | None = None,
) -> dict[int, fladub.PublishedList]:
    """The lists in force in the months of ``needed`` and ``also``, restricted to the
    players each names (and each list's top entry): two statements, one if ``lists`` (the
    ids of the lists in force, by month index) was read already."""
    players = {month: {*needed.get(month, ()), *also.get(month, ())} for month in {*needed, *also}}
    if lists is None:
        return strength_lists(discipline=discipline, months=set(players), players=players)
    served = {month.prev().index for month in players}
    return restricted({i: list_id for i, list_id in lists.items() if i in served}, players)


def _points_for(
    player_pk: int, discipline: str, month: Month, points: PlayerPoints | None
) -> PlayerPoints:
    if points is not None and points.player_pk == player_pk and points.covers(month, discipline):
        return points
    return player_points(player_pk, discipline=discipline, months=[month])


def _page_window(page: int, page_size: int | None) -> tuple[int, int]:
    """(the page size, the offset of the page's first result) of page ``page``."""
    page_size = PAGE_SIZE if page_size is None else page_size
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page {page} of {page_size} results")
    return page_size, (page - 1) * page_size


def counting_results_page(
    player_pk: int,
    *,
    discipline: str,
    month: Month,
    page: int = 1,
    page_size: int | None = None,
    points: PlayerPoints | None = None,
) -> CountingResults[CountingResult]:
    """Page ``page`` (from 1) of the player's results counting in L(``month``), best
    first, ``page_size`` (default :data:`PAGE_SIZE`) a page; the totals are those of every
    result. A page after the last raises :class:`PageOutOfRange` (the first page exists,
    empty, for a player with no result). ``points``: the player's, if read already."""
    page_size, offset = _page_window(page, page_size)
    found = counting_results(
        player_pk,
        discipline=discipline,
        month=month,
        offset=offset,
        limit=page_size,
        points=points,
    )
    return _checked(page, found)


def counting_results(
    player_pk: int,
    *,
    discipline: str,
    month: Month,
    offset: int = 0,
    limit: int | None = None,
    points: PlayerPoints | None = None,
) -> CountingResults[CountingResult]:
    """The results of the player counting in L(``month``) of ``discipline``, best first,
    each with its table: all of them, or ``limit`` from ``offset`` on (the totals always of
    all). ``points``: the player's (:func:`player_points`), if read already."""
    found = _points_for(player_pk, discipline, month, points)
    return _shown(found, month, offset=offset, limit=limit, name=_with_tables)


def counted_results_page(
    player_pk: int, *, discipline: str, month: Month, page: int = 1, page_size: int | None = None
) -> CountingResults[CountedResult]:
    """:func:`counting_results_page` without the tables: each shown result named by its
    match's facts only (one statement for the shown matches, no seats or names: what the
    API's page of results shows). The same results, totals and :class:`PageOutOfRange`."""
    page_size, offset = _page_window(page, page_size)
    found = _points_for(player_pk, discipline, month, None)
    return _checked(page, _shown(found, month, offset=offset, limit=page_size, name=_with_facts))


Namer = Callable[
    [fladub.Breakdown, list[int], int, PlayerPoints, dict[int, Month]], Iterable[ResultT]
]
"""Makes the shown results: (breakdown, the shown matches, the first one's place, the
player's points, the months by index)."""


def _with_tables(
    breakdown: fladub.Breakdown,
    shown: list[int],
    start: int,
    points: PlayerPoints,
    months: dict[int, Month],
) -> Iterable[CountingResult]:
    """The shown results with their tables: from the player's pack those it can say, the
    others read as rows (one statement, none if the pack says all)."""
    me = points.player_pk
    named: dict[int, sql.MatchFacts | sql.MemberRow] = {}
    tables: dict[int, Table] = {}
    mine: dict[int, int] = {}
    for m, (facts, seats) in points.packed_tables(shown).items():
        named[m], tables[m] = facts, _seated(seats)
        mine[m] = next(seat.side_position for seat in seats if seat.player_pk == me)
    rest = [m for m in shown if m not in tables]
    if rest:
        read, read_mine = _tables(sql.MEMBER_ROWS.rows(sql.match_members(rest)), me)
        tables.update(read)
        mine.update(read_mine)
        named.update((m, _member(read[m][read_mine[m]][0])) for m in rest)
    return (
        _result(breakdown, i, named[m], tables[m], mine[m], me, months)
        for i, m in enumerate(shown, start)
    )


def _member(seated: Seated) -> sql.MemberRow:
    """A member read as a row (which names its match, as a packed seat does not)."""
    if not isinstance(seated, sql.MemberRow):
        raise TypeError(f"{seated!r} was not read as a row")
    return seated


def _seated(seats: Iterable[player_tables.Seat]) -> Table:
    """A packed match's seats by side position."""
    table: Table = defaultdict(list)
    for seat in seats:
        table[seat.side_position].append(seat)
    return table


def _with_facts(
    breakdown: fladub.Breakdown,
    shown: list[int],
    start: int,
    points: PlayerPoints,
    months: dict[int, Month],
) -> Iterable[CountedResult]:
    facts = {f.match_pk: f for f in sql.MATCH_FACTS.rows(sql.match_facts(shown))}
    return (_counted(breakdown, i, facts[m], months) for i, m in enumerate(shown, start))


def _shown(
    points: PlayerPoints, month: Month, *, offset: int, limit: int | None, name: Namer[ResultT]
) -> CountingResults[ResultT]:
    """The player's results ``offset`` .. ``offset + limit`` in L(``month``) (all: no
    ``limit``), made by ``name`` (not called when none is shown), with the totals of all."""
    breakdown = points.breakdown(month)
    count = len(breakdown.match_id)
    stop = count if limit is None else min(count, offset + limit)
    shown = breakdown.match_id[offset:stop].tolist()
    made = name(breakdown, shown, offset, points, _months(breakdown)) if shown else ()
    return CountingResults(
        player_pk=points.player_pk,
        discipline=points.discipline,
        month=month,
        results=tuple(made),
        count=count,
        offset=offset,
        limit=limit,
        fladub_cents=breakdown.fladub_cents,
        next_month_cents=_next_month_cents(breakdown),
    )


def _checked(page: int, found: CountingResults[ResultT]) -> CountingResults[ResultT]:
    """``found``, page ``page`` of the results; :class:`PageOutOfRange` after the last."""
    if page > found.num_pages:
        raise PageOutOfRange(f"page {page} of {found.num_pages}")
    return found


def counted_results(
    player_pk: int, *, discipline: str, month: Month, points: PlayerPoints | None = None
) -> CountingResults[CountedResult]:
    """Every result of the player counting in L(``month``), best first, named by its
    match's facts but without its table (one statement for the facts, none for the
    tables: what a ledger and a forecast need of a busy player's thousand results)."""
    points = _points_for(player_pk, discipline, month, points)
    found = points.counted.get(month)
    if found is not None:
        return found
    breakdown = points.breakdown(month)
    match_ids = breakdown.match_id.tolist()
    facts = points.facts() if match_ids else {}
    months = _months(breakdown)
    found = CountingResults(
        player_pk=player_pk,
        discipline=discipline,
        month=month,
        results=tuple(
            _counted(breakdown, i, facts[match_id], months) for i, match_id in enumerate(match_ids)
        ),
        count=len(match_ids),
        fladub_cents=breakdown.fladub_cents,
        next_month_cents=_next_month_cents(breakdown),
    )
    points.counted[month] = found
    return found


def _renumbered(
    published: Mapping[int, fladub.PublishedList], players: np.ndarray
) -> dict[int, fladub.PublishedList]:
    """The restricted lists with the dense player indices (positions in the sorted
    ``players``); a list's top entry whose player sat at none of the tables goes under an
    index no player uses (it only sets F_max)."""
    outside = len(players)
    renumbered = {}
    for month, listed in published.items():
        at = np.searchsorted(players, listed.player)
        found = at < outside
        found[found] = players[at[found]] == listed.player[found]
        renumbered[month] = fladub.PublishedList(
            player=np.where(found, at, outside).astype(np.int64),
            fladub_cents=listed.fladub_cents,
        )
    return renumbered


Seated = sql.MemberRow | player_tables.Seat
"""A player at a table, read as a row or from a pack."""
Table = dict[int, list[Seated]]
"""A match's members by side position."""


def _tables(
    members: Sequence[sql.MemberRow], player_pk: int
) -> tuple[dict[int, Table], dict[int, int]]:
    """The matches' tables, and the side position of ``player_pk`` at each of them."""
    tables: dict[int, Table] = defaultdict(lambda: defaultdict(list))
    mine: dict[int, int] = {}
    for member in members:
        tables[member.match_id][member.side_position].append(member)
        if member.player_pk == player_pk:
            mine[member.match_id] = member.side_position
    return tables, mine


def _ref(member: Seated) -> PlayerRef:
    return PlayerRef(player_id=member.player_id, name=member.name)


def _months(breakdown: fladub.Breakdown) -> dict[int, Month]:
    """The months of a breakdown by index (a few, shared by its thousand results)."""
    indices = {*breakdown.month_played.tolist(), *breakdown.counting_month.tolist()}
    return {i: Month.from_index(i) for i in indices}


def _numbers(breakdown: fladub.Breakdown, i: int, months: dict[int, Month]) -> dict[str, Any]:
    """Row ``i`` of the core's breakdown as a result's fields."""
    return {
        "match_pk": int(breakdown.match_id[i]),
        "month_played": months[int(breakdown.month_played[i])],
        "counting_month": months[int(breakdown.counting_month[i])],
        "age": int(breakdown.age[i]),
        "weight_twelfths": int(breakdown.weight_twelfths[i]),
        "points": float(breakdown.points[i]),
        "weighted": float(breakdown.weighted[i]),
        "in_best": bool(breakdown.in_best[i]),
    }


def _named(match: sql.MatchFacts | sql.MemberRow) -> dict[str, Any]:
    """A result's fields that name its match (a member's row carries them too)."""
    return {
        "match_id": match.external_id,
        "club_id": match.club_id,
        "club_name": match.club_name,
        "date_played": match.date_played,
        "category": match.category,
    }


def _counted(
    breakdown: fladub.Breakdown, i: int, facts: sql.MatchFacts, months: dict[int, Month]
) -> CountedResult:
    return CountedResult(**_named(facts), **_numbers(breakdown, i, months))


def _result(
    breakdown: fladub.Breakdown,
    i: int,
    named: sql.MatchFacts | sql.MemberRow,
    table: Table,
    my_position: int,
    player_pk: int,
    months: dict[int, Month],
) -> CountingResult:
    """Row ``i`` of the core's breakdown, with the match ``named`` and the table it was
    played at, where the player sat on the side at ``my_position``."""
    mine = table[my_position]
    me = mine[0]
    others = sorted(
        (
            OtherSide(score=seated[0].score, players=tuple(_ref(m) for m in seated))
            for pos, seated in table.items()
            if pos != my_position
        ),
        key=_lower_score_last,
    )
    return CountingResult(
        **_named(named),
        **_numbers(breakdown, i, months),
        side_score=me.score,
        place=1 + sum(side.score > me.score for side in others),
        sides=len(table),
        team=tuple(_ref(m) for m in mine if m.player_pk != player_pk),
        opponents=tuple(others),
    )


def _lower_score_last(side: OtherSide) -> int:
    return -side.score


def _next_month_cents(breakdown: fladub.Breakdown) -> int:
    """The sum of the best 20 of the results' weighted points next month (each a twelfth
    lighter), rounded as published."""
    weighted = breakdown.points * np.maximum(breakdown.weight_twelfths - 1, 0)
    best = np.sort(weighted / fladub.WINDOW_MONTHS)[::-1][: fladub.BEST_OF]
    # Summed in order, largest first, as CountingResult.weighted_next values add up.
    return int(fladub.round_half_away_cents(np.array([sum(best.tolist())]))[0])
