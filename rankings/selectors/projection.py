"""The projected list of a discipline, and a player's place in it.

In: a discipline (and a player's primary key). Out: :func:`projected_list` — the
discipline's projection (:mod:`rankings.services.projection`) as a
:class:`~rankings.sql.ListInfo` (so the list's pages are read by
:func:`rankings.selectors.list_page.list_page`, like any list) with the instant it is
``as_of``, or None when there is none or it is stale (its month has been published since:
the projection is of the open month, :func:`rankings.selectors.cycle.open_month`);
:func:`projected_entry` — a player's entry in it, or None; :func:`latest_projection_run`
(the dashboard's progress). Every reader marks what these return as provisional.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from .. import sql
from ..models import ProjectionRun, RankingEntry, RankingList
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
    found = sql.PROJECTION_ROW.rows(sql.current_projection(discipline))
    if not found:
        return None
    return Projected(ranking_list=projection_info(found[0]), as_of=found[0].created_at)


def projection_info(found: RankingList | sql.ProjectionRow) -> ListInfo:
    """A projected list's row as readers see a list (no query)."""
    row = (found.id, found.discipline, found.month, found.version, found.entry_count)
    return ListInfo(*row, published_at=None)


def projected_entry(projected: Projected, player_pk: int) -> EntryInfo | None:
    """The player's entry in the projection, or None if they would not be listed."""
    row = (
        RankingEntry.objects.filter(ranking_list_id=projected.ranking_list.id, player_id=player_pk)
        .values_list("rank", "fladub_cents", "results_counted", "previous_rank", "movement")
        .first()
    )
    return None if row is None else EntryInfo(*row)


def latest_projection_run(discipline: str) -> ProjectionRun | None:
    """The discipline's latest projection run (any state)."""
    return (
        ProjectionRun.objects.filter(discipline=discipline).order_by("-created_at", "-id").first()
    )
