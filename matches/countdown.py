"""The countdown to the open month's deadline, shown on every secretary page.

In: the server clock (:func:`matches.clock.now`, looked up through the module so that tests
can patch it) and the federation's zone. Out: a :class:`Countdown` naming the open month
(the federation month containing now), its deadline (the first instant of the next month,
local time, from :func:`matches.months.deadline`) and the time left, for
``templates/matches/_deadline.html``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from . import clock
from .months import Month, deadline, local_month

# Under this much time left the countdown is shown as urgent.
URGENT = dt.timedelta(hours=48)


@dataclass(frozen=True, slots=True)
class Countdown:
    month: Month
    deadline: dt.datetime  # aware, in the federation's zone
    now: dt.datetime
    tz_name: str

    @property
    def remaining(self) -> dt.timedelta:
        # In UTC: Python subtracts two datetimes of one zone by wall clock, which is an hour
        # off across a daylight-saving change.
        left = self.deadline.astimezone(dt.UTC) - self.now.astimezone(dt.UTC)
        return max(left, dt.timedelta(0))

    @property
    def _seconds(self) -> int:
        return int(self.remaining.total_seconds())

    @property
    def days(self) -> int:
        return self._seconds // 86_400

    @property
    def hours(self) -> int:
        return self._seconds % 86_400 // 3_600

    @property
    def minutes(self) -> int:
        return self._seconds % 3_600 // 60

    @property
    def urgent(self) -> bool:
        return self.remaining < URGENT

    @property
    def deadline_iso(self) -> str:
        return self.deadline.isoformat()

    @property
    def now_iso(self) -> str:
        return self.now.isoformat()


def deadline_countdown(now: dt.datetime | None = None) -> Countdown:
    tz = clock.federation_tz()
    instant = now if now is not None else clock.now()
    month = local_month(instant, tz)
    return Countdown(month=month, deadline=deadline(month, tz), now=instant, tz_name=tz.key)


def countdown_context(now: dt.datetime | None = None) -> dict[str, Any]:
    """The template context ``_deadline.html`` needs: ``{"countdown": Countdown}``."""
    return {"countdown": deadline_countdown(now)}
