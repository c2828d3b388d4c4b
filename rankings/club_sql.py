"""The SQL of a club's page: the club, its members, its latest results with their tables,
and how punctually its matches were submitted.

Four statements, rows as data classes (:class:`rankings.sql.Select`), portable SQL
(PostgreSQL and SQLite); the members' entries in the current lists are read with
:func:`rankings.sql.strengths_of_players` (a probe per member and list). Read by
:mod:`rankings.selectors.clubs`, the only caller. Why not the ORM: the biggest club has a
few hundred members and its latest 20 matches seat a hundred players; model instances
and three prefetch queries cost more CPU than the database spends answering.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from matches.models import Club, Match, Player, SideMember, Status

from .sql import Select, Statement, columns, fields

_CLUB = Club._meta.db_table
_MATCH = Match._meta.db_table
_MEMBER = SideMember._meta.db_table
_PLAYER = Player._meta.db_table


CLUB_FIELDS = fields(Club, "id", "club_id", "name", "country", "city")
"""What the club's page shows of the club (:func:`rankings.sql.loaded` makes the model)."""


def club(club_id: str) -> Statement:
    """The :data:`CLUB_FIELDS` of the club of a club id (none or one row)."""
    return Statement(
        f"SELECT {columns('c', CLUB_FIELDS)} FROM {_CLUB} c "  # noqa: S608 - table names only
        "WHERE c.club_id = %(club_id)s",
        {"club_id": club_id},
    )


@dataclass(frozen=True, slots=True)
class Member:
    """A player whose home club this is (merged records left out)."""

    pk: int
    player_id: str
    name: str
    country: str


MEMBER = Select(Member, pk="p.id", player_id="p.player_id", name="p.name", country="p.country")


def members(club_pk: int) -> Statement:
    """:class:`Member` of every player of the club, by name, then federation id."""
    return Statement(
        f"SELECT {MEMBER.sql} FROM {_PLAYER} p "  # noqa: S608 - table names only
        "WHERE p.club_id = %(club)s AND p.merged_into_id IS NULL "
        "ORDER BY p.name, p.player_id",
        {"club": club_pk},
    )


@dataclass(frozen=True, slots=True)
class Seat:
    """A player at a table of one of the club's latest matches, with the match's facts."""

    match_pk: int
    date_played: dt.date
    discipline: str
    category: str
    status: str
    side_position: int
    score: int
    player_id: str
    name: str


SEAT = Select(
    Seat,
    convert={"date_played": (Match, "date_played")},
    match_pk="r.id",
    date_played="r.date_played",
    discipline="r.discipline",
    category="r.category",
    status="r.status",
    side_position="m.side_position",
    score="m.score",
    player_id="p.player_id",
    name="p.name",
)


def latest_seats(club_pk: int, *, matches: int) -> Statement:
    """:class:`Seat` of every player of the club's latest ``matches`` matches not voided
    (by date played, then the newest stored first), in that order, then by side, then in
    the order the members were stored. The side's position and score are the members' own
    copies of them (``SideMember``)."""
    return Statement(
        f"SELECT {SEAT.sql} FROM ("  # noqa: S608 - table names only
        f"SELECT id, date_played, discipline, category, status FROM {_MATCH} "
        "WHERE club_id = %(club)s AND voided_at IS NULL "
        "ORDER BY date_played DESC, id DESC LIMIT %(matches)s"
        f") r JOIN {_MEMBER} m ON m.match_id = r.id JOIN {_PLAYER} p ON p.id = m.player_id "
        "ORDER BY r.date_played DESC, r.id DESC, m.side_position, m.id",
        {"club": club_pk, "matches": matches},
    )


@dataclass(frozen=True, slots=True)
class PlayedDay:
    """The club's matches played on one day (first revisions: a correction is not a new
    submission) and how many of them were submitted on time."""

    date_played: dt.date
    total: int
    on_time: int


_ON_TIME = "count(CASE WHEN x.status = %(on_time)s THEN 1 END)"
_DAY = {"date_played": (Match, "date_played")}
PLAYED_DAY = Select.of_table(PlayedDay, "x", convert=_DAY, total="count(*)", on_time=_ON_TIME)


def played_days(club_pk: int, first: dt.date, last: dt.date) -> Statement:
    """:class:`PlayedDay` of every day from ``first`` to ``last`` on which the club played
    (grouped by day: portable SQL; the page adds the days of a month up)."""
    return Statement(
        f"SELECT {PLAYED_DAY.sql} FROM {_MATCH} x "  # noqa: S608 - table names only
        "WHERE x.club_id = %(club)s AND x.revision = 1 "
        "AND x.date_played >= %(first)s AND x.date_played <= %(last)s GROUP BY x.date_played",
        {"club": club_pk, "first": first, "last": last, "on_time": Status.ON_TIME.value},
    )
