"""A visitor searches the ranking and opens a player; a secretary logs in, submits a table
and finds it among their submissions."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from matches.models import Match
from tests.browser.conftest import log_in
from tests.clock import BERLIN
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory
from tests.rankings.factories import after_deadline, close, submit_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_searches_the_ranking_and_opens_a_player(page: Any, set_now: Any) -> None:
    club = ClubFactory(club_id="CLUB-BER", name="Dominoclub Berlin")
    ada = PlayerFactory(name="Ada Lovelace", club=club)
    others = [PlayerFactory(name=f"Other Player {i}", club=club) for i in range(3)]
    submit_table(
        club, [([ada], 50), ([others[0]], 10), ([others[1]], 0)], id="t1", date="2026-03-05"
    )
    submit_table(club, [([others[2]], 30), ([others[0]], 20)], id="t2", date="2026-03-07")
    close("2026-03")
    set_now(after_deadline("2026-03", minutes=60))

    page.goto("/ranking/fido/")
    rows = page.locator("table tbody tr")
    assert rows.count() >= 3
    page.get_by_label("Name or player id").fill("lovelace")
    page.get_by_label("Name or player id").press("Enter")
    page.wait_for_url(re.compile(r".*[?&]q=lovelace.*"))
    assert page.locator("table tbody tr").count() == 1
    page.get_by_role("link", name="Ada Lovelace").click()
    page.wait_for_url(f"**/players/{ada.player_id}/")
    assert "Ada Lovelace" in page.get_by_role("heading", level=1).inner_text()
    # Beating a whole unranked table is worth B = 10 (SPEC 4.3).
    assert "10.00" in page.locator("main").inner_text()


def test_a_secretary_submits_a_table_and_sees_it_listed(page: Any, set_now: Any) -> None:
    set_now(dt.datetime(2026, 3, 20, 12, 0, tzinfo=BERLIN))
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana")
    user = UserFactory(username="sec", password="a-long-secretary-password")
    SecretaryFactory(user=user, club=club)
    a, b = PlayerFactory(club=club), PlayerFactory(club=club)

    log_in(page, "sec", "a-long-secretary-password")
    page.goto("/secretary/submit/")
    form = page.locator("#match-form")
    form.get_by_label("Date played").fill("2026-03-14")
    form.get_by_label("Match id").fill("CLUB-HAV/2026-03-14/t1")
    page.locator("#sides-0-players").fill(a.player_id)
    page.locator("#sides-0-score").fill("57")
    page.locator("#sides-1-players").fill(b.player_id)
    page.locator("#sides-1-score").fill("31")
    form.get_by_role("button", name="Submit the match").click()
    page.wait_for_url("**/secretary/")
    listed = page.locator("table.submissions")
    assert "CLUB-HAV/2026-03-14/t1" in listed.inner_text()
    assert "on time" in listed.inner_text().lower()
    match = Match.objects.get(external_id="CLUB-HAV/2026-03-14/t1")
    assert match.status == "on_time" and match.submission.submitted_by == user
    assert sorted(s.score for s in match.sides.all()) == [31, 57]
