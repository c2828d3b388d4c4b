"""The projected list of a discipline, and a player's place in it.

In: a discipline (and a player's primary key). Out: :func:`projected_list` — the
discipline's projection (:mod:`rankings.services.projection`) as a
:class:`~rankings.sql.ListInfo` (so the list's pages are read by
:func:`rankings.selectors.list_page.list_page`, like any list) with the instant it is
``as_of``, or None when there is none or it is stale (its month has been published since:
the projection is of the open month, :func:`rankings.selectors.cycle.open_month`);
:func:`projected_standing` — it and a player's entry in it (or None), in one query;
:func:`latest_projection_run` (the dashboard's progress). Every reader marks what these
return as provisional.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from .. import sql
from ..models import ProjectionRun, RankingList
from ..sql import EntryInfo, ListInfo


@dataclass(frozen=True)
class Projected:
    """A projected list: the shape of a month's list, provisional, as of an instant."""

    ranking_list: ListInfo
    as_of: dt.datetime

    provisional = True


def projected_list(discipline: str) -> Projected | None:
    """The discipline's current projection of its open month, or None (one statement).

    A projection whose month has a published list since (or an earlier one: never the
    case, but not open either) is stale and not returned."""
    return projected_standing(discipline, None)[0]


def projected_standing(
    discipline: str, player_pk: int | None
) -> tuple[Projected | None, EntryInfo | None]:
    """:func:`projected_list` and the player's entry in it (None: not on it), one
    statement."""
    statement = sql.current_projection(discipline, player_pk)
    if player_pk is None:
        found = [sql.ProjectionStanding(row, None) for row in sql.PROJECTION_ROW.rows(statement)]
    else:
        found = sql.PROJECTION_STANDING.rows(statement)
    if not found:
        return None, None
    row = found[0]
    projected = Projected(
        ranking_list=projection_info(row.ranking_list), as_of=row.ranking_list.created_at
    )
    return projected, row.entry


def projection_info(found: RankingList | sql.ProjectionRow) -> ListInfo:
    """A projected list's row as readers see a list (no query)."""
    row = (found.id, found.discipline, found.month, found.version, found.entry_count)
    return ListInfo(*row, published_at=None)


def latest_projection_run(discipline: str) -> ProjectionRun | None:
    """The discipline's latest projection run (any state)."""
    return (
        ProjectionRun.objects.filter(discipline=discipline).order_by("-created_at", "-id").first()
    )
