"""Calendar months of the federation and the deadline rules of SPEC.md section 3, in one place.

Pure Python (no Django). Everything takes the federation's time zone explicitly; callers in
Django pass ``settings.FIDO_TIMEZONE`` through :func:`matches.clock.federation_tz`.

Contract:
- :class:`Month` is a calendar month; ``Month.index`` is ``year * 12 + month - 1`` so that
  ages are plain subtractions.
- ``deadline(M)`` is the first instant of month M+1 in the federation's zone (aware).
- :func:`classify` decides, for a match played on ``date_played`` and received at the aware
  instant ``received_at``, whether it is on time or late and which month it counts in,
  never a closed one; or raises :class:`Rejection` with a clear message.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo

# A result older than this (in months) at its counting month would weigh nothing.
MAX_AGE_MONTHS = 11

#: A month as every channel writes it, YYYY-MM, years 0001 to 9998 (:class:`Month`'s range;
#: the API's schema says the same). No spaces: the API's parameters are taken as sent.
MONTH_PATTERN = (
    "^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
    "-(0[1-9]|1[0-2])$"
)
_MONTH_RE = re.compile(r"^([0-9]{4})-([0-9]{2})$")


@dataclass(frozen=True, order=True, slots=True)
class Month:
    year: int
    month: int

    def __post_init__(self) -> None:
        if not 1 <= self.month <= 12:
            raise ValueError(f"month must be 1..12, not {self.month}")
        if not 1 <= self.year <= 9998:
            raise ValueError(f"year out of range: {self.year}")

    @classmethod
    def parse(cls, text: str) -> Month:
        """``"2026-03"`` -> ``Month(2026, 3)``; ``ValueError`` with a clear message otherwise."""
        match = _MONTH_RE.fullmatch(text)
        if not match:
            raise ValueError(f"not a month (expected YYYY-MM): {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))

    @classmethod
    def of(cls, day: dt.date) -> Month:
        return cls(day.year, day.month)

    @classmethod
    def from_index(cls, index: int) -> Month:
        return cls(index // 12, index % 12 + 1)

    @property
    def index(self) -> int:
        return self.year * 12 + self.month - 1

    @property
    def first_day(self) -> dt.date:
        return dt.date(self.year, self.month, 1)

    @property
    def last_day(self) -> dt.date:
        return self.next().first_day - dt.timedelta(days=1)

    def next(self) -> Month:
        return Month.from_index(self.index + 1)

    def prev(self) -> Month:
        return Month.from_index(self.index - 1)

    def __add__(self, months: int) -> Month:
        return Month.from_index(self.index + months)

    def __sub__(self, other: Month) -> int:
        return self.index - other.index

    def __str__(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"


def local_month(instant: dt.datetime, tz: ZoneInfo) -> Month:
    """The federation month that contains an aware instant."""
    if instant.tzinfo is None:
        raise ValueError("instant must be timezone-aware")
    return Month.of(instant.astimezone(tz).date())


def local_date(instant: dt.datetime, tz: ZoneInfo) -> dt.date:
    if instant.tzinfo is None:
        raise ValueError("instant must be timezone-aware")
    return instant.astimezone(tz).date()


def month_start(month: Month, tz: ZoneInfo) -> dt.datetime:
    """The first instant of ``month`` in the federation's zone (midnight local, aware)."""
    return dt.datetime(month.year, month.month, 1, tzinfo=tz)


def deadline(month: Month, tz: ZoneInfo) -> dt.datetime:
    """Month M's deadline: the first instant of month M+1, local time."""
    return month_start(month.next(), tz)


class Rejection(ValueError):
    """A match the rules refuse; ``field`` names the offending input field.

    ``code`` and ``params`` let a caller word the message in the reader's language
    (this module has no translation machinery): ``future`` (date, today, zone) and
    ``too_old`` (date, month, age, max_age).
    """

    def __init__(
        self, message: str, field: str = "date", *, code: str = "", params: dict[str, object]
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code
        self.params = params


@dataclass(frozen=True, slots=True)
class Classification:
    status: str  # "on_time" or "late"
    counting_month: Month


def first_open_month(last_closed: Month | None) -> Month | None:
    return last_closed.next() if last_closed is not None else None


def classify(
    *,
    date_played: dt.date,
    received_at: dt.datetime,
    tz: ZoneInfo,
    last_closed: Month | None,
) -> Classification:
    """On time or late, and the counting month, per SPEC.md section 3.

    ``last_closed`` is the latest closed month of the match's discipline (closed months are
    consecutive, so every month after it is open). Raises :class:`Rejection` for a match
    played in the future or one that would count more than 11 months after it was played.
    """
    today = local_date(received_at, tz)
    if date_played > today:
        raise Rejection(
            f"the match date {date_played.isoformat()} is in the future "
            f"(today is {today.isoformat()} in {tz.key})",
            code="future",
            params={"date": date_played.isoformat(), "today": today.isoformat(), "zone": tz.key},
        )
    played = Month.of(date_played)
    # Compare in UTC: Python compares datetimes sharing one tzinfo by wall clock.
    if received_at.astimezone(dt.UTC) < deadline(played, tz).astimezone(dt.UTC):
        status, counting = "on_time", played
    else:
        status, counting = "late", local_month(received_at, tz)
    if last_closed is not None and counting <= last_closed:
        counting = last_closed.next()
    age = counting - played
    if age > MAX_AGE_MONTHS:
        raise Rejection(
            f"the match of {date_played.isoformat()} would count in {counting}, "
            f"{age} months later: results older than {MAX_AGE_MONTHS} months weigh nothing",
            code="too_old",
            params={
                "date": date_played.isoformat(),
                "month": str(counting),
                "age": age,
                "max_age": MAX_AGE_MONTHS,
            },
        )
    return Classification(status=status, counting_month=counting)
