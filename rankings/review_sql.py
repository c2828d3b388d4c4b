"""The SQL of the admin's review before the close: one statement per anomaly flag.

Each statement reads the results (``SideMember`` rows) and matches of one discipline that
count in one month and are live in it (not voided for it: a correction voids the revision
it replaces), as :func:`rankings.sql.window_condition` defines them for the month's own
results, and returns small rows: the flagged thing and the ids of the matches behind it
(at most ``%(matches)s`` per flag; the count is exact). Portable SQL (PostgreSQL and
SQLite): CTEs, ``GROUP BY``, no date arithmetic (the caller passes instants and months).
Read by :mod:`rankings.selectors.anomalies`, the only caller.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import connection

from matches.models import Match, SideMember
from matches.months import Month

from .sql import Statement

_MATCH = Match._meta.db_table
_MEMBER = SideMember._meta.db_table

_LIVE = (
    f"SELECT m.match_id, m.player_id, m.side_position FROM {_MEMBER} m "  # noqa: S608
    "WHERE m.discipline = %(discipline)s AND m.counting_month = %(month)s "
    "AND (m.void_effective_month IS NULL OR m.void_effective_month > %(month)s)"
)
"""The month's live results: (match, player, side)."""


def _instant(value: dt.datetime) -> object:
    """An instant as the database stores it (SQLite: UTC text, as the ORM writes it)."""
    return connection.ops.adapt_datetimefield_value(value)


def _params(discipline: str, month: Month, **more: object) -> dict[str, object]:
    return {"discipline": discipline, "month": month.first_day, **more}


@dataclass(frozen=True, slots=True)
class ClubMonth:
    club_id: int
    month: dt.date
    matches: int


def club_volumes(discipline: str, months: list[Month]) -> Statement:
    """Live matches per club and counting month, for each of ``months`` (a club's usual
    volume and this month's)."""
    marks = ", ".join(f"%(m{i})s" for i in range(len(months)))
    return Statement(
        f"SELECT x.club_id, x.counting_month, count(*) FROM {_MATCH} x "  # noqa: S608
        f"WHERE x.discipline = %(discipline)s AND x.counting_month IN ({marks}) "
        "AND (x.void_effective_month IS NULL OR x.void_effective_month > x.counting_month) "
        "GROUP BY x.club_id, x.counting_month",
        {"discipline": discipline, **{f"m{i}": m.first_day for i, m in enumerate(months)}},
    )


def club_matches(discipline: str, month: Month, club_pk: int, limit: int) -> Statement:
    """The first ``limit`` live matches of a club counting in the month (by date, id)."""
    return Statement(
        f"SELECT x.id FROM {_MATCH} x WHERE x.club_id = %(club)s "  # noqa: S608
        "AND x.discipline = %(discipline)s AND x.counting_month = %(month)s "
        "AND (x.void_effective_month IS NULL OR x.void_effective_month > %(month)s) "
        "ORDER BY x.date_played, x.id LIMIT %(limit)s",
        _params(discipline, month, club=club_pk, limit=limit),
    )


def busy_days(discipline: str, month: Month, most: int) -> Statement:
    """(player, day, results) of every player with more than ``most`` live results
    played on one day, the busiest first."""
    return Statement(
        f"SELECT l.player_id, x.date_played, count(*) FROM ({_LIVE}) l "  # noqa: S608
        f"JOIN {_MATCH} x ON x.id = l.match_id "
        "GROUP BY l.player_id, x.date_played HAVING count(*) > %(most)s "
        "ORDER BY count(*) DESC, l.player_id, x.date_played",
        _params(discipline, month, most=most),
    )


def day_matches(discipline: str, month: Month, player_pk: int, day: dt.date) -> Statement:
    """The live matches of a player played on one day (by id)."""
    return Statement(
        f"SELECT l.match_id FROM ({_LIVE}) l JOIN {_MATCH} x ON x.id = l.match_id "  # noqa: S608
        "WHERE l.player_id = %(player)s AND x.date_played = %(day)s ORDER BY l.match_id",
        _params(discipline, month, player=player_pk, day=day),
    )


