"""The dates of the monthly cycle ahead: submission deadlines and closes, for a calendar.

In: an aware instant ("now"). Out: :class:`CycleDate` rows in time order: for each month M
from the current federation month on, 12 of them, M's submission deadline (the first
instant of M + 1 in ``FIDO_TIMEZONE``, :func:`matches.months.deadline`) and the automatic
close of M's lists (``FIDO_CLOSE_DELAY`` minutes after it, when beat closes it), with the
disciplines that close then (a discipline without results yet is named in the months
ahead: it closes as soon as it has some); before them, the close of an earlier month still
open (overdue or held), at the time it was due. Each discipline's open month is the
cycle's own (:func:`rankings.selectors.cycle.open_month`, as the dashboard and beat read
it) and a held close is named (:func:`rankings.selectors.holds.close_holds`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings

from matches import clock
from matches.disciplines import CODES
from matches.months import Month, deadline, local_month

from .cycle import open_month
from .holds import close_holds

MONTHS_AHEAD = 12


@dataclass(frozen=True, slots=True)
class CycleDate:
    kind: str
    """``deadline`` or ``close``."""
    month: Month
    at: dt.datetime
    """Aware, in the federation's zone."""
    disciplines: tuple[str, ...] = ()
    """A close: the disciplines whose list of ``month`` it publishes."""
    held: tuple[str, ...] = ()
    """A close: those of them whose close an admin holds (it waits for the release)."""


def _closes(opened: Month | None, month: Month, this: Month) -> bool:
    """Whether a discipline whose open month is ``opened`` closes ``month``."""
    if opened is None:
        return month >= this
    return opened <= month


def cycle_dates(now: dt.datetime) -> list[CycleDate]:
    """The deadlines and closes of the coming :data:`MONTHS_AHEAD` months, in time order."""
    tz = clock.federation_tz()
    delay = dt.timedelta(minutes=getattr(settings, "FIDO_CLOSE_DELAY", 5))
    this = local_month(now, tz)
    opened = {code: open_month(code) for code in CODES}
    holds = close_holds()
    dates: list[CycleDate] = []
    earliest = min([m for m in opened.values() if m is not None and m < this], default=this)
    for month in (earliest + n for n in range(this - earliest + MONTHS_AHEAD)):
        closing = tuple(code for code in CODES if _closes(opened[code], month, this))
        if month >= this:
            dates.append(CycleDate(kind="deadline", month=month, at=deadline(month, tz)))
        if closing:
            dates.append(
                CycleDate(
                    kind="close",
                    month=month,
                    at=deadline(month, tz) + delay,
                    disciplines=closing,
                    held=tuple(code for code in closing if code in holds),
                )
            )
    return sorted(dates, key=lambda d: (d.at, d.kind != "deadline"))
