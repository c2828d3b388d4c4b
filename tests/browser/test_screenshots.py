"""Screenshots of the main pages, on the demo federation, taken by a real browser.

Each page must load without a JavaScript error and show its heading. The pictures go to
``$FIDO_SCREENSHOTS_DIR`` when it is set (``docs/screenshots/make.py`` sets it to
``docs/screenshots``, the pictures the docs show), else to a temporary directory.
"""

from __future__ import annotations

import datetime as dt
import io
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from matches.demo import DEMO_ADMIN, DEMO_SECRETARY
from rankings.models import RankingEntry
from tests.browser.conftest import log_in
from tests.clock import BERLIN

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The demo's clock: mid-May 2026, so April's list is the latest and May is open.
NOW = dt.datetime(2026, 5, 20, 10, 30, tzinfo=BERLIN)
MAX_HEIGHT = 2000


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    target = os.environ.get("FIDO_SCREENSHOTS_DIR")
    path = Path(target) if target else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


def shoot(page: Any, path: str, target: Path, *, heading: str | None = None) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 200, (path, response and response.status)
    page.wait_for_load_state("networkidle")
    if heading is not None:
        assert heading in page.get_by_role("heading", level=1).first.inner_text()
    # The whole page, cut at MAX_HEIGHT: the top of a long page is what a reader looks at.
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(
        path=str(target),
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1280, "height": min(height, MAX_HEIGHT)},
    )


def test_screenshots_of_the_main_pages(page: Any, set_now: Any, out_dir: Path) -> None:
    set_now(NOW)
    call_command("seed_demo", stdout=io.StringIO())
    top = (
        RankingEntry.objects.filter(
            ranking_list__discipline="fido", ranking_list__status="published"
        )
        .order_by("-ranking_list__month", "rank")
        .select_related("player", "player__club")
        .first()
    )
    assert top is not None, "the demo published no FIDO list"
    player = top.player

    shoot(page, "/", out_dir / "home.png")
    shoot(page, "/ranking/fido/", out_dir / "ranking.png")
    shoot(page, f"/players/{player.player_id}/", out_dir / "player.png", heading=player.name)
    shoot(page, f"/clubs/{player.club.club_id}/", out_dir / "club.png", heading=player.club.name)
    shoot(page, "/archive/", out_dir / "archive.png")
    shoot(
        page,
        "/records/viewer/?example=fido",
        out_dir / "record-viewer.png",
        heading="Game record viewer",
    )

    log_in(page, *DEMO_SECRETARY)
    shoot(page, "/secretary/submit/", out_dir / "secretary-submit.png", heading="Submit a match")
    page.context.clear_cookies()

    log_in(page, *DEMO_ADMIN)
    shoot(page, "/dashboard/", out_dir / "dashboard.png", heading="Cycle dashboard")

    names = sorted(p.name for p in out_dir.glob("*.png"))
    assert names == sorted(
        [
            "archive.png",
            "club.png",
            "dashboard.png",
            "home.png",
            "player.png",
            "ranking.png",
            "record-viewer.png",
            "secretary-submit.png",
        ]
    )
