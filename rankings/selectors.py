"""Read queries of the rankings app: published lists, their entries, a player's history and
the results behind a player's number. Readers see published lists only.

- :func:`current_list` follows the discipline's pointer (flipped at publication);
- :func:`list_entries` is a list in list order (rank, then federation id), filtered by
  country, club and a name (or federation id) search, for paging. The writer stores a
  list's entries in list order, so (rank, id) is that order, and the index
  ``entry_list_order`` (ranking_list, rank, id) reads it without sorting;
- :func:`player_history` gives FLADUB and rank per published month;
- :func:`player_breakdown` recomputes, with the ranking job's own code
  (:func:`rankings.fladub.match_points` and :func:`rankings.fladub.player_breakdown`), every
  result that counts for a player in a list, with its age, weight and whether it is among
  the best 20. Only the player's matches are read, with the opponents' published FLADUB
  in the list before each match; the sum of the best 20 equals the published number.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from django.db.models import Q, QuerySet

from matches.models import Match, Player, SideMember
from matches.months import Month

from . import fladub
from .models import CurrentList, RankingEntry, RankingList

EXPORT_HEADER = (
    "rank",
    "player_id",
    "name",
    "country",
    "fladub",
    "results_counted",
    "previous_rank",
)
_MAX_MERGE_HOPS = 20


def current_list(*, discipline: str) -> RankingList | None:
    pointer = (
        CurrentList.objects.select_related("ranking_list")
        .filter(discipline=discipline, ranking_list__status=RankingList.Status.PUBLISHED)
        .first()
    )
    return pointer.ranking_list if pointer is not None else None


def list_for_month(*, discipline: str, month: Month) -> RankingList | None:
    return RankingList.objects.filter(
        discipline=discipline, month=month.first_day, status=RankingList.Status.PUBLISHED
    ).first()


def published_lists(*, discipline: str) -> QuerySet[RankingList]:
    """The archive: every published list of a discipline, newest month first."""
    return RankingList.objects.filter(
        discipline=discipline, status=RankingList.Status.PUBLISHED
    ).order_by("-month")


def list_entries(
    *,
    ranking_list: RankingList,
    country: str | None = None,
    club: str | None = None,
    search: str | None = None,
) -> QuerySet[RankingEntry]:
    """The list's entries in list order with player and club loaded (no query per row)."""
    entries = RankingEntry.objects.filter(ranking_list=ranking_list).select_related(
        "player", "player__club"
    )
    if country:
        entries = entries.filter(player__country=country.upper())
    if club:
        entries = entries.filter(player__club__club_id=club)
    if search:
        needle = search.strip()
        entries = entries.filter(
            Q(player__name__icontains=needle) | Q(player__player_id__iexact=needle)
        )
    return entries.order_by("rank", "id")


def export_rows(
    ranking_list: RankingList, *, chunk_size: int = 5000
) -> Iterator[tuple[int, str, str, str, int, int, int | None]]:
    """(rank, player_id, name, country, fladub_cents, results_counted, previous_rank) in list
    order, streamed from the database in chunks (a list of a million rows fits nowhere)."""
    rows = (
        RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "id")
        .values_list(
            "rank",
            "player__player_id",
            "player__name",
            "player__country",
            "fladub_cents",
            "results_counted",
            "previous_rank",
        )
    )
    yield from rows.iterator(chunk_size=chunk_size)


def resolve_player(player_id: str) -> Player | None:
    """The player of a federation id; a merged record resolves to the one it was merged into."""
    player = Player.objects.filter(player_id=player_id).first()
    hops = 0
    while player is not None and player.merged_into_id is not None and hops < _MAX_MERGE_HOPS:
        player = Player.objects.get(pk=player.merged_into_id)
        hops += 1
    return player


@dataclass(frozen=True)
class HistoryRow:
    month: Month
    fladub: Decimal
    rank: int
    results_counted: int
    previous_rank: int | None
    movement: int | None


def player_history(*, player: Player, discipline: str) -> list[HistoryRow]:
    """FLADUB and rank in every published list the player is on, oldest month first."""
    rows = (
        RankingEntry.objects.filter(
            player=player,
            ranking_list__discipline=discipline,
            ranking_list__status=RankingList.Status.PUBLISHED,
        )
        .order_by("ranking_list__month")
        .values_list(
            "ranking_list__month",
            "fladub_cents",
            "rank",
            "results_counted",
            "previous_rank",
            "movement",
        )
    )
    return [
        HistoryRow(Month.of(month), Decimal(cents) / 100, rank, counted, previous, movement)
        for month, cents, rank, counted, previous, movement in rows
    ]


