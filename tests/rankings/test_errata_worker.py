"""Errata on a real Celery worker, Redis and PostgreSQL (as the close in
test_close_worker.py): the dashboard's service sends the run, the worker publishes v2
through the close job and supersedes v1; "recompute later months" publishes each later
month in order, the next run sent by the worker when the one before it has published; every
version then verifies.

Markers ``postgres`` and ``redis`` (under ``CI=true`` a missing server fails them); rows are
committed (``transaction=True``) for the worker to see them.
"""

from __future__ import annotations

import pytest

from matches import clock
from matches.models import Match
from matches.months import Month
from matches.services import match_void
from rankings.models import CloseRun, RankingList
from rankings.services.errata import erratum_request, later_months_recompute
from tests.matches.factories import AdminFactory
from tests.rankings.factories import close, submit_table
from tests.rankings.test_close_worker import run_of, wait_for
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_passwords"),
]


@pytest.fixture
def voided(march_results):  # noqa: F811
    """March to May closed, then the March table t1 voided by the federation."""
    a, _b, c, _d = march_results
    for day in ("2026-04-02", "2026-05-02"):
        submit_table(a.club, [([a], 20), ([c], 3)], id=f"t{day}", date=day)
    for month in ("2026-03", "2026-04", "2026-05"):
        close(month)
    admin = AdminFactory()
    match_void(
        match=Match.objects.get(external_id="t1"), by=admin, reason="not FIDO", now=clock.now()
    )
    return admin


def _editions() -> dict[str, tuple[int, str]]:
    """Month -> (edition, status) of every version, for the lists of the months."""
    return {
        f"{Month.of(month)} v{edition}": status
        for month, edition, status in RankingList.objects.exclude(status="failed").values_list(
            "month", "edition", "status"
        )
    }


def test_an_erratum_and_the_later_months_on_a_worker(voided, live_worker) -> None:
    first = erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=voided)
    wait_for(lambda: run_of(first.pk).is_finished, 120, f"erratum run {first.pk}")
    done = run_of(first.pk)
    assert (done.state, done.stage, done.percent) == ("succeeded", "done", 100)
    assert _editions()["2026-03 v1"] == "superseded"
    assert _editions()["2026-03 v2"] == "published"

    chain = later_months_recompute(discipline="fido", reason="after March v2", by=voided)
    assert str(Month.of(chain.month)) == "2026-04"

    def may_published_and_recorded() -> bool:
        # The run is marked succeeded just after its list's publication commits, so wait for
        # both (CI once read May's run as still running right after May's list appeared).
        runs = CloseRun.objects.filter(erratum__isnull=False)
        return _editions().get("2026-05 v2") == "published" and (
            len(runs) == 3 and all(r.is_finished for r in runs)
        )

    wait_for(may_published_and_recorded, 180, "May's new version and its run's end")
    runs = list(CloseRun.objects.filter(erratum__isnull=False).order_by("created_at", "id"))
    assert [(str(Month.of(r.month)), r.state) for r in runs] == [
        ("2026-03", "succeeded"),
        ("2026-04", "succeeded"),
        ("2026-05", "succeeded"),
    ]
    # In order: May's list was published after April's, which it read.
    april = RankingList.objects.get(month="2026-04-01", edition=2)
    may = RankingList.objects.get(month="2026-05-01", edition=2)
    assert april.published_at < may.published_at
    for month in ("2026-03", "2026-04", "2026-05"):
        out, _ = run("verify_list", month)
        assert out.count(": verified") == 2, out
