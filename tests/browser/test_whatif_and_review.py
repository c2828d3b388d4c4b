"""A visitor asks the what-if calculator (the type-ahead finds the player by name; the
answer is the API's; a bad field is named and marked); an admin reviews the projected list
before the close (flags with the matches behind them) and holds the close from there."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from matches.models import Player
from tests.browser.conftest import admin_dashboard
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import submit_table
from tests.rankings.test_whatif import history, listed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_asks_what_if(page: Any) -> None:
    rows = listed(history(11))
    me = Player.objects.get(player_id=rows[-1][0])
    Player.objects.filter(pk=me.pk).update(name="Zoe Whatif")
    opponent = rows[0][0]
    api = (
        Client()
        .post(
            "/api/rankings/fido/whatif",
            {
                "player_id": me.player_id,
                "month": "2026-04",
                "results": [
                    {
                        "category": "national",
                        "placing": 1,
                        "opponents": [{"player_id": opponent, "placing": 2}],
                    }
                ],
            },
            content_type="application/json",
        )
        .json()
    )

    page.goto("/ranking/fido/")
    page.get_by_role("link", name="What if? Calculate your number in the next list").click()
    page.wait_for_url("**/ranking/fido/whatif/")
    field = page.get_by_label("Player (federation id, or type a name)")
    field.fill("Zoe Wha")
    option = page.locator("#player-suggestions option")
    option.first.wait_for(state="attached")
    assert option.first.get_attribute("value") == me.player_id
    field.fill(option.first.get_attribute("value") or "")
    page.get_by_label("Result 1: category").select_option("national")
    page.get_by_label("Result 1: player's placing or score").fill("1")
    page.get_by_label("Result 1: opponent 1", exact=True).fill(opponent)
    page.get_by_label("Result 1: opponent 1's placing or score").fill("2")
    page.get_by_role("button", name="Calculate").click()
    answer = page.locator(".whatif-result")
    answer.wait_for()
    assert answer.inner_text() == f"With these results: rank {api['rank']}, FLADUB {api['fladub']}."
    assert "Provisional" in page.locator(".notice.provisional").inner_text()

    page.get_by_label("Result 1: opponent 1's placing or score").fill("5")
    page.get_by_role("button", name="Calculate").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "Result 1, opponent 1: A table of 2 sides has no place 5." in alert.inner_text()
    marked = page.get_by_label("Result 1: opponent 1's placing or score")
    assert marked.get_attribute("aria-invalid") == "true"
    assert page.locator(".whatif-result").count() == 0


def test_an_admin_reviews_the_projection_and_holds_the_close(page: Any) -> None:
    rows = listed(history(12))
    club = ClubFactory(club_id="CLUB-RV", name="Review club")
    a, b = (PlayerFactory(club=club, name=n) for n in ("Ann Twice", "Ben Twice"))
    for n in (1, 2):
        submit_table(club, [([a], 3), ([b], 1)], id=f"dup{n}", date="2026-04-11")
    from rankings.services.projection import projection_refresh

    projection_refresh(discipline="fido")
    card = admin_dashboard(page, "reviewer")
    card.get_by_role("link", name="Review before the close").click()
    page.wait_for_url("**/dashboard/review/fido/")
    assert page.locator(".review-as-of").inner_text().startswith("Flags as of ")
    duplicates = page.locator("#flags-near_duplicate")
    sentence = duplicates.locator(".flag-sentence")
    assert sentence.inner_text() == (
        "CLUB-RV/dup1 / CLUB-RV/dup2: the same players on the same day (2026-04-11)."
    )
    duplicates.get_by_text("2 matches behind it").click()
    link = duplicates.get_by_role("link", name="CLUB-RV/dup2")
    link.wait_for()
    assert "/admin/matches/match/" in (link.get_attribute("href") or "")
    assert page.locator("#flags-club_volume").inner_text().endswith("Nothing unusual.")
    assert page.get_by_role("heading", name="Who moves").is_visible()
    assert len(rows) > 0 and page.locator("table.movers").count() >= 1
    page.get_by_label("Reason (recorded)").fill("two matches entered twice")
    page.get_by_role("button", name="Hold the close").click()
    page.wait_for_url("**/dashboard/**")
    notice = page.locator("#discipline-fido .held-notice")
    notice.wait_for()
    assert "two matches entered twice" in notice.inner_text()
