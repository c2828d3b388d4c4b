"""The clubs: the registry by country, and a club's page.

In: a club id and the federation's current month. Out: :func:`clubs_by_country` (every
club, grouped), :func:`club_page` (:class:`ClubPage`: the club, the current lists, its
members with their rank and FLADUB in those lists, best ranked first, its latest valid
results with their sides and players, and per month played whether its matches were
submitted on time). Guaranteed: a fixed number of queries (six for a club page: the club,
the lists, the members, their entries, the latest results' seats, the punctuality),
published lists only; the members and results are plain rows (:mod:`rankings.club_sql`),
not model instances.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from matches.disciplines import CODES
from matches.models import Club
from matches.months import Month

from .. import club_sql, sql
from ..sql import ListInfo, Strength
from .counting_results import PlayerRef
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
    player: club_sql.Member
    entries: dict[str, Strength]
    """The member's rank and FLADUB in each current list they are on, by discipline."""


@dataclass(frozen=True)
class RecentSide:
    position: int
    score: int
    players: tuple[PlayerRef, ...]
    place: int
    """1 + the number of sides of the match that scored more."""


@dataclass(frozen=True)
class RecentMatch:
    pk: int
    date_played: dt.date
    discipline: str
    category: str
    status: str
    sides: tuple[RecentSide, ...]
    """In the order of their positions."""


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
    recent: list[RecentMatch]
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
    found = sql.fetch(club_sql.club(club_id))
    if not found:
        return None
    club = sql.loaded(Club, club_sql.CLUB_FIELDS, found[0])
    lists = current_lists().lists
    ordered = [lists[code] for code in CODES if code in lists]
    return ClubPage(
        club=club,
        lists=ordered,
        members=_members(club, ordered),
        recent=_recent(club),
        punctuality=_punctuality(club, last=today),
    )


def _members(club: Club, lists: Iterable[ListInfo]) -> list[ClubMember]:
    """The club's players (merged records left out) with their entries in the given lists,
    ordered by their rank in the first list, then the next, then by name (two queries)."""
    players = club_sql.MEMBER.rows(club_sql.members(club.pk))
    by_id = {ranking_list.id: ranking_list for ranking_list in lists}
    entries: dict[int, dict[str, Strength]] = defaultdict(dict)
    if players and by_id:
        # By the members' ids: one probe each on (list, player), never a walk of the lists.
        pks = {p.pk for p in players}
        statement = sql.strengths_of_players(dict.fromkeys(by_id, pks), tops=False)
        for entry in sql.STRENGTH.rows(statement):
            entries[entry.player][by_id[entry.list_id].discipline] = entry
    members = [ClubMember(player=p, entries=entries.get(p.pk, {})) for p in players]
    order = [ranking_list.discipline for ranking_list in by_id.values()]
    unranked = 1 << 62
    members.sort(
        key=lambda m: tuple(m.entries[d].rank if d in m.entries else unranked for d in order)
    )
    return members


def _recent(club: Club) -> list[RecentMatch]:
    """The club's latest :data:`RECENT_MATCHES` matches not voided, with their sides and
    players, newest first (one query)."""
    seats: dict[int, list[club_sql.Seat]] = defaultdict(list)
    for seat in club_sql.SEAT.rows(club_sql.latest_seats(club.pk, matches=RECENT_MATCHES)):
        seats[seat.match_pk].append(seat)
    return [_match(rows) for rows in seats.values()]


def _match(rows: list[club_sql.Seat]) -> RecentMatch:
    """A match from its seats (in side order)."""
    sides: dict[int, list[club_sql.Seat]] = defaultdict(list)
    for row in rows:
        sides[row.side_position].append(row)
    scores = [seated[0].score for seated in sides.values()]
    first = rows[0]
    return RecentMatch(
        pk=first.match_pk,
        date_played=first.date_played,
        discipline=first.discipline,
        category=first.category,
        status=first.status,
        sides=tuple(
            RecentSide(
                position=position,
                score=seated[0].score,
                players=tuple(PlayerRef(player_id=s.player_id, name=s.name) for s in seated),
                place=1 + sum(1 for other in scores if other > seated[0].score),
            )
            for position, seated in sides.items()
        ),
    )


def _punctuality(club: Club, *, last: Month) -> list[Punctuality]:
    """Per month played (the months up to ``last``, oldest first): the club's matches and
    how many were submitted on time. A correction is not a new submission: only first
    revisions count. One query (by day, added up by month here)."""
    first = last + (1 - PUNCTUALITY_MONTHS)
    found: dict[dt.date, tuple[int, int]] = {}
    for played in club_sql.PLAYED_DAY.rows(
        club_sql.played_days(club.pk, first.first_day, last.last_day)
    ):
        month = played.date_played.replace(day=1)
        total, on_time = found.get(month, (0, 0))
        found[month] = (total + played.total, on_time + played.on_time)
    out = []
    for i in range(PUNCTUALITY_MONTHS):
        day = (first + i).first_day
        total, on_time = found.get(day, (0, 0))
        out.append(Punctuality(month=day, total=total, on_time=on_time))
    return out
