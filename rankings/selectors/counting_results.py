"""A player's counting results: every result that counts in a list, with what it is worth
today and next month.

In: a player (``Player`` primary key), a discipline and the month R of a list L(R): any
list, published or not (a projection of the open month reads the same way). Out:
:class:`CountingResults`, plain data: each :class:`CountingResult` with its match (the
club's match id, date, club, category, month played and counting month), the table (the
player's place, score, partners and every other side with its players), and its worth:
match points, age, weight now and next month, weighted points, whether among the best 20;
then the sum of the best 20 as published (``fladub_cents``) and what the same results give
in L(R + 1) with no new result. Best first.

How: the results are recomputed from the stored results with the FLADUB core
(:mod:`rankings.fladub`), the code the ranking job runs, on the player's matches only. Their
match points need the opponents' FLADUB in the list before each match: the strength lists
(:func:`~rankings.selectors.strength_lists.strength_lists`) restricted to the players of
those matches; the weights follow from R. Player indices are renumbered densely, so that the
core's per-player tables hold the few dozen players of those matches, not one slot per
player id of a registry of a million.

Guaranteed: three queries whatever the number of results, months or players (the members
of the player's matches in the window of :func:`rankings.sql.window_condition`, the lists,
their entries); for a published list, ``fladub_cents`` equals the published number unless
the results changed after it was closed (a merge), which the player page says. The player
page, the API and later readers (ledgers, forecasts) all read a player's results here.
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
    fladub_cents: int = 0
    """The sum of the best 20, rounded as published."""
    next_month_cents: int = 0
    """What the same results would give in next month's list, with no new result."""

    @property
    def fladub(self) -> Decimal:
        return Decimal(self.fladub_cents) / 100

    @property
    def next_month(self) -> Decimal:
        return Decimal(self.next_month_cents) / 100


def counting_results(player_pk: int, *, discipline: str, month: Month) -> CountingResults:
    """Every result of the player counting in L(``month``) of ``discipline``, best first."""
    members = sql.PLAYER_MATCH_MEMBERS.rows(sql.player_match_members(player_pk, discipline, month))
    if not members:
        return CountingResults(player_pk=player_pk, discipline=discipline, month=month)
    dense: dict[int, int] = {}
    for member in members:
        dense.setdefault(member.player_pk, len(dense))
    days = {m.month_played for m in members} | {m.counting_month for m in members}
    months = {day: Month.of(day) for day in days}
    published = strength_lists(
        discipline=discipline,
        months={months[m.month_played] for m in members},
        players=dense.keys(),
    )
    results = fladub.match_points(_sides(members, dense, months), _renumbered(published, dense))
    breakdown = fladub.player_breakdown(results, dense[player_pk], month.index)
    tables = _tables(members)
    counting = tuple(
        _result(breakdown, i, tables[int(breakdown.match_id[i])], player_pk, months)
        for i in range(len(breakdown.match_id))
    )
    return CountingResults(
        player_pk=player_pk,
        discipline=discipline,
        month=month,
        results=counting,
        fladub_cents=breakdown.fladub_cents,
        next_month_cents=_best_sum_cents([r.weighted_next for r in counting]),
    )


def _sides(
    members: Sequence[sql.MemberRow], dense: Mapping[int, int], months: Mapping[dt.date, Month]
) -> fladub.Sides:
    """The members as the core's input, players renumbered densely."""
    index = {day: month.index for day, month in months.items()}
    return fladub.Sides(
        match_id=np.array([m.match_id for m in members], dtype=np.int64),
        month_played=np.array([index[m.month_played] for m in members], dtype=np.int32),
        counting_month=np.array([index[m.counting_month] for m in members], dtype=np.int32),
        base=np.array([m.base for m in members], dtype=np.float64),
        side_no=np.array([m.side_position for m in members], dtype=np.int16),
        score=np.array([m.score for m in members], dtype=np.float64),
        player=np.array([dense[m.player_pk] for m in members], dtype=np.int64),
    )


def _renumbered(
    published: Mapping[int, fladub.PublishedList], dense: Mapping[int, int]
) -> dict[int, fladub.PublishedList]:
    """The restricted lists with the dense player indices; a list's top entry whose
    player sat at none of the tables goes under an index no player uses (it only sets
    F_max)."""
    outside = len(dense)
    return {
        month: fladub.PublishedList(
            player=np.array([dense.get(p, outside) for p in listed.player.tolist()], np.int64),
            fladub_cents=listed.fladub_cents,
        )
        for month, listed in published.items()
    }


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
    months: Mapping[dt.date, Month],
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
        month_played=months[me.month_played],
        counting_month=months[me.counting_month],
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


def _best_sum_cents(weighted: Sequence[float]) -> int:
    """The sum of the best 20 of ``weighted``, rounded as published."""
    best = sorted(weighted, reverse=True)[: fladub.BEST_OF]
    return int(fladub.round_half_away_cents(np.array([sum(best)]))[0])
