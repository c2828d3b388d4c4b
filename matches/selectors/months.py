"""Closed months: the latest frozen month of a discipline, whether a month is closed."""

from __future__ import annotations

from typing import Any

from matches import sql
from matches.models import ClosedMonth
from matches.months import Month

_MONTH_FIELD = ClosedMonth._meta.get_field("month")


def month_or_none(value: Any) -> Month | None:
    """A ``month`` column's value (SQLite hands back text) as a Month."""
    return None if value is None else Month.of(_MONTH_FIELD.to_python(value))


def last_closed_month(discipline: str) -> Month | None:
    """The discipline's latest frozen month (raw SQL: every submission asks;
    :func:`matches.sql.last_closed_month`)."""
    return month_or_none(sql.scalar(sql.last_closed_month(discipline)))


def is_month_closed(discipline: str, month: Month) -> bool:
    return ClosedMonth.objects.filter(discipline=discipline, month=month.first_day).exists()
