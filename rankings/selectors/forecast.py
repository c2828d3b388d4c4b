"""The drop-out calendar: a player's number in each of the next lists if they play nothing.

In: a player (primary key), a discipline. Out: :class:`Forecast`: from the discipline's
open month R (:func:`rankings.selectors.cycle.open_month`, the next list to be published)
on, for each of the next 12 lists L(R) .. L(R + 11), the player's FLADUB if no further
result is stored, and which results leave the window in that list (each result also
shrinks by 1/12 of its points every month: the change of the number says by how much).

How: the player's results counting in L(R) as stored now are read by
:func:`~rankings.selectors.counting_results.counted_results` (their match points, by the
FLADUB core), and each later list's number is the core's own
:func:`rankings.fladub.player_totals` on those results at that month: the same weights,
the same best 20, the same rounding as a close. Results stored later (or counting first in
a later month) are not in it: this is the calendar of what is already there.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from matches.months import Month

from .. import fladub
from .counting_results import CountedResult, PlayerPoints, counted_results
from .cycle import open_month

MONTHS_AHEAD = 12


@dataclass(frozen=True)
class ForecastMonth:
    month: Month
    fladub_cents: int
    change_cents: int
    """Against the month before (the first: against the player's results in L(R) itself,
    so 0)."""
    leaving: tuple[CountedResult, ...]
    """Results that count in the month before and not in this one (age 12)."""


@dataclass(frozen=True)
class Forecast:
    discipline: str
    start: Month | None
    months: tuple[ForecastMonth, ...] = ()


def _core(results: tuple[CountedResult, ...]) -> fladub.Results:
    """The results as the FLADUB core's columns (built once, evaluated at every month)."""
    return fladub.Results(
        match_id=np.array([r.match_pk for r in results], dtype=np.int64),
        month_played=np.array([r.month_played.index for r in results], dtype=np.int32),
        counting_month=np.array([r.counting_month.index for r in results], dtype=np.int32),
        player=np.zeros(len(results), dtype=np.int64),
        points=np.array([r.points for r in results], dtype=np.float64),
    )


def _totals_cents(core: fladub.Results, month: Month) -> int:
    if not len(core.match_id):
        return 0
    totals = fladub.player_totals(core, month.index)
    return int(totals.fladub_cents[0]) if len(totals.player) else 0


def player_forecast(
    player_pk: int,
    *,
    discipline: str,
    points: PlayerPoints | None = None,
    start: Month | None = None,
) -> Forecast:
    """The player's next 12 numbers if they play nothing, and the results leaving when.
    ``points``: the player's match points, if the caller has read them for a span holding
    the open month (else they are read here); ``start``: the open month, if the caller
    knows it (the month after the discipline's latest published list; else it is read)."""
    if start is None:
        start = open_month(discipline)
    if start is None:
        return Forecast(discipline=discipline, start=None)
    now = counted_results(player_pk, discipline=discipline, month=start, points=points)
    core = _core(now.results)
    played: dict[Month, list[CountedResult]] = defaultdict(list)
    for result in now.results:
        played[result.month_played].append(result)
    months = []
    previous = _totals_cents(core, start)
    for ahead in range(MONTHS_AHEAD):
        month = start + ahead
        cents = _totals_cents(core, month)
        months.append(
            ForecastMonth(
                month=month,
                fladub_cents=cents,
                change_cents=cents - previous,
                leaving=tuple(played.get(month + (-fladub.WINDOW_MONTHS), ())),
            )
        )
        previous = cents
    return Forecast(discipline=discipline, start=start, months=tuple(months))
