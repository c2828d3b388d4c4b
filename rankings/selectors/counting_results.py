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
not thousands.

How: the results are recomputed from the stored results with the FLADUB core
(:mod:`rankings.fladub`), the code the ranking job runs, on the player's matches only. Their
match points need the opponents' FLADUB in the list before each match: the strength lists
(:func:`~rankings.selectors.strength_lists.strength_lists`) restricted to the players of
those matches; the weights follow from R. Player indices are renumbered densely, so that the
core's per-player tables hold the few dozen players of those matches, not one slot per
player id of a registry of a million.

Guaranteed: four queries whatever the number of results, months or players (the members
of the player's matches in the window of :func:`rankings.sql.window_condition`, from the
members' rows alone; the lists; their entries; the shown results' tables with names,
dates and clubs); the core's input is built column by column (NumPy), and only the shown
results become Python objects; for a published list, ``fladub_cents`` equals the
published number unless the results changed after it was closed (a merge), which the
player page says. The player page, the API and later readers (ledgers, forecasts) all
read a player's results here.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from matches.months import Month

from .. import fladub, sql
from .strength_lists import strength_lists

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
class CountingResult:
    """One result of the player that counts in a list, with what it is worth."""

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
    side_score: int
    place: int
    """1 + the number of sides that scored more."""
    sides: int
    team: tuple[PlayerRef, ...]
    """The player's partners (a team game)."""
    opponents: tuple[OtherSide, ...]
    """Every other side, best score first."""

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
class CountingResults:
    player_pk: int
    discipline: str
    month: Month
    results: tuple[CountingResult, ...] = ()
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


def counting_results_page(
    player_pk: int,
    *,
    discipline: str,
    month: Month,
    page: int = 1,
    page_size: int | None = None,
) -> CountingResults:
    """Page ``page`` (from 1) of the player's results counting in L(``month``), best
    first, ``page_size`` (default :data:`PAGE_SIZE`) a page; the totals are those of every
    result. A page after the last raises :class:`PageOutOfRange` (the first page exists,
    empty, for a player with no result)."""
    page_size = PAGE_SIZE if page_size is None else page_size
    if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page {page} of {page_size} results")
    found = counting_results(
        player_pk,
        discipline=discipline,
        month=month,
        offset=(page - 1) * page_size,
        limit=page_size,
    )
    if page > found.num_pages:
        raise PageOutOfRange(f"page {page} of {found.num_pages}")
    return found


def counting_results(
    player_pk: int,
    *,
    discipline: str,
    month: Month,
    offset: int = 0,
    limit: int | None = None,
) -> CountingResults:
    """The results of the player counting in L(``month``) of ``discipline``, best first:
    all of them, or ``limit`` from ``offset`` on (the totals always of all)."""
    rows = sql.fetch(sql.player_match_sides(player_pk, discipline, month))
    if not rows:
        return CountingResults(
            player_pk=player_pk, discipline=discipline, month=month, offset=offset, limit=limit
        )
    columns = list(zip(*rows, strict=True))
    players, dense = np.unique(np.array(columns[6], dtype=np.int64), return_inverse=True)
    index = {day: Month.of(day).index for day in {*columns[1], *columns[2]}}
    sides = fladub.Sides(
        match_id=np.array(columns[0], dtype=np.int64),
        month_played=np.array([index[d] for d in columns[1]], dtype=np.int32),
        counting_month=np.array([index[d] for d in columns[2]], dtype=np.int32),
        base=np.array(columns[3], dtype=np.float64),
        side_no=np.array(columns[4], dtype=np.int16),
        score=np.array(columns[5], dtype=np.float64),
        player=dense.astype(np.int64),
    )
    published = strength_lists(
        discipline=discipline,
        months={Month.from_index(i) for i in np.unique(sides.month_played).tolist()},
        players=players.tolist(),
    )
    me = int(np.searchsorted(players, player_pk))
    results = fladub.match_points(sides, _renumbered(published, players))
    breakdown = fladub.player_breakdown(results, me, month.index)
    count = len(breakdown.match_id)
    stop = count if limit is None else min(count, offset + limit)
    shown = breakdown.match_id[offset:stop].tolist()
    tables = _tables(sql.MEMBER_ROWS.rows(sql.match_members(shown))) if shown else {}
    return CountingResults(
        player_pk=player_pk,
        discipline=discipline,
        month=month,
        results=tuple(
            _result(breakdown, i, tables[match_id], player_pk)
            for i, match_id in enumerate(shown, start=offset)
        ),
        count=count,
        offset=offset,
        limit=limit,
        fladub_cents=breakdown.fladub_cents,
        next_month_cents=_next_month_cents(breakdown),
    )


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


Table = dict[int, list[sql.MemberRow]]
"""A match's members by side position."""


def _tables(members: Sequence[sql.MemberRow]) -> dict[int, Table]:
    tables: dict[int, Table] = defaultdict(lambda: defaultdict(list))
    for member in members:
        tables[member.match_id][member.side_position].append(member)
    return tables


def _ref(member: sql.MemberRow) -> PlayerRef:
    return PlayerRef(player_id=member.player_id, name=member.name)


def _result(
    breakdown: fladub.Breakdown,
    i: int,
    table: Table,
    player_pk: int,
) -> CountingResult:
    """Row ``i`` of the core's breakdown, with the table it was played at."""
    my_position = next(
        pos for pos, seated in table.items() if any(m.player_pk == player_pk for m in seated)
    )
    mine = table[my_position]
    me = mine[0]
    others = sorted(
        (
            OtherSide(score=seated[0].score, players=tuple(_ref(m) for m in seated))
            for pos, seated in table.items()
            if pos != my_position
        ),
        key=lambda side: -side.score,
    )
    return CountingResult(
        match_id=me.external_id,
        match_pk=int(breakdown.match_id[i]),
        club_id=me.club_id,
        club_name=me.club_name,
        date_played=me.date_played,
        category=me.category,
        month_played=Month.from_index(int(breakdown.month_played[i])),
        counting_month=Month.from_index(int(breakdown.counting_month[i])),
        age=int(breakdown.age[i]),
        weight_twelfths=int(breakdown.weight_twelfths[i]),
        points=float(breakdown.points[i]),
        weighted=float(breakdown.weighted[i]),
        in_best=bool(breakdown.in_best[i]),
        side_score=me.score,
        place=1 + sum(1 for side in others if side.score > me.score),
        sides=len(table),
        team=tuple(_ref(m) for m in mine if m.player_pk != player_pk),
        opponents=tuple(others),
    )


def _next_month_cents(breakdown: fladub.Breakdown) -> int:
    """The sum of the best 20 of the results' weighted points next month (each a twelfth
    lighter), rounded as published."""
    weighted = breakdown.points * np.maximum(breakdown.weight_twelfths - 1, 0)
    best = np.sort(weighted / fladub.WINDOW_MONTHS)[::-1][: fladub.BEST_OF]
    # Summed in order, largest first, as CountingResult.weighted_next values add up.
    return int(fladub.round_half_away_cents(np.array([sum(best.tolist())]))[0])
