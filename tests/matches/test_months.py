"""The deadline rules of SPEC.md section 3 at their boundaries (pure, no database)."""

from __future__ import annotations

import datetime as dt

import pytest

from matches.months import Month, Rejection, classify, deadline, local_month
from tests.clock import BERLIN

UTC = dt.UTC


def at(*args: int, tz: dt.tzinfo = BERLIN) -> dt.datetime:
    return dt.datetime(*args, tzinfo=tz)


def test_month_arithmetic_and_parsing() -> None:
    assert Month.parse("2026-03") == Month(2026, 3)
    assert Month(2026, 12).next() == Month(2027, 1)
    assert Month(2027, 1).prev() == Month(2026, 12)
    assert Month(2027, 2) - Month(2026, 3) == 11
    assert str(Month(2026, 3) + 13) == "2027-04"
    assert Month(2024, 2).last_day == dt.date(2024, 2, 29)
    assert Month(2026, 2).last_day == dt.date(2026, 2, 28)
    for bad in ("2026-13", "2026-00", "26-03", "2026/03", "march"):
        with pytest.raises(ValueError):
            Month.parse(bad)


def test_deadline_is_the_first_local_instant_of_the_next_month() -> None:
    assert deadline(Month(2026, 3), BERLIN) == at(2026, 4, 1)
    # 1 April 00:00 in Berlin is summer time (UTC+2): 31 March 22:00 UTC.
    assert deadline(Month(2026, 3), BERLIN).astimezone(UTC) == at(2026, 3, 31, 22, tz=UTC)
    assert deadline(Month(2026, 12), BERLIN).astimezone(UTC) == at(2026, 12, 31, 23, tz=UTC)


def verdict(played: dt.date, received: dt.datetime, last_closed: Month | None = None):
    return classify(date_played=played, received_at=received, tz=BERLIN, last_closed=last_closed)


def test_one_second_before_midnight_on_the_last_day_is_on_time() -> None:
    v = verdict(dt.date(2026, 3, 14), at(2026, 3, 31, 23, 59, 59))
    assert (v.status, v.counting_month) == ("on_time", Month(2026, 3))


def test_midnight_on_the_first_is_late_and_counts_in_the_new_month() -> None:
    v = verdict(dt.date(2026, 3, 14), at(2026, 4, 1, 0, 0, 0))
    assert (v.status, v.counting_month) == ("late", Month(2026, 4))


def test_still_the_last_day_in_utc_but_already_the_first_locally_is_late() -> None:
    received = at(2026, 3, 31, 22, 30, tz=UTC)  # 1 April 00:30 in Berlin
    assert received.date() == dt.date(2026, 3, 31)
    assert local_month(received, BERLIN) == Month(2026, 4)
    v = verdict(dt.date(2026, 3, 31), received)
    assert (v.status, v.counting_month) == ("late", Month(2026, 4))


def test_spring_forward_night_does_not_move_the_deadline() -> None:
    # Clocks jump from 02:00 to 03:00 on 29 March 2026; the deadline is still 1 April 00:00.
    v = verdict(dt.date(2026, 3, 29), at(2026, 3, 29, 3, 30))
    assert v == verdict(dt.date(2026, 3, 29), at(2026, 3, 31, 23, 59, 59))
    assert v.status == "on_time"
    length = deadline(Month(2026, 3), BERLIN).astimezone(UTC) - at(2026, 3, 1).astimezone(UTC)
    assert length == dt.timedelta(days=31, hours=-1)


def test_fall_back_month_has_one_hour_more() -> None:
    # 25 October 2026: 03:00 falls back to 02:00, October has 31 days + 1 hour.
    length = deadline(Month(2026, 10), BERLIN).astimezone(UTC) - at(2026, 10, 1).astimezone(UTC)
    assert length == dt.timedelta(days=31, hours=1)
    last_second = deadline(Month(2026, 10), BERLIN) - dt.timedelta(seconds=1)
    assert verdict(dt.date(2026, 10, 25), last_second).status == "on_time"
    assert verdict(dt.date(2026, 10, 25), deadline(Month(2026, 10), BERLIN)).status == "late"
    # The repeated hour 02:00-03:00 exists twice; both are still October and on time.
    first = dt.datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN, fold=0)
    second = dt.datetime(2026, 10, 25, 2, 30, tzinfo=BERLIN, fold=1)
    assert second.astimezone(UTC) - first.astimezone(UTC) == dt.timedelta(hours=1)
    assert verdict(dt.date(2026, 10, 25), second).status == "on_time"


def test_leap_year_february() -> None:
    v = verdict(dt.date(2028, 2, 29), at(2028, 2, 29, 23, 59, 59))
    assert (v.status, v.counting_month) == ("on_time", Month(2028, 2))
    v = verdict(dt.date(2028, 2, 29), at(2028, 3, 1, 0, 0))
    assert (v.status, v.counting_month) == ("late", Month(2028, 3))
    with pytest.raises(Rejection, match="future"):
        verdict(dt.date(2028, 3, 1), at(2028, 2, 29, 23, 59, 59))


def test_a_closed_month_is_never_the_counting_month() -> None:
    # On time for March, but March is (exceptionally) already closed: it moves to April.
    v = verdict(dt.date(2026, 3, 14), at(2026, 3, 20), last_closed=Month(2026, 3))
    assert v.counting_month == Month(2026, 4)
    # Late in April while April is closed too: the first open month is May.
    v = verdict(dt.date(2026, 3, 14), at(2026, 4, 3), last_closed=Month(2026, 4))
    assert (v.status, v.counting_month) == ("late", Month(2026, 5))


def test_future_match_is_rejected_in_local_time() -> None:
    # 22:30 UTC on 31 March is already 1 April in Berlin: a match of 1 April is not future.
    assert verdict(dt.date(2026, 4, 1), at(2026, 3, 31, 22, 30, tz=UTC)).status == "on_time"
    with pytest.raises(Rejection, match=r"in the future \(today is 2026-03-31"):
        verdict(dt.date(2026, 4, 1), at(2026, 3, 31, 21, 30, tz=UTC))


def test_window_of_eleven_months() -> None:
    # Played March 2026, received May 2026 -> counts in May 2026 (age 2): fine.
    assert verdict(dt.date(2026, 3, 1), at(2027, 2, 10)).counting_month == Month(2027, 2)
    with pytest.raises(Rejection, match="12 months later"):
        verdict(dt.date(2026, 3, 1), at(2027, 3, 10))
    # A closed month can push an otherwise acceptable match out of the window.
    with pytest.raises(Rejection, match="12 months later"):
        verdict(dt.date(2026, 3, 1), at(2027, 2, 10), last_closed=Month(2027, 2))


def test_naive_instants_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        verdict(dt.date(2026, 3, 1), dt.datetime(2026, 3, 2))
