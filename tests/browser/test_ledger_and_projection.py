"""A visitor reads why their number changed (the ledger's sentences, in English and German)
and the projected list marked provisional; an admin refreshes the projection from the cycle
dashboard and follows its progress; an admin holds the close with a reason and releases it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import admin_dashboard
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import after_deadline, close, submit_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def april(set_now: Any) -> Any:
    club = ClubFactory(club_id="CLUB-L", name="Ledger club")
    ada, bob, cy = (PlayerFactory(name=n, club=club) for n in ("Ada Ledger", "Bob B", "Cy C"))
    submit_table(club, [([ada], 5), ([bob], 1)], id="m1", date="2026-03-10")
    close("2026-03")
    submit_table(club, [([ada], 5), ([cy], 1)], id="a1", date="2026-04-10")
    close("2026-04")
    submit_table(club, [([cy], 5), ([ada], 1)], id="y1", date="2026-05-10")
    set_now(after_deadline("2026-04", minutes=60 * 24 * 12))
    return ada


def test_the_ledger_sentences_in_english_and_german(page: Any, april: Any) -> None:
    page.goto(f"/players/{april.player_id}/?discipline=fido")
    ledger = page.locator("section.ledger")
    ledger.get_by_role("heading", name="Why did my number change?").wait_for()
    assert ledger.locator(".ledger-number").first.inner_text() == (
        "FLADUB 10.00 → 19.17 (+9.17): -0.83 as an older result aged; +10.00 from 1 new result."
    )
    assert ledger.locator(".ledger-rank").first.inner_text() == (
        "Rank 1 → 1: nobody passed you and you passed nobody."
    )
    page.context.add_cookies([{"name": "django_language", "value": "de", "url": page.url}])
    page.reload()
    assert (
        "durch die Alterung eines älteren Ergebnisses"
        in page.locator(".ledger-number").first.inner_text()
    )


def test_an_admin_refreshes_the_projection_and_a_visitor_sees_it(
    page: Any, april: Any, live_worker: Any
) -> None:
    card = admin_dashboard(page, "admin")
    card.get_by_role("button", name="Refresh the projection now").click()
    run = card.locator('[id^="projection-run-"]')
    run.and_(page.locator(".succeeded")).wait_for(timeout=60_000)  # followed by dashboard.js
    assert run.locator(".run-percent-value").inner_text() == "100"
    page.goto("/ranking/fido/")
    page.get_by_role("link", name=re.compile(r"See the projected list of May 2026")).click()
    page.wait_for_url("**/ranking/fido/projected/")
    assert "Provisional: the list of May 2026" in page.locator(".notice.provisional").inner_text()
    assert page.locator("table tbody tr").count() == 2


def test_an_admin_holds_and_releases_the_close(page: Any, april: Any) -> None:
    card = admin_dashboard(page, "holder")
    card.get_by_label("Reason (recorded)").fill("club volume to check")
    card.get_by_role("button", name="Hold the close").click()
    card = page.locator("#discipline-fido")
    notice = card.locator(".held-notice")
    notice.wait_for()
    assert "Held since" in notice.inner_text() and "club volume to check" in notice.inner_text()
    assert "The close is held: club volume to check" in card.inner_text()
    card.get_by_label("Reason (recorded)").fill("checked")
    card.get_by_role("button", name="Release the close").click()
    page.locator("#discipline-fido").get_by_role("button", name="Hold the close").wait_for()
    assert page.locator("#discipline-fido .held-notice").count() == 0
