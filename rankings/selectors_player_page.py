"""The player page's read queries: the player, their standing, history and counting results.

In: a federation id, then the :class:`~matches.models.Player` found and a discipline or a
published list. Out: the player with their club (:func:`player_by_id`), the current list
of each discipline with the player's entry in it (:func:`current_standings`), the
disciplines they played (:func:`player_disciplines`), a point per published list
(:func:`player_history`) and every result that counts in a list with what it is worth
(:func:`counting_results`). Guaranteed: seven queries for a whole page, whatever the size
of the lists, the number of months or the number of results; published data only.

The SQL is written out (:mod:`rankings.raw`): the page is a handful of fixed statements,
and building them through the ORM cost more CPU than PostgreSQL spends answering them.
Model instances come back only where the page needs one (the player, the lists and entries
of the standing), loaded with the fields the page reads (the others are deferred, as with
``.only()``: reading one costs a query, never a wrong value).

The counting results are recomputed from the stored results with the FLADUB core
(:mod:`rankings.fladub`), the same code the ranking job runs, on the player's matches
only: their match points need the opponents' published FLADUB in the list before each
match, and the weights follow from the list's month. It differs from
:func:`rankings.selectors.player_breakdown` in what a page needs: the other sides of every
match (who the player played against, and the scores), a fixed three queries whatever the
number of months, and player indices renumbered densely so that the core's per-player
tables hold the few dozen players of those matches, not one slot per player id of a
registry of a million. The sum of the best 20 equals the published number unless the
results changed after the list was closed (a merge), which the page says.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from matches.models import Club, Match, Player, SideMember
from matches.months import Month

from . import fladub, raw
from .models import CurrentList, RankingEntry, RankingList

_PLAYER = Player._meta.db_table
_CLUB = Club._meta.db_table
_MATCH = Match._meta.db_table
_MEMBER = SideMember._meta.db_table
_LIST = RankingList._meta.db_table
_ENTRY = RankingEntry._meta.db_table
_CURRENT = CurrentList._meta.db_table
_PUBLISHED = RankingList.Status.PUBLISHED.value

_PLAYER_FIELDS = raw.fields(
    Player, "id", "player_id", "name", "country", "club_id", "merged_into_id"
)
_CLUB_FIELDS = raw.fields(Club, "id", "club_id", "name", "country")
_LIST_FIELDS = raw.fields(
    RankingList, "id", "discipline", "month", "version", "status", "entry_count"
)
_ENTRY_FIELDS = raw.fields(RankingEntry)


# --- the player and their standing ------------------------------------------------------------


def player_by_id(player_id: str) -> Player | None:
    """The player of a federation id with their club loaded (one query); None if unknown."""
    rows = raw.fetch(
        f"SELECT {raw.columns('p', _PLAYER_FIELDS)}, {raw.columns('c', _CLUB_FIELDS)} "  # noqa: S608
        f"FROM {_PLAYER} p LEFT JOIN {_CLUB} c ON c.id = p.club_id WHERE p.player_id = %s",
        [player_id],
    )
    if not rows:
        return None
    values = rows[0]
    split = len(_PLAYER_FIELDS)
    player = raw.loaded(Player, _PLAYER_FIELDS, values[:split])
    if values[split] is not None:
        player.club = raw.loaded(Club, _CLUB_FIELDS, values[split:])
    return player


@dataclass(frozen=True)
class Standing:
    """The published lists readers see now, and the player's entry in each that holds them."""

    lists: dict[str, RankingList]
    entries: dict[str, RankingEntry]


def current_standings(player: Player) -> Standing:
    """Discipline -> the current published list, and -> the player's entry in it (one
    query: a probe of ``entry_once_per_list`` per discipline)."""
    rows = raw.fetch(
        f"SELECT cl.discipline, {raw.columns('l', _LIST_FIELDS)}, "  # noqa: S608
        f"{raw.columns('e', _ENTRY_FIELDS)} "
        f"FROM {_CURRENT} cl JOIN {_LIST} l ON l.id = cl.ranking_list_id AND l.status = %s "
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %s",
        [_PUBLISHED, player.pk],
    )
    lists: dict[str, RankingList] = {}
    entries: dict[str, RankingEntry] = {}
    split = 1 + len(_LIST_FIELDS)
    for row in rows:
        discipline = row[0]
        lists[discipline] = raw.loaded(RankingList, _LIST_FIELDS, row[1:split])
        if row[split] is not None:
            entries[discipline] = raw.loaded(RankingEntry, _ENTRY_FIELDS, row[split:])
    return Standing(lists=lists, entries=entries)


