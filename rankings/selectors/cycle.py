"""The monthly cycle's state: each discipline's open month, and which months are due.

In: a discipline, an aware instant. Out: :func:`open_month` (the discipline's first month
without a published list), :func:`months_due` (the months whose deadline passed long
enough ago to be closed automatically), :func:`active_close_run` (a close queued or
running, not presumed dead). The beat task (:mod:`rankings.services.schedule`) and the
cycle dashboard (:mod:`rankings.selectors.dashboard`) read the cycle here.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import Min

from matches import clock
from matches.disciplines import CODES
from matches.models import ClosedMonth, SideMember
from matches.months import Month, deadline

from .. import sql
from ..models import CloseRun

ACTIVE_STATES = (CloseRun.State.QUEUED, CloseRun.State.RUNNING)


def open_month(discipline: str) -> Month | None:
    """The discipline's first month without a published list, or None if it has no results.

    After the last published list, the month after it; before any, the earliest month that
    was frozen or that results count in.
    """
    (last,) = (found.month for found in sql.LAST_MONTH.rows(sql.last_published_month(discipline)))
    if last is not None:
        return Month.of(last).next()
    frozen = ClosedMonth.objects.filter(discipline=discipline).aggregate(m=Min("month"))["m"]
    if frozen is not None:
        return Month.of(frozen)
    earliest = SideMember.objects.filter(discipline=discipline).aggregate(m=Min("counting_month"))[
        "m"
    ]
    return Month.of(earliest) if earliest is not None else None


def months_due(*, now: dt.datetime, delay: dt.timedelta | None = None) -> list[tuple[str, Month]]:
    """(discipline, month) whose deadline passed more than ``delay`` (default
    ``FIDO_CLOSE_DELAY`` minutes) ago and that are not closed: one per discipline, the
    oldest (the next one becomes due when it is closed).

    Compares aware instants (``deadline()`` is the first instant of the next month in
    ``FIDO_TIMEZONE``), so it is right across daylight-saving changes.
    """
    if delay is None:
        delay = dt.timedelta(minutes=getattr(settings, "FIDO_CLOSE_DELAY", 5))
    tz = clock.federation_tz()
    due: list[tuple[str, Month]] = []
    for discipline in CODES:
        month = open_month(discipline)
        if month is not None and deadline(month, tz) + delay <= now:
            due.append((discipline, month))
    return due


def active_close_run(
    discipline: str, *, now: dt.datetime, month: Month | None = None, stale_after: dt.timedelta
) -> CloseRun | None:
    """The latest close of the discipline (of ``month``, if given) queued or running and
    created less than ``stale_after`` before ``now`` (older, its worker is presumed lost)."""
    runs = CloseRun.objects.filter(
        discipline=discipline, state__in=ACTIVE_STATES, created_at__gte=now - stale_after
    )
    if month is not None:
        runs = runs.filter(month=month.first_day)
    return runs.order_by("-created_at", "-id").first()
