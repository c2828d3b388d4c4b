"""The drop-out calendar: a player's number in each of the next lists if they play nothing.

In: a player (primary key), a discipline. Out: :class:`Forecast`: from the discipline's
open month R (:func:`rankings.selectors.cycle.open_month`, the next list to be published)
on, for each of the next 12 lists L(R) .. L(R + 11), the player's FLADUB if no further
result is stored, and which results leave the window in that list (each result also
shrinks by 1/12 of its points every month: the change of the number says by how much).

How: the player's results counting in L(R) as stored now are broken down from their match
points (:func:`~rankings.selectors.counting_results.player_points`, by the FLADUB core;
named by :func:`~rankings.selectors.counting_results.counted_results` only when a month's
``leaving`` is asked for), and each later list's number is the core's own
:func:`rankings.fladub.player_totals` on those results at that month: the same weights,
the same best 20, the same rounding as a close. Results stored later (or counting first in
a later month) are not in it: this is the calendar of what is already there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from matches.months import Month

from .. import fladub
from .counting_results import CountedResult, PlayerPoints, counted_results, player_points
from .cycle import open_month

MONTHS_AHEAD = 12


class _Named:
    """The player's counted results in L(start) by stored match, named (their match's
    facts) when first asked for: the API names the results leaving; the player page
    writes them from the facts alone."""

    def __init__(self, points: PlayerPoints, start: Month) -> None:
        self._points, self._start = points, start
        self._found: dict[int, CountedResult] | None = None

    def __call__(self) -> dict[int, CountedResult]:
        if self._found is None:
            points = self._points
            counted = counted_results(
                points.player_pk, discipline=points.discipline, month=self._start, points=points
            )
            self._found = {r.match_pk: r for r in counted.results}
        return self._found


@dataclass(frozen=True)
class ForecastMonth:
    month: Month
    fladub_cents: int
    change_cents: int
    """Against the month before (the first: against the player's results in L(R) itself,
    so 0)."""
    leaving_pks: tuple[int, ...]
    """The stored matches of the results that count in the month before and not in this
    one (age 12), best first."""
    named: _Named = field(repr=False, compare=False)

    @property
    def leaving_played(self) -> Month:
        """The month the results leaving were played in (every counting result of it)."""
        return self.month + (-fladub.WINDOW_MONTHS)

    @property
    def leaving(self) -> tuple[CountedResult, ...]:
        """The results leaving, named (one statement for every result's facts, once)."""
        found = self.named()
        return tuple(found[pk] for pk in self.leaving_pks)


@dataclass(frozen=True)
class Forecast:
    discipline: str
    start: Month | None
    months: tuple[ForecastMonth, ...] = ()
    points: PlayerPoints | None = None
    """The player's match points it was made of (their results' facts name the leaving)."""


def _totals_cents(now: fladub.Breakdown, start: Month, count: int) -> list[int]:
    """The player's number in L(``start``) .. L(``start + count - 1``) from the results
    ``now``, by ONE call of the core's :func:`rankings.fladub.player_totals`: copy k of the
    results, each month moved k months earlier (played and counting month), stands as
    "player" k in L(``start``). A result's age and whether it counts are differences of
    months, so copy k in L(start) is exactly the result in L(start + k): the same weights,
    best 20 and rounding, where twelve calls of the core on a thousand results each cost a
    busy player's page about a millisecond more."""
    rows = len(now.match_id)
    if not rows:
        return [0] * count
    ahead = np.repeat(np.arange(count, dtype=np.int64), rows)
    moved = ahead.astype(np.int32)
    core = fladub.Results(
        match_id=np.tile(now.match_id, count),
        month_played=np.tile(now.month_played, count) - moved,
        counting_month=np.tile(now.counting_month, count) - moved,
        player=ahead,
        points=np.tile(now.points, count),
    )
    totals = fladub.player_totals(core, start.index)
    cents = np.zeros(count, dtype=np.int64)
    cents[totals.player] = totals.fladub_cents
    return [int(c) for c in cents]


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
    knows it (the month after the discipline's latest published list; else it is read).
    The numbers come from the core's arrays: no result becomes an object unless its
    month's ``leaving`` is asked for."""
    if start is None:
        start = open_month(discipline)
    if start is None:
        return Forecast(discipline=discipline, start=None)
    if points is None or points.player_pk != player_pk or not points.covers(start, discipline):
        points = player_points(player_pk, discipline=discipline, months=[start])
    now = points.breakdown(start)
    named = _Named(points, start)
    numbers = _totals_cents(now, start, MONTHS_AHEAD)
    months = []
    previous = numbers[0]
    for ahead, cents in enumerate(numbers):
        month = start + ahead
        left = now.match_id[now.month_played == (month + (-fladub.WINDOW_MONTHS)).index]
        months.append(
            ForecastMonth(
                month=month,
                fladub_cents=cents,
                change_cents=cents - previous,
                leaving_pks=tuple(left.tolist()),
                named=named,
            )
        )
        previous = cents
    return Forecast(discipline=discipline, start=start, months=tuple(months), points=points)
