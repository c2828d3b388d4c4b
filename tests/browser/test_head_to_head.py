"""The head-to-head page in a browser (issue 13, item 6): from a player's page, typing part
of a name in "Compare with …" offers players (club and country shown), the chosen one's
federation id goes in the field, and the form opens the two players' page: the tally, the
FLADUB effect in the current list, a row per shared match; in German too."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import suggestions
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import close, submit_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def rivals() -> tuple[Any, Any]:
    club = ClubFactory(club_id="CLUB-HAV", name="Club de Dominó La Habana", country="CU")
    rosa = PlayerFactory(player_id="P-000201", name="Rosa Vidal", country="CU", club=club)
    juan = PlayerFactory(player_id="P-000202", name="Juan Pérez", country="CU", club=club)
    ana = PlayerFactory(player_id="P-000203", name="Ana Castro", country="CU", club=club)
    submit_table(club, [([rosa], 5), ([juan], 1)], id="t1", date="2026-03-10")
    submit_table(club, [([rosa], 2), ([juan], 6), ([ana], 4)], id="t2", date="2026-03-12")
    submit_table(club, [([rosa], 3), ([ana], 1)], id="t3", date="2026-03-13")
    close("2026-03")
    return rosa, juan


def test_compare_from_the_player_page(page: Any, rivals: tuple[Any, Any]) -> None:
    rosa, juan = rivals
    page.goto(f"/players/{rosa.player_id}/")
    field = page.get_by_label("Compare with …")
    offered = suggestions(field, "Pérez", page.locator("#compare-suggestions option"))
    assert offered == [("P-000202", "Juan Pérez · Club de Dominó La Habana · Cuba")]
    field.fill(offered[0][0])  # what choosing the suggestion does
    page.get_by_role("button", name="Head-to-head").click()
    page.wait_for_url(f"**/players/{rosa.player_id}/versus/{juan.player_id}/")
    assert (
        page.get_by_role("heading", level=1)
        .inner_text()
        .startswith("Rosa Vidal against Juan Pérez")
    )
    tally = page.locator("#h2h-tally").inner_text()
    assert "2 shared FIDO matches." in tally
    assert "Rosa Vidal placed higher once; Juan Pérez placed higher once;" in tally
    assert "In the list of March 2026" in page.locator("#h2h-effect").inner_text()
    rows = page.locator("table.h2h-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td.h2h-higher").inner_text() == "Juan Pérez"
    assert rows.nth(1).locator("td.h2h-higher").inner_text() == "Rosa Vidal"
    assert "1. Rosa Vidal (5); 2. Juan Pérez (1)" in rows.nth(1).inner_text()


def test_an_unknown_player_and_german(page: Any, rivals: tuple[Any, Any]) -> None:
    rosa, juan = rivals
    page.goto(f"/players/{rosa.player_id}/")
    page.get_by_label("Compare with …").fill("Nobody")
    page.get_by_role("button", name="Head-to-head").click()
    assert "No player matches “Nobody”" in page.locator("main").inner_text()
    page.context.add_cookies([{"name": "django_language", "value": "de", "url": page.url}])
    page.goto(f"/players/{rosa.player_id}/versus/{juan.player_id}/")
    assert "Rosa Vidal gegen Juan Pérez" in page.get_by_role("heading", level=1).inner_text()
    assert "2 gemeinsame FIDO-Partien." in page.locator("#h2h-tally").inner_text()