def player_disciplines(player: Player) -> set[str]:
    """The disciplines in which the player has any result (one query, index-only)."""
    rows = raw.fetch(
        f"SELECT DISTINCT discipline FROM {_MEMBER} WHERE player_id = %s",  # noqa: S608
        [player.pk],
    )
    return {discipline for (discipline,) in rows}


# --- history ----------------------------------------------------------------------------------


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
    list holds only players with FLADUB > 0). One query: every published list of the
    discipline with a probe for the player's entry."""
    rows = raw.fetch(
        f"SELECT l.month, l.entry_count, e.rank, e.fladub_cents FROM {_LIST} l "  # noqa: S608
        f"LEFT JOIN {_ENTRY} e ON e.ranking_list_id = l.id AND e.player_id = %s "
        "WHERE l.discipline = %s AND l.status = %s ORDER BY l.month",
        [player.pk, discipline, _PUBLISHED],
    )
    points: list[HistoryPoint] = []
    for month, entry_count, rank, cents in rows:
        if rank is None and not points:
            continue  # before the first listing
        points.append(
            HistoryPoint(month=month, rank=rank, fladub_cents=cents or 0, entry_count=entry_count)
        )
    return points


# --- counting results -------------------------------------------------------------------------


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


class _Member(NamedTuple):
    """A player at a table of one of the player's matches, with the match's facts."""

    match_id: int
    month_played: dt.date
    counting_month: dt.date
    base: int
    side_position: int
    score: int
    player_pk: int
    player_id: str
    name: str
    date_played: dt.date
    category: str
    club_id: str
    club_name: str

    @property
    def opponent(self) -> Opponent:
        return Opponent(player_id=self.player_id, name=self.name)


