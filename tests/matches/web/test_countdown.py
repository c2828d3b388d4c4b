"""The deadline countdown every secretary page shows (server text plus data for the live JS)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from matches.countdown import deadline_countdown
from tests.clock import BERLIN

from .conftest import text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/secretary/", "/secretary/submit/", "/secretary/upload/"])
def test_ten_minutes_before_the_march_deadline(sec_client: Client, set_now, url: str) -> None:
    set_now(dt.datetime(2026, 3, 31, 23, 50, tzinfo=BERLIN))
    html = sec_client.get(url).content.decode()
    page = text(html)
    assert (
        "Deadline for 2026-03: 1 April 2026, 00:00 Europe/Berlin — 0 days 0 h 10 min left" in page
    )
    # The instant for the live countdown, with the summer-time offset that starts on 29 March.
    assert 'data-deadline="2026-04-01T00:00:00+02:00"' in html
    assert 'class="deadline urgent"' in html


def test_the_november_example_of_the_brief(sec_client: Client, set_now) -> None:
    set_now(dt.datetime(2026, 11, 21, 12, 40, tzinfo=BERLIN))
    page = text(sec_client.get("/secretary/").content.decode())
    assert (
        "Deadline for 2026-11: 1 December 2026, 00:00 Europe/Berlin — 9 days 11 h 20 min left"
        in page
    )


def test_a_new_month_starts_at_local_midnight(set_now) -> None:
    # 31 March 22:30 UTC is already 1 April 00:30 in Berlin: April's deadline is shown.
    countdown = deadline_countdown(dt.datetime(2026, 3, 31, 22, 30, tzinfo=dt.UTC))
    assert str(countdown.month) == "2026-04"
    assert countdown.deadline == dt.datetime(2026, 5, 1, tzinfo=BERLIN)


def test_time_left_counts_real_hours_across_the_clock_change(set_now) -> None:
    # 20 March 12:00 CET to 1 April 00:00 CEST: 11 days 12 hours on the wall, 11 h 11 real.
    countdown = deadline_countdown(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    assert (countdown.days, countdown.hours, countdown.minutes) == (11, 11, 0)
    assert not countdown.urgent


def test_one_day_left_is_singular(sec_client: Client, set_now) -> None:
    set_now(dt.datetime(2026, 6, 29, 1, 0, tzinfo=BERLIN))
    page = text(sec_client.get("/secretary/").content.decode())
    assert "— 1 day 23 h 0 min left" in page
