"""The automatic close: enqueueing the due months (the beat task's body), and catching up.

- :func:`due_months_enqueue` enqueues the close of every month whose deadline passed more
  than ``FIDO_CLOSE_DELAY`` minutes ago (:func:`rankings.selectors.cycle.months_due`), one
  per discipline, skipping those with a close queued or running and those an admin holds
  (:mod:`rankings.services.holds`: logged with who, when and why);
- :func:`past_months_close` closes, inline and oldest first, every month whose deadline
  has passed (demo data, catching up).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db.models import Max

from matches import clock
from matches.disciplines import CODES
from matches.models import SideMember
from matches.months import Month, deadline

from .. import fladub
from ..models import CloseRun, RankingList
from ..selectors.cycle import active_close_run, months_due, open_month
from ..selectors.holds import close_holds
from .close import month_close, month_close_enqueue

logger = logging.getLogger(__name__)


def due_months_enqueue(*, now: dt.datetime | None = None) -> list[CloseRun]:
    """Enqueue the close of every due month; skip those in progress."""
    now = now or clock.now()
    stale_after = dt.timedelta(seconds=2 * getattr(settings, "FIDO_CLOSE_TIME_LIMIT", 1800))
    runs: list[CloseRun] = []
    held = close_holds()
    for discipline, month in months_due(now=now):
        hold = held.get(discipline)
        if hold is not None:
            logger.warning(
                "close of %s %s is due but held since %s by %s: %s; not enqueued",
                discipline,
                month,
                hold.at.isoformat(),
                getattr(hold.by, "username", "an admin"),
                hold.reason,
            )
            continue
        active = active_close_run(discipline, month=month, now=clock.now(), stale_after=stale_after)
        if active is None:
            runs.append(month_close_enqueue(month=month, discipline=discipline))
    return runs


def past_months_close(*, now: dt.datetime, through: Month | None = None) -> list[RankingList]:
    """Close, inline and oldest first, every month of every discipline with results whose
    deadline has passed at ``now`` and that is not closed yet (``through``: none later).

    Stops for a discipline once a month's window would hold none of its results.
    """
    tz = clock.federation_tz()
    published: list[RankingList] = []
    for discipline in CODES:
        latest = SideMember.objects.filter(discipline=discipline).aggregate(
            m=Max("counting_month")
        )["m"]
        if latest is None:
            continue
        last_useful = Month.of(latest) + (fladub.WINDOW_MONTHS - 1)
        month = open_month(discipline)
        if through is not None:
            last_useful = min(last_useful, through)
        while month is not None and month <= last_useful and deadline(month, tz) <= now:
            published.append(month_close(month=month, discipline=discipline, now=now))
            month = month.next()
    return published
