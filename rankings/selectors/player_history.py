"""A player's history in a discipline: their place in every published list.

In: a player and a discipline. Out: one :class:`rankings.sql.HistoryPoint` per published
list of the discipline since the player's first listing, oldest first. A list that does not
hold the player (a list holds only players with FLADUB > 0) gives a point with rank None
and FLADUB 0: the page's chart breaks its rank line there, and the API leaves it out
(``HistoryPoint.listed``). One query: every published list of the discipline with a probe
for the player's entry (``entry_once_per_list``).
"""

from __future__ import annotations

from matches.models import Player

from .. import sql
from ..sql import HistoryPoint

__all__ = ["HistoryPoint", "player_history"]


def player_history(player: Player, *, discipline: str) -> list[HistoryPoint]:
    """The player's point in every published list of ``discipline`` since their first."""
    points = sql.HISTORY.rows(sql.player_history(player.pk, discipline))
    first = next((n for n, point in enumerate(points) if point.listed), len(points))
    return points[first:]