@dataclass(frozen=True)
class CountingResult:
    match: Match
    date_played: dt.date
    counting_month: Month
    category: str
    points: float
    age: int
    weight: Decimal
    weighted: float
    in_best: bool


@dataclass(frozen=True)
class Breakdown:
    ranking_list: RankingList
    player: Player
    results: list[CountingResult]
    fladub_cents: int

    @property
    def fladub(self) -> Decimal:
        return Decimal(self.fladub_cents) / 100


def player_breakdown(*, player: Player, ranking_list: RankingList) -> Breakdown:
    """Every result of ``player`` that counts in ``ranking_list``, best first."""
    month = Month.of(ranking_list.month)
    first = month + (1 - fladub.WINDOW_MONTHS)
    window = SideMember.objects.filter(
        discipline=ranking_list.discipline,
        counting_month__lte=month.first_day,
        month_played__gte=first.first_day,
        month_played__lte=month.first_day,
    ).exclude(void_effective_month__lte=month.first_day)
    match_ids = list(window.filter(player=player).values_list("match_id", flat=True))
    rows = list(
        window.filter(match_id__in=match_ids)
        .order_by("match_id", "side_position", "player_id")
        .values_list(
            "match_id",
            "month_played",
            "counting_month",
            "base",
            "side_position",
            "score",
            "player_id",
        )
    )
    if not rows:
        return Breakdown(ranking_list, player, [], 0)
    columns = list(zip(*rows, strict=True))
    sides = fladub.Sides(
        match_id=np.array(columns[0], dtype=np.int64),
        month_played=np.array([Month.of(d).index for d in columns[1]], dtype=np.int32),
        counting_month=np.array([Month.of(d).index for d in columns[2]], dtype=np.int32),
        base=np.array(columns[3], dtype=np.float64),
        side_no=np.array(columns[4], dtype=np.int16),
        score=np.array(columns[5], dtype=np.float64),
        player=np.array(columns[6], dtype=np.int64),
    )
    published = _strength_lists(
        discipline=ranking_list.discipline,
        months={Month.from_index(m - 1) for m in set(sides.month_played.tolist())},
        players=set(sides.player.tolist()),
    )
    results = fladub.match_points(sides, published)
    found = fladub.player_breakdown(results, player.pk, month.index)
    matches = Match.objects.select_related("club").in_bulk(found.match_id.tolist())
    counting: list[CountingResult] = []
    for i, match_id in enumerate(found.match_id.tolist()):
        match = matches[match_id]
        counting.append(
            CountingResult(
                match=match,
                date_played=match.date_played,
                counting_month=Month.from_index(int(found.counting_month[i])),
                category=match.category,
                points=float(found.points[i]),
                age=int(found.age[i]),
                weight=Decimal(int(found.weight_twelfths[i])) / fladub.WINDOW_MONTHS,
                weighted=float(found.weighted[i]),
                in_best=bool(found.in_best[i]),
            )
        )
    return Breakdown(ranking_list, player, counting, found.fladub_cents)


def _strength_lists(
    *, discipline: str, months: set[Month], players: set[int]
) -> dict[int, fladub.PublishedList]:
    """The published lists of ``months``, reduced to ``players`` plus each list's top entry
    (F_max, the divisor of opponent strength)."""
    lists = RankingList.objects.filter(
        discipline=discipline,
        status=RankingList.Status.PUBLISHED,
        month__in=[m.first_day for m in months],
    ).values_list("pk", "month")
    published: dict[int, fladub.PublishedList] = {}
    for list_id, day in lists:
        entries = RankingEntry.objects.filter(ranking_list_id=list_id)
        rows = dict(entries.filter(player_id__in=players).values_list("player_id", "fladub_cents"))
        top = entries.order_by("rank").values_list("player_id", "fladub_cents").first()
        if top is None:
            continue
        rows.setdefault(top[0], top[1])
        published[Month.of(day).index] = fladub.PublishedList(
            player=np.array(list(rows), dtype=np.int64),
            fladub_cents=np.array(list(rows.values()), dtype=np.int64),
        )
    return published
