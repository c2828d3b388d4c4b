"""Read queries of the public pages: the home page, clubs, the archive, the feed, badges.

Every function here reads published data only (a list whose status is ``published``, and the
registry and results behind it) and runs a fixed, small number of queries, whatever the size
of the list: never a ``COUNT(*)`` over a list (its ``entry_count`` is stored), never a query
per row.

The ranking page's reads (the discipline's lists, a page of a list, whole or filtered, the
filters' choices) are in :mod:`rankings.selectors_ranking_page`, the player page's in
:mod:`rankings.selectors_player_page`: the two pages that must answer quickly with a
million ranked players write their SQL out.

The general read queries (the current list, a month's list, the archive, a list's entries
in order with filters, a player's history, merged records) are those of
:mod:`rankings.selectors`; this module adds what only the pages need.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncMonth

from matches.models import Club, Match, Player, Secretary, Status
from matches.months import Month

from . import selectors
from .models import CurrentList, RankingEntry, RankingList

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


# --- players --------------------------------------------------------------------------------


def player_entries(player: Player, lists: Iterable[RankingList]) -> dict[str, RankingEntry]:
    """Discipline -> the player's entry in each given list (one query)."""
    by_id = {ranking_list.pk: ranking_list for ranking_list in lists}
    entries = RankingEntry.objects.filter(player=player, ranking_list_id__in=list(by_id))
    return {by_id[e.ranking_list_id].discipline: e for e in entries.order_by()}


# --- clubs ----------------------------------------------------------------------------------


def all_clubs() -> QuerySet[Club]:
    return Club.objects.order_by("country", "name")


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