def received_between(
    discipline: str, month: Month, start: dt.datetime, end: dt.datetime
) -> Statement:
    """(club, match) of every live match of the month received in [start, end), by club
    and time."""
    return Statement(
        f"SELECT x.club_id, x.id FROM {_MATCH} x "  # noqa: S608
        "WHERE x.discipline = %(discipline)s AND x.counting_month = %(month)s "
        "AND (x.void_effective_month IS NULL OR x.void_effective_month > %(month)s) "
        "AND x.received_at >= %(start)s AND x.received_at < %(end)s "
        "ORDER BY x.club_id, x.received_at, x.id",
        _params(discipline, month, start=_instant(start), end=_instant(end)),
    )


def close_pairs(discipline: str, month: Month, least: int) -> Statement:
    """(player a, player b, matches against each other, a's results, b's results) of every
    pair who met at ``least`` or more live matches of the month on different sides, and
    for whom those matches are more than half of each one's results; most shared first."""
    return Statement(
        f"WITH live AS ({_LIVE}), "  # noqa: S608
        "totals AS (SELECT player_id, count(*) AS n FROM live GROUP BY player_id), "
        "pairs AS (SELECT a.player_id AS a, b.player_id AS b, count(*) AS shared FROM live a "
        "JOIN live b ON b.match_id = a.match_id AND b.player_id > a.player_id "
        "AND b.side_position <> a.side_position "
        "GROUP BY a.player_id, b.player_id HAVING count(*) >= %(least)s) "
        "SELECT p.a, p.b, p.shared, ta.n, tb.n FROM pairs p "
        "JOIN totals ta ON ta.player_id = p.a JOIN totals tb ON tb.player_id = p.b "
        "WHERE 2 * p.shared > ta.n AND 2 * p.shared > tb.n "
        "ORDER BY p.shared DESC, p.a, p.b",
        _params(discipline, month, least=least),
    )


def pair_matches(discipline: str, month: Month, a: int, b: int, limit: int) -> Statement:
    """The first ``limit`` live matches of the month where ``a`` and ``b`` met."""
    return Statement(
        f"WITH live AS ({_LIVE}) SELECT a.match_id FROM live a "  # noqa: S608
        "JOIN live b ON b.match_id = a.match_id AND b.player_id = %(b)s "
        "AND b.side_position <> a.side_position "
        "WHERE a.player_id = %(a)s ORDER BY a.match_id LIMIT %(limit)s",
        _params(discipline, month, a=a, b=b, limit=limit),
    )


def same_players_same_day(discipline: str, month: Month) -> Statement:
    """(first match, second match) of every two live matches of the month played on the
    same day by exactly the same players (sides, scores, category and club may differ).

    Two results meet only on (player, day, table size), all equalities: the join is a hash
    join whatever the planner guesses of the CTE (a join on the player alone, the day
    checked after it, paired every two results of a player in the month: on a month of 1M
    results the statement ran for more than ten minutes)."""
    return Statement(
        "WITH live AS (SELECT l.match_id, l.player_id, x.date_played, "  # noqa: S608
        f"count(*) OVER (PARTITION BY l.match_id) AS n FROM ({_LIVE}) l "
        f"JOIN {_MATCH} x ON x.id = l.match_id) "
        "SELECT a.match_id, b.match_id FROM live a "
        "JOIN live b ON b.player_id = a.player_id AND b.date_played = a.date_played "
        "AND b.n = a.n AND b.match_id > a.match_id "
        "GROUP BY a.match_id, b.match_id, a.n HAVING count(*) = a.n "
        "ORDER BY a.match_id, b.match_id",
        _params(discipline, month),
    )
