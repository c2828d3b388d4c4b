"""An admin opens the cycle dashboard, closes a month and watches the ranking job run on a
real Celery worker until its list is published."""

from __future__ import annotations

import time
from typing import Any

import pytest

from matches.models import Player
from rankings import fladub
from rankings.models import CloseRun, RankingList
from tests.browser.conftest import log_in
from tests.matches.factories import ClubFactory, PlayerFactory, UserFactory
from tests.rankings.factories import after_deadline, submit_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-admin-password"


@pytest.fixture
def march() -> list[Player]:
    """Four FIDO tables of March 2026 at two clubs."""
    players = [PlayerFactory() for _ in range(6)]
    clubs = [ClubFactory(), ClubFactory()]
    for i in range(4):
        a, b, c = (players[(i + k) % 6] for k in range(3))
        submit_table(
            clubs[i % 2],
            [([a], 40 - i), ([b], 20), ([c], -3)],
            id=f"t{i}",
            date=f"2026-03-{i + 3:02d}",
        )
    return players


def test_an_admin_closes_a_month_and_watches_the_job_publish_it(
    page: Any, live_worker: Any, march: list[Player], set_now: Any, monkeypatch: Any
) -> None:
    set_now(after_deadline("2026-03"))
    # The job (on the in-process worker) takes 1.5 s more to compute, so that the bar is
    # seen between 0 and 100.
    list_of_results = fladub.list_of_results  # the close's last step, with packs or not

    def slow_list_of_results(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.5)
        return list_of_results(*args, **kwargs)

    monkeypatch.setattr(fladub, "list_of_results", slow_list_of_results)
    UserFactory(username="chair", password=PASSWORD, is_staff=True)
    log_in(page, "chair", PASSWORD)
    page.goto("/dashboard/")
    card = page.locator("#discipline-fido")
    assert "2026-03" in card.locator("dd").first.inner_text()
    button = card.get_by_role("button", name="Close 2026-03")
    assert button.is_enabled()

    dialogs: list[str] = []

    def accept(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    button.click()
    page.wait_for_url("**/dashboard/**")
    assert dialogs and "Close 2026-03 of the FIDO divisor game?" in dialogs[0]
    run = CloseRun.objects.get(discipline="fido")
    bar = page.locator(f"#progress-{run.pk}")
    assert bar.get_attribute("aria-valuemax") == "100"

    # Watch the bar: it moves while the worker runs, and ends at 100 with the list linked.
    seen: set[int] = set()
    give_up = time.monotonic() + 90
    while time.monotonic() < give_up:
        if not bar.count():  # the page reloaded itself after the publication
            break
        value = bar.get_attribute("aria-valuenow")
        if value is not None:
            seen.add(int(value))
        if page.locator(f"#run-{run.pk} .run-result a").count():
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the run did not finish: {CloseRun.objects.get(pk=run.pk)}")
    assert any(0 < v < 100 for v in seen), f"the bar never moved between 0 and 100: {seen}"
    link = page.get_by_role("link", name="Published: the list of 2026-03, version 1")
    link.wait_for()
    run.refresh_from_db()
    assert run.state == CloseRun.State.SUCCEEDED and run.percent == 100
    published = RankingList.objects.get(discipline="fido", month="2026-03-01", status="published")
    assert run.ranking_list_id == published.pk and published.entry_count > 0

    # The page reloads itself: the next month is open and the list is among the published.
    page.wait_for_selector("text=Open month", state="attached")
    page.locator("#discipline-fido").get_by_role("button", name="Close 2026-04").wait_for()
    row = page.locator("table.published-lists tbody tr").first
    assert "2026-03" in row.inner_text() and " s" in row.inner_text()

    # The list itself is one click away.
    page.get_by_role("link", name="2026-03").first.click()
    assert page.url.endswith("/ranking/fido/2026-03/")
    assert page.locator("table").first.is_visible()


def test_an_admin_publishes_a_corrected_version_from_the_dashboard(
    page: Any, live_worker: Any, march: list[Player]
) -> None:
    """After a void touched closed March, the card offers its erratum with the void listed;
    the admin gives a reason and presses the button; the worker publishes version 2, which
    the card links once done, and v1 says it is superseded."""
    from matches import clock
    from matches.models import Match
    from matches.services import match_void
    from tests.rankings.factories import close

    close("2026-03")
    match_void(
        match=Match.objects.get(external_id="t0"), by=None, reason="wrong table", now=clock.now()
    )
    UserFactory(username="chair", password=PASSWORD, is_staff=True)
    log_in(page, "chair", PASSWORD)
    page.goto("/dashboard/")
    card = page.locator("#discipline-fido")
    form = card.locator("#erratum-fido-2026-03")
    assert "1 correction or void touched 2026-03 since its version 1:" in form.inner_text()
    assert "wrong table" in form.inner_text()
    button = form.get_by_role("button", name="Publish a corrected version of 2026-03")
    button.click()  # without a reason the browser refuses to send (required)
    assert (
        page.url.endswith("/dashboard/")
        and not CloseRun.objects.filter(erratum__isnull=False).exists()
    )
    form.get_by_label("Reason (recorded)").fill("t0 was not a FIDO table")
    button.click()
    page.wait_for_url("**/dashboard/**")
    run = CloseRun.objects.get(erratum__isnull=False)
    link = page.get_by_role("link", name="Published: the list of 2026-03, version 2")
    link.wait_for(timeout=90_000)
    run.refresh_from_db()
    assert run.state == CloseRun.State.SUCCEEDED and run.erratum.reason == "t0 was not a FIDO table"
    page.goto("/ranking/fido/2026-03/v1/")
    assert "This version of the list has been superseded by version 2." in page.inner_text("body")
