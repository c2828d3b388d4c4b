"""The clubs: the registry by country, and a club's page.

In: a club id and the federation's current month. Out: :func:`clubs_by_country` (every
club, grouped), :func:`club_page` (:class:`ClubPage`: the club, the current lists, its
members with their entries in those lists, best ranked first, its latest valid results
with their sides and players, and per month played whether its matches were submitted on
time). Guaranteed: a fixed number of queries (eight at most for a club page), published
lists only.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q
from django.db.models.functions import TruncMonth

from matches.disciplines import CODES
from matches.models import Club, Match, Player, Status
from matches.months import Month
from matches.selectors import match_list

from ..models import RankingEntry
from ..sql import ListInfo
from .lists import current_lists

RECENT_MATCHES = 20
PUNCTUALITY_MONTHS = 12


def clubs_by_country() -> list[tuple[str, list[Club]]]:
    """Every club, by country, then name (one query)."""
    by_country: dict[str, list[Club]] = {}
    for club in Club.objects.order_by("country", "name"):
        by_country.setdefault(club.country, []).append(club)
    return sorted(by_country.items())


@dataclass
class ClubMember:
    player: Player
    entries: dict[str, RankingEntry]


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


@dataclass(frozen=True)
class ClubPage:
    club: Club
    lists: list[ListInfo]
    """The current lists, in the disciplines' order."""
    members: list[ClubMember]
    recent: list[Match]
    punctuality: list[Punctuality]
    """The last months played, oldest first."""

    @property
    def punctuality_total(self) -> int:
        return sum(p.total for p in self.punctuality)

    @property
    def punctuality_on_time(self) -> int:
        return sum(p.on_time for p in self.punctuality)

    @property
    def punctuality_percent(self) -> int | None:
        total = self.punctuality_total
        return round(100 * self.punctuality_on_time / total) if total else None


def club_page(club_id: str, *, today: Month) -> ClubPage | None:
    """What a club's page shows; None for an unknown club."""
    club = Club.objects.filter(club_id=club_id).first()
    if club is None:
        return None
    lists = current_lists().lists
    ordered = [lists[code] for code in CODES if code in lists]
    return ClubPage(
        club=club,
        lists=ordered,
        members=_members(club, ordered),
        recent=list(
            match_list(club=club)
            .select_related(None)  # the page shows no submission, replaced match or club
            .filter(voided_at__isnull=True)
            .order_by("-date_played", "-id")[:RECENT_MATCHES]
        ),
        punctuality=_punctuality(club, last=today),
    )


def _members(club: Club, lists: Iterable[ListInfo]) -> list[ClubMember]:
    """The club's players (merged records left out) with their entries in the given lists,
    ordered by their rank in the first list, then the next, then by name (two queries)."""
    players = list(
        Player.objects.filter(club=club, merged_into__isnull=True).order_by("name", "player_id")
    )
    by_id = {ranking_list.id: ranking_list for ranking_list in lists}
    entries: dict[int, dict[str, RankingEntry]] = defaultdict(dict)
    if players and by_id:
        # By the members' ids: one probe each on (list, player), never a walk of the lists.
        for entry in RankingEntry.objects.filter(
            ranking_list_id__in=list(by_id), player_id__in=[p.pk for p in players]
        ).order_by():
            entries[entry.player_id][by_id[entry.ranking_list_id].discipline] = entry
    members = [ClubMember(player=p, entries=entries.get(p.pk, {})) for p in players]
    order = [ranking_list.discipline for ranking_list in by_id.values()]
    unranked = 1 << 62
    members.sort(
        key=lambda m: tuple(m.entries[d].rank if d in m.entries else unranked for d in order)
    )
    return members


def _punctuality(club: Club, *, last: Month) -> list[Punctuality]:
    """Per month played (the months up to ``last``, oldest first): the club's matches and
    how many were submitted on time. A correction is not a new submission: only first
    revisions count. One query."""
    first = last + (1 - PUNCTUALITY_MONTHS)
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
    for i in range(PUNCTUALITY_MONTHS):
        day = (first + i).first_day
        total, on_time = found.get(day, (0, 0))
        out.append(Punctuality(month=day, total=total, on_time=on_time))
    return out
