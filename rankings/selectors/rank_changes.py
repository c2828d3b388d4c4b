"""A player's rank changes: every published list version in which their rank or number moved.

In: a player (``Player`` primary key). Out: :class:`RankChange` rows, newest publication
first (at most ``limit``): one per list version of any discipline (a month's list, and
each erratum of it) whose rank or FLADUB for the player differs from the version before
it, with both figures. "The version before" is, per discipline, the previous one in
(month, version) order: an erratum is compared with the version it replaces, a month's
first version with the latest version of the month before. A list that does not hold the
player counts as rank None and FLADUB 0, so entering and leaving the list are changes;
lists before the player's first listing are not. The per-player Atom feed
(:mod:`rankings.player_feed`) reads it.

Guaranteed: one query (:func:`rankings.sql.player_standings`: every list version with a
probe for the player's entry), whatever the number of lists.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from matches.months import Month

from .. import sql


@dataclass(frozen=True, slots=True)
class RankChange:
    list_id: int
    discipline: str
    month: Month
    edition: int | None
    """The list's version: 1 the close, 2 the first erratum, ..."""
    published_at: dt.datetime | None
    entry_count: int
    rank_from: int | None
    rank_to: int | None
    fladub_from_cents: int
    fladub_to_cents: int

    @property
    def change_cents(self) -> int:
        return self.fladub_to_cents - self.fladub_from_cents

    @property
    def places(self) -> int | None:
        """Places gained (positive) or lost; None when either list does not hold them."""
        if self.rank_from is None or self.rank_to is None:
            return None
        return self.rank_from - self.rank_to


def rank_changes(player_pk: int, *, limit: int) -> list[RankChange]:
    """The player's rank changes in every discipline, newest publication first."""
    changes: list[RankChange] = []
    before: sql.ListStanding | None = None
    for standing in sql.LIST_STANDING.rows(sql.player_standings(player_pk)):
        if before is None or before.discipline != standing.discipline:
            before = None
        moved = (standing.rank, standing.fladub_cents) != (
            (before.rank, before.fladub_cents) if before is not None else (None, 0)
        )
        if moved:
            changes.append(
                RankChange(
                    list_id=standing.list_id,
                    discipline=standing.discipline,
                    month=standing.list_month,
                    edition=standing.edition,
                    published_at=standing.published_at,
                    entry_count=standing.entry_count,
                    rank_from=before.rank if before is not None else None,
                    rank_to=standing.rank,
                    fladub_from_cents=before.fladub_cents if before is not None else 0,
                    fladub_to_cents=standing.fladub_cents,
                )
            )
        before = standing
    changes.sort(
        key=lambda c: (c.published_at or dt.datetime.min.replace(tzinfo=dt.UTC), c.list_id),
        reverse=True,
    )
    return changes[:limit]
