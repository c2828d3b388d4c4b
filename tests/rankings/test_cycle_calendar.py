"""The iCalendar feed of deadlines and closes: the RFC 5545 writer (rankings.ical: folding
at 75 octets, CRLF, escaping, wall-clock times with a VTIMEZONE from the zone database),
the dates of the coming 12 months in the federation's zone
(rankings.selectors.cycle_calendar, from the cycle's open months and holds), and
/calendar.ics in English and German."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from matches.disciplines import CODES
from rankings import ical
from rankings.selectors.cycle_calendar import cycle_dates
from rankings.services.holds import close_hold_set
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, UserFactory
from tests.rankings.factories import close, submit_table

NOW = dt.datetime(2026, 5, 10, 12, 0, tzinfo=BERLIN)


def unfold(text: str) -> list[str]:
    """The content lines of an iCalendar text (RFC 5545 3.1: a CRLF and one space or tab
    continue the line)."""
    return text.replace("\r\n ", "").replace("\r\n\t", "").split("\r\n")[:-1]


def events(text: str) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for line in unfold(text):
        if line == "BEGIN:VEVENT":
            found.append({})
        elif found and line != "END:VEVENT" and ":" in line and "END:" not in line[:4]:
            name, _, value = line.partition(":")
            found[-1].setdefault(name, value)
    return found


# --- the writer -----------------------------------------------------------------------------


def test_fold_splits_at_75_octets_never_inside_a_character() -> None:
    line = "DESCRIPTION:" + "Ergebnisse für März " * 12
    folded = ical.fold(line)
    physical = folded.split("\r\n")
    assert len(physical) > 1
    assert all(len(piece.encode()) <= 75 for piece in physical)
    assert all(piece.startswith(" ") for piece in physical[1:])
    assert folded.replace("\r\n ", "") == line
    assert ical.fold("SUMMARY:short") == "SUMMARY:short"


@given(st.text(min_size=0, max_size=400))
def test_fold_round_trips_any_text(value: str) -> None:
    line = "SUMMARY:" + ical.escape_text(value)
    folded = ical.fold(line)
    assert all(len(piece.encode()) <= 75 for piece in folded.split("\r\n"))
    assert folded.replace("\r\n ", "") == line


def test_escape_and_times() -> None:
    assert ical.escape_text("a;b,c\\d\ne") == "a\\;b\\,c\\\\d\\ne"
    assert ical.utc_stamp(dt.datetime(2026, 6, 1, tzinfo=BERLIN)) == "20260531T220000Z"
    with pytest.raises(ValueError, match="aware"):
        ical.utc_stamp(dt.datetime(2026, 6, 1))


def test_calendar_structure() -> None:
    text = ical.calendar(
        [ical.Event(uid="x@fido", start=NOW, summary="One, two; three", url="http://x/")],
        name="Cal",
        tz=BERLIN,
        stamp=NOW,
    )
    assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:")
    assert text.endswith("END:VCALENDAR\r\n")
    assert "\n" not in text.replace("\r\n", "")
    (event,) = events(text)
    assert event == {
        "UID": "x@fido",
        "DTSTAMP": "20260510T100000Z",
        "DTSTART;TZID=Europe/Berlin": "20260510T120000",
        "SUMMARY": "One\\, two\\; three",
        "URL": "http://x/",
        "TRANSP": "TRANSPARENT",
    }
    assert unfold(text).index("BEGIN:VTIMEZONE") < unfold(text).index("BEGIN:VEVENT")


def test_the_time_zone_has_each_change_of_offset() -> None:
    start = dt.datetime(2026, 6, 1, tzinfo=BERLIN)
    lines = ical.timezone_lines(BERLIN, start, dt.datetime(2027, 5, 1, tzinfo=BERLIN))
    assert lines == [
        "BEGIN:VTIMEZONE",
        "TZID:Europe/Berlin",
        "BEGIN:DAYLIGHT",
        "DTSTART:20260601T000000",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0200",
        "TZNAME:CEST",
        "END:DAYLIGHT",
        # Summer time ends on 25 October 2026 at 03:00 summer time; begins 28 March 2027
        # at 02:00 winter time.
        "BEGIN:STANDARD",
        "DTSTART:20261025T030000",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "TZNAME:CET",
        "END:STANDARD",
        "BEGIN:DAYLIGHT",
        "DTSTART:20270328T020000",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "TZNAME:CEST",
        "END:DAYLIGHT",
        "END:VTIMEZONE",
    ]
    tokyo = ZoneInfo("Asia/Tokyo")
    assert ical.timezone_lines(tokyo, NOW, NOW + dt.timedelta(days=400))[2:7] == [
        "BEGIN:STANDARD",
        "DTSTART:20260510T190000",
        "TZOFFSETFROM:+0900",
        "TZOFFSETTO:+0900",
        "TZNAME:JST",
    ]
    assert len(ical.timezone_lines(tokyo, NOW, NOW + dt.timedelta(days=400))) == 9
    kolkata = ical.timezone_lines(ZoneInfo("Asia/Kolkata"), NOW, NOW)
    assert "TZOFFSETTO:+0530" in kolkata


# --- the dates and the feed -----------------------------------------------------------------


@pytest.fixture
def now(set_now: Callable[[dt.datetime], None]) -> dt.datetime:
    set_now(NOW)
    return NOW


@pytest.mark.django_db
def test_twelve_deadlines_and_closes(now) -> None:
    dates = cycle_dates(now)
    deadlines = [d for d in dates if d.kind == "deadline"]
    closes = [d for d in dates if d.kind == "close"]
    assert [str(d.month) for d in deadlines] == [
        f"{2026 + (4 + n) // 12}-{(4 + n) % 12 + 1:02d}" for n in range(12)
    ]
    assert deadlines[0].at == dt.datetime(2026, 6, 1, tzinfo=BERLIN)
    assert closes[0].at == dt.datetime(2026, 6, 1, 0, 5, tzinfo=BERLIN)  # FIDO_CLOSE_DELAY
    assert closes[0].disciplines == tuple(CODES) and closes[0].held == ()  # no results yet
    assert [d.at for d in dates] == sorted(d.at for d in dates)


@pytest.mark.django_db
def test_an_overdue_and_held_close(now) -> None:
    club = ClubFactory(club_id="CLUB-C")
    a, b = PlayerFactory(player_id="P-C1", club=club), PlayerFactory(player_id="P-C2", club=club)
    submit_table(club, [([a], 5), ([b], 1)], id="m1", date="2026-02-10")
    close("2026-02")
    submit_table(club, [([a], 5), ([b], 1)], id="m2", date="2026-03-10")
    close_hold_set(discipline="fido", reason="checking a club", by=UserFactory(is_staff=True))
    dates = cycle_dates(now)
    first = dates[0]
    # March's FIDO list is overdue (April's too): their closes come first, held.
    assert (first.kind, str(first.month), first.disciplines, first.held) == (
        "close",
        "2026-03",
        ("fido",),
        ("fido",),
    )
    assert first.at == dt.datetime(2026, 4, 1, 0, 5, tzinfo=BERLIN)
    assert [str(d.month) for d in dates[:2]] == ["2026-03", "2026-04"]
    may = next(d for d in dates if d.kind == "close" and str(d.month) == "2026-05")
    assert "fido" in may.disciplines and may.held == ("fido",)


@pytest.mark.django_db
def test_the_feed(client: Client, now) -> None:
    response = client.get("/calendar.ics")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Cache-Control"] == "public, max-age=3600"
    text = response.content.decode()
    assert all(line.endswith("\r") for line in text.split("\n")[:-1])
    assert all(len(piece.encode()) <= 75 for piece in text.split("\r\n"))
    assert "X-WR-TIMEZONE:Europe/Berlin" in text
    assert unfold(text).count("BEGIN:VTIMEZONE") == 1
    found = events(text)
    assert len(found) == 24
    assert len({e["UID"] for e in found}) == 24
    assert all(e["DTSTAMP"] == "20260510T100000Z" for e in found)
    first, october = found[0], found[10]
    assert first["SUMMARY"] == "FIDO: deadline for the results of May 2026"
    assert first["DTSTART;TZID=Europe/Berlin"] == "20260601T000000"  # midnight in Berlin
    assert "received before 1 June 2026\\, 00:00 (Europe/Berlin)" in first["DESCRIPTION"]
    assert found[1]["SUMMARY"] == "FIDO: lists of May 2026 published"
    assert found[1]["DTSTART;TZID=Europe/Berlin"] == "20260601T000500"
    assert october["SUMMARY"] == "FIDO: deadline for the results of October 2026"
    assert october["DTSTART;TZID=Europe/Berlin"] == "20261101T000000"  # winter time


@pytest.mark.django_db
def test_the_feed_in_german_and_linked(client: Client, now) -> None:
    text = client.get("/calendar.ics", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    first = events(text)[0]
    assert first["SUMMARY"] == "FIDO: Einsendeschluss für die Ergebnisse vom Mai 2026"
    assert "vor 1. Juni 2026\\, 00:00 (Europe/Berlin)" in first["DESCRIPTION"]
    html = client.get("/").content.decode()
    assert 'href="/calendar.ics"' in html
    assert client.post("/calendar.ics").status_code == 405
