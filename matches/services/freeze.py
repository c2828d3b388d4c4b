"""The freeze of a month: from then on no result is classified into it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from matches import audit, locks
from matches.models import ClosedMonth
from matches.months import Month


@audit.recording()
def month_freeze(*, discipline: str, month: Month, by: Any, now: dt.datetime) -> ClosedMonth:
    """Freeze a month of a discipline (called by the close service, in its transaction).

    Waits for submissions in flight (exclusive discipline lock), then records the month as
    closed: from then on no result is classified into it. Idempotent.
    """
    locks.discipline_exclusive(discipline)
    closed, _created = ClosedMonth.objects.get_or_create(
        discipline=discipline,
        month=month.first_day,
        defaults={"closed_at": now, "closed_by": by},
    )
    return closed