def counting_results(player: Player, ranking_list: RankingList) -> CountingResults:
    """Every result of ``player`` that counts in ``ranking_list``, best first.

    Three queries, whatever the list's size: every member of the player's matches in the
    list's window (with the match's date, category and club; the player's results found
    on the ``member_player`` index), the published lists before the months played, and in
    those the opponents' entries and each list's top entry.
    """
    month = Month.of(ranking_list.month)
    first_month = month + (1 - fladub.WINDOW_MONTHS)
    last_day = month.first_day
    members = [
        _Member._make(row)
        for row in raw.fetch(
            "SELECT m.match_id, m.month_played, m.counting_month, m.base, "  # noqa: S608
            "m.side_position, m.score, m.player_id, p.player_id, p.name, "
            f"x.date_played, x.category, c.club_id, c.name FROM {_MEMBER} m "
            f"JOIN {_PLAYER} p ON p.id = m.player_id JOIN {_MATCH} x ON x.id = m.match_id "
            f"JOIN {_CLUB} c ON c.id = x.club_id "
            f"WHERE m.match_id IN (SELECT s.match_id FROM {_MEMBER} s "
            "WHERE s.player_id = %s AND s.discipline = %s AND s.counting_month <= %s "
            "AND s.month_played >= %s AND s.month_played <= %s "
            "AND (s.void_effective_month IS NULL OR s.void_effective_month > %s)) "
            "ORDER BY m.match_id, m.side_position, m.player_id",
            [
                player.pk,
                ranking_list.discipline,
                last_day,
                first_month.first_day,
                last_day,
                last_day,
            ],
        )
    ]
    outcome = CountingResults(ranking_list=ranking_list)
    if not members:
        return outcome

    # Dense player indices: the core sizes its tables by the largest index.
    dense: dict[int, int] = {}
    for member in members:
        dense.setdefault(member.player_pk, len(dense))
    month_index = {day: Month.of(day).index for day in {m.month_played for m in members}}
    month_index.update({day: Month.of(day).index for day in {m.counting_month for m in members}})
    sides = fladub.Sides(
        match_id=np.array([m.match_id for m in members], dtype=np.int64),
        month_played=np.array([month_index[m.month_played] for m in members], np.int32),
        counting_month=np.array([month_index[m.counting_month] for m in members], np.int32),
        base=np.array([m.base for m in members], dtype=np.float64),
        side_no=np.array([m.side_position for m in members], dtype=np.int16),
        score=np.array([m.score for m in members], dtype=np.float64),
        player=np.array([dense[m.player_pk] for m in members], dtype=np.int64),
    )
    published = _strength_lists(
        discipline=ranking_list.discipline,
        months_played={m.month_played for m in members},
        dense=dense,
    )
    results = fladub.match_points(sides, published)
    breakdown = fladub.player_breakdown(results, dense[player.pk], month.index)
    outcome.fladub_cents = breakdown.fladub_cents

    by_match: dict[int, dict[int, list[_Member]]] = defaultdict(lambda: defaultdict(list))
    for member in members:
        by_match[member.match_id][member.side_position].append(member)
    next_weighted: list[float] = []
    for i in range(len(breakdown.match_id)):
        table = by_match[int(breakdown.match_id[i])]
        my_position = next(
            pos for pos, seated in table.items() if any(m.player_pk == player.pk for m in seated)
        )
        mine = table[my_position]
        my_score = mine[0].score
        others = sorted(
            (
                (seated[0].score, [m.opponent for m in seated])
                for pos, seated in table.items()
                if pos != my_position
            ),
            key=lambda side: -side[0],
        )
        result = CountingResult(
            date_played=mine[0].date_played,
            category=mine[0].category,
            club_id=mine[0].club_id,
            club_name=mine[0].club_name,
            month_played=Month.from_index(int(breakdown.month_played[i])).first_day,
            age=int(breakdown.age[i]),
            weight_twelfths=int(breakdown.weight_twelfths[i]),
            points=float(breakdown.points[i]),
            weighted=float(breakdown.weighted[i]),
            in_best=bool(breakdown.in_best[i]),
            side_score=my_score,
            place=1 + sum(1 for score, _ in others if score > my_score),
            sides=len(table),
            team=[m.opponent for m in mine if m.player_pk != player.pk],
            opponents=others,
        )
        outcome.results.append(result)
        next_weighted.append(result.weighted_next)
    best_next = sorted(next_weighted, reverse=True)[: fladub.BEST_OF]
    outcome.next_month_cents = int(fladub.round_half_away_cents(np.array([sum(best_next)]))[0])
    return outcome


def _strength_lists(
    *, discipline: str, months_played: set[dt.date], dense: dict[int, int]
) -> dict[int, fladub.PublishedList]:
    """The published lists L(M - 1) the given matches need, restricted to their players.

    Each restricted list also carries its top FLADUB (under an index no player uses), so
    that q = F / F_max divides by the whole list's maximum, as the ranking job does. Two
    queries: the lists, then their entries of those players or of rank 1 (the list ids
    given as constants, so that both halves of the condition are index lookups; joined to
    the lists, PostgreSQL would rather scan every entry).
    """
    before = sorted({Month.of(m).prev().first_day for m in months_played})
    marks = ", ".join(["%s"] * len(before))
    months = dict(
        raw.fetch(
            f"SELECT id, month FROM {_LIST} "  # noqa: S608 - placeholders only
            f"WHERE discipline = %s AND status = %s AND month IN ({marks})",
            [discipline, _PUBLISHED, *before],
        )
    )
    if not months:
        return {}
    list_marks = ", ".join(["%s"] * len(months))
    player_marks = ", ".join(["%s"] * len(dense))
    entries = raw.fetch(
        f"SELECT ranking_list_id, player_id, rank, fladub_cents FROM {_ENTRY} "  # noqa: S608
        f"WHERE ranking_list_id IN ({list_marks}) "
        f"AND (player_id IN ({player_marks}) OR rank = 1)",
        [*months, *dense],
    )
    cents: dict[dt.date, list[tuple[int, int]]] = defaultdict(list)
    tops: dict[dt.date, int] = {}
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
