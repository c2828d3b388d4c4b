"""The CSV preview in the browser (issue 15, item 3): a re-upload whose match differs from
the stored one shows both side by side, the differing field marked, and the button says
what it stores and what it leaves; clicking it stores the new match only."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from matches.models import Match
from tests.browser.conftest import log_in
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HEADER = "id,date,discipline,category,side,players,score\n"
T1 = "t1,2026-03-14,fido,club,1,P-000101,57\nt1,2026-03-14,fido,club,2,P-000102,31\n"


def upload(page: Any, content: str) -> None:
    page.goto("/secretary/upload/")
    page.get_by_label("CSV file").set_input_files(
        files=[{"name": "results.csv", "mimeType": "text/csv", "buffer": content.encode()}]
    )
    page.get_by_role("button", name="Check the file").click()


def test_a_conflicting_match_is_shown_beside_the_stored_one(page: Any, set_now: Any) -> None:
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana", country="CU")
    user = UserFactory(username="sec", password="a-long-secretary-password")
    SecretaryFactory(user=user, club=club)
    PlayerFactory(player_id="P-000101", name="Rosa Vidal", country="CU", club=club)
    PlayerFactory(player_id="P-000102", name="Ana Castro", country="CU", club=club)

    log_in(page, "sec", "a-long-secretary-password")
    upload(page, HEADER + T1)
    page.get_by_role("button", name="Store 1 new match").click()
    page.wait_for_url("**/secretary/?club=CLUB-HAV")

    changed = T1.replace("P-000102,31", "P-000102,30")
    upload(page, HEADER + changed + T1.replace("t1", "t2"))
    table = page.locator("table.conflict-table")
    assert (
        table.locator("caption").inner_text() == "Match t1 (from row 2) · Correct the stored match"
    )
    differing = table.locator("tr.differs")
    assert differing.count() == 1
    assert differing.locator("th").inner_text() == "side 2: score differs"
    assert differing.locator("td mark").all_inner_texts() == ["31", "30"]
    button = page.get_by_role(
        "button", name="Store 1 new match; leave 1 conflicting match as stored"
    )
    assert button.is_visible()
    button.click()
    page.wait_for_url("**/secretary/?club=CLUB-HAV")
    stored = {m.external_id: m for m in Match.objects.all()}
    assert sorted(stored) == ["t1", "t2"]
    assert list(stored["t1"].sides.order_by("position").values_list("score", flat=True)) == [
        57,
        31,
    ]
