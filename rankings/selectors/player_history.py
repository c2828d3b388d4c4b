"""A player's history in a discipline: their place in every published list.

In: a player and a discipline. Out: one :class:`rankings.sql.HistoryPoint` per published
list of the discipline since the player's first listing, oldest first. A list that does not
hold the player (a list holds only players with FLADUB > 0) gives a point with rank None
and FLADUB 0: the page's chart breaks its rank line there, and the API leaves it out
(``HistoryPoint.listed``). One query: every published list of the discipline with a probe
for the player's entry (``entry_once_per_list``); :func:`every_published_list` keeps the
lists before the first listing (each point carries its list's id).
"""

from __future__ import annotations

from matches.models import Player

from .. import sql
from ..sql import HistoryPoint

__all__ = ["HistoryPoint", "every_published_list", "player_history", "since_first_listing"]


def player_history(player: Player, *, discipline: str) -> list[HistoryPoint]:
    """The player's point in every published list of ``discipline`` since their first."""
    return since_first_listing(every_published_list(player.pk, discipline=discipline))


def every_published_list(player_pk: int, *, discipline: str) -> list[HistoryPoint]:
    """The player's point in every published list of ``discipline``, oldest first (those
    before their first listing too: the player page reads the lists' ids here)."""
    return sql.HISTORY.rows(sql.player_history(player_pk, discipline))


def since_first_listing(points: list[HistoryPoint]) -> list[HistoryPoint]:
    """The points from the player's first listing on."""
    first = next((n for n, point in enumerate(points) if point.listed), len(points))
    return points[first:]
