"""My submissions: the club's matches with sides, status, counting month and receipt time."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from matches.services import match_submit
from tests.clock import BERLIN, NOW
from tests.matches.factories import match_payload

from .conftest import text

pytestmark = pytest.mark.django_db


def test_a_match_row_shows_what_the_secretary_needs(sec_client: Client, club, players) -> None:
    payload = match_payload(
        club,
        [([players[0], players[1]], 57), ([players[2]], -4)],
        id="CLUB-7/2026-02-27/t3",
        date="2026-02-27",
        category="league",
    )
    # Received on 1 March 00:30 in Berlin (23:30 UTC the day before): late, counts in March.
    received = dt.datetime(2026, 2, 28, 23, 30, tzinfo=dt.UTC)
    match_submit(club=club, payload=payload, submitted_by=None, now=received, channel="api")
    page = text(sec_client.get("/secretary/").content.decode())
    row = page[page.index("2026-02-27 CLUB-7/2026-02-27/t3") :]
    assert row.startswith(
        f"2026-02-27 CLUB-7/2026-02-27/t3 FIDO divisor game League "
        f"{players[0].name} P-000001, {players[1].name} P-000002 57 "
        f"{players[2].name} P-000003 -4 late 2026-03 2026-03-01 00:30"
    )
    assert "Received (Europe/Berlin)" in page


def test_pages_of_25_newest_first_in_few_queries(
    sec_client: Client, club, players, django_assert_max_num_queries
) -> None:
    for n in range(30):
        payload = match_payload(
            club, [([players[0]], n), ([players[1]], 0)], id=f"m{n:02d}", date="2026-03-14"
        )
        match_submit(
            club=club,
            payload=payload,
            submitted_by=None,
            now=NOW - dt.timedelta(minutes=30 - n),
            channel="api",
        )
    with django_assert_max_num_queries(12):
        first = text(sec_client.get("/secretary/").content.decode())
    assert "30 matches, newest received first" in first
    assert "m29" in first and "m05" in first and "m04" not in first
    assert "Page 1 of 2" in first
    second = text(sec_client.get("/secretary/?page=2").content.decode())
    assert "m04" in second and "m05" not in second


def test_received_at_is_shown_in_the_federation_zone(
    sec_client: Client, club, players, set_now
) -> None:
    at = dt.datetime(2026, 3, 14, 21, 5, tzinfo=dt.UTC)
    payload = match_payload(club, [([players[0]], 1), ([players[1]], 0)], id="x")
    match_submit(club=club, payload=payload, submitted_by=None, now=at, channel="api")
    assert "2026-03-14 22:05" in text(sec_client.get("/secretary/").content.decode())
    assert at.astimezone(BERLIN).hour == 22
