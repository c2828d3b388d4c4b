"""The projected list where people see it: the API, the ranking and player pages, the
dashboard's refresh button and its progress, the nightly beat, and a real worker."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.test import Client

from fido.celery import app as celery_app
from matches.months import Month
from rankings import dispatch
from rankings.models import ProjectionRun, RankingEntry, RankingList
from rankings.selectors.lists import current_list
from rankings.selectors.projection import projected_list
from rankings.selectors.review_movers import projection_movers
from rankings.selectors.stored_review import stored_review
from rankings.services.projection import projection_enqueue, projection_refresh
from tests.matches.factories import PlayerFactory, UserFactory
from tests.rankings.factories import close, random_results

MONTHS = [Month.parse(m) for m in ("2026-01", "2026-02", "2026-03")]
pytestmark = pytest.mark.usefixtures("fast_passwords")


@pytest.fixture
def history(db: None) -> None:
    random_results(seed=21, matches=80, players=30, months=MONTHS)
    for month in MONTHS[:2]:
        close(month)


@pytest.fixture
def projected(history: None) -> RankingList:
    return projection_refresh(discipline="fido")


def top(ranking_list: RankingList) -> RankingEntry:
    return RankingEntry.objects.select_related("player").get(ranking_list=ranking_list, rank=1)


# --- the API ----------------------------------------------------------------------------------


def test_api_gives_the_shape_of_a_list_marked_provisional(client: Client, projected) -> None:
    body = client.get("/api/rankings/fido/projected?page_size=5").json()
    assert body["provisional"] is True
    # ``as_of`` is rendered in the federation's time zone: compare instants, not date strings
    # (a string comparison with the UTC date failed every night between 23:00 and midnight).
    assert dt.datetime.fromisoformat(body["as_of"]) == projected.created_at
    assert body["list"]["month"] == "2026-03" and body["list"]["published_at"] is None
    assert body["count"] == projected.entry_count
    assert set(body) >= {"list", "count", "page", "pages", "next", "previous", "results"}
    first = top(projected)
    assert body["results"][0]["player_id"] == first.player.player_id
    assert body["results"][0]["fladub"] == f"{first.fladub:.2f}"
    assert len(body["results"]) == 5 and body["next"]


@pytest.mark.django_db
def test_api_without_a_projection_or_discipline_is_a_404(client: Client, history) -> None:
    assert client.get("/api/rankings/fido/projected").status_code == 404
    assert client.get("/api/rankings/chess/projected").status_code == 404
    # "projected" is not taken for a month
    assert client.get("/api/rankings/fido/projected").json()["errors"][0]["message"]


def test_api_bad_paging_is_a_400(client: Client, projected) -> None:
    assert client.get("/api/rankings/fido/projected?page_size=0").status_code == 400


def test_the_archive_and_feed_never_show_the_projection(client: Client, projected) -> None:
    lists = client.get("/api/rankings/fido/lists").json()
    assert [entry["month"] for entry in lists] == ["2026-02", "2026-01"]
    feed = client.get("/feeds/lists.atom").content.decode()
    assert "2026-03" not in feed and "rojected" not in feed
    assert "2026-03" not in client.get("/archive/").content.decode()


# --- the pages ---------------------------------------------------------------------------------


def test_the_ranking_page_offers_the_projection_marked_provisional(
    client: Client, projected
) -> None:
    current = client.get("/ranking/fido/").content.decode()
    assert "/ranking/fido/projected/" in current and "provisional, as of" in current
    page = client.get("/ranking/fido/projected/").content.decode()
    assert "Provisional: the list of March 2026" in page
    assert top(projected).player.player_id in page
    assert "Download this list" not in page  # a projection is not a download


def test_the_projected_page_in_german(client: Client, projected) -> None:
    page = client.get("/ranking/fido/projected/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Vorläufig" in page


@pytest.mark.django_db
def test_no_projection_no_page(client: Client, history) -> None:
    assert client.get("/ranking/fido/projected/").status_code == 404
    assert "/ranking/fido/projected/" not in client.get("/ranking/fido/").content.decode()


def test_the_player_page_shows_the_projected_rank_and_number(client: Client, projected) -> None:
    first = top(projected)
    page = client.get(f"/players/{first.player.player_id}/?discipline=fido").content.decode()
    assert f"rank 1, FLADUB {first.fladub:.2f}" in page
    assert "Projected for March 2026 (provisional, as of" in page
    nobody = PlayerFactory()
    other = client.get(f"/players/{nobody.player_id}/?discipline=fido").content.decode()
    assert "not on the list" in other


# --- the dashboard -----------------------------------------------------------------------------


def test_the_dashboard_button_queues_a_refresh(
    client: Client, history, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    sent: list[tuple[str, object]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: sent.append((name, kw)))
    client.force_login(UserFactory(is_staff=True))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/dashboard/projection/", {"discipline": "fido"})
    assert response.status_code == 303
    run = ProjectionRun.objects.get()
    assert [(name, kw["args"]) for name, kw in sent] == [
        (dispatch.PROJECTION_REFRESH, ("fido", run.pk))
    ]
    assert sent[0][1]["retry_policy"] == dispatch.SEND_RETRY_POLICY  # bounded: no 20 s stall
    page = client.get("/dashboard/").content.decode()
    assert f"/dashboard/projections/{run.pk}.json" in page
    status = client.get(f"/dashboard/projections/{run.pk}.json").json()
    assert (status["state"], status["percent"], status["finished"]) == ("queued", 0, False)


def test_the_dashboard_shows_a_finished_projection(client: Client, projected) -> None:
    client.force_login(UserFactory(is_staff=True))
    run = projection_enqueue(discipline="fido")  # on_commit does not fire in a test
    projection_refresh(discipline="fido", run=run)
    status = client.get(f"/dashboard/projections/{run.pk}.json").json()
    assert status["state"] == "succeeded" and status["percent"] == 100
    assert status["ranking_list"]["url"] == "/ranking/fido/projected/"
    assert "provisional, as of" in client.get("/dashboard/").content.decode()


@pytest.mark.django_db
def test_the_dashboard_refuses_bad_input_and_strangers(client: Client) -> None:
    assert client.post("/dashboard/projection/", {"discipline": "fido"}).status_code == 302
    client.force_login(UserFactory(is_staff=False))
    assert client.post("/dashboard/projection/", {"discipline": "fido"}).status_code == 403
    assert client.get("/dashboard/projections/1.json").status_code == 403
    client.force_login(UserFactory(is_staff=True))
    response = client.post("/dashboard/projection/", {"discipline": "chess"})
    assert response.status_code == 400 and "Unknown discipline." in response.content.decode()
    assert "The projection was not refreshed:" in response.content.decode()
    assert client.get("/dashboard/projections/999.json").status_code == 404
    assert not ProjectionRun.objects.exists()


@pytest.mark.django_db(transaction=True)  # on_commit runs at once, as in a request
def test_an_unreachable_broker_marks_the_run_failed(client: Client, monkeypatch) -> None:
    def down(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(celery_app, "send_task", down)
    client.force_login(UserFactory(is_staff=True))
    response = client.post("/dashboard/projection/", {"discipline": "fido"})
    assert response.status_code == 503
    assert "the projection was not started" in response.content.decode()
    assert ProjectionRun.objects.get().state == ProjectionRun.State.FAILED


# --- beat and a real worker ----------------------------------------------------------------------


def test_beat_refreshes_the_projections_every_night() -> None:
    from fido.celery import BEAT_SCHEDULE

    entry = BEAT_SCHEDULE["rankings-projections-refresh"]
    assert entry["task"] == dispatch.PROJECTIONS_REFRESH
    schedule = entry["schedule"]
    assert schedule.hour == {3} and schedule.minute == {17}  # type: ignore[attr-defined]


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_refreshes_the_projection(live_worker) -> None:
    random_results(seed=22, matches=60, players=20, months=MONTHS)
    for month in MONTHS[:2]:
        close(month)
    run = projection_enqueue(discipline="fido")
    give_up = time.monotonic() + 120
    while not ProjectionRun.objects.get(pk=run.pk).is_finished:
        assert time.monotonic() < give_up, "the worker did not finish the projection"
        time.sleep(0.2)
    run.refresh_from_db()
    assert run.state == "succeeded", run.error
    projected = RankingList.objects.get(status="projected")
    assert run.ranking_list_id == projected.pk and projected.entry_count > 0
    # The worker computed the admin's review with it (the page only reads it).
    review, shown = stored_review(projected.pk), projected_list("fido")
    assert review is not None and shown is not None
    assert review.movers == projection_movers(shown.ranking_list, current_list(discipline="fido"))
    live_worker.send_task(dispatch.PROJECTIONS_REFRESH)  # the beat's task (ignores its result)
    give_up = time.monotonic() + 120
    # The new list replaces the old one in one transaction, and its review is recorded in
    # the next: wait for both (the old one's review went with it).
    while RankingList.objects.filter(pk=projected.pk).exists() or not any(
        stored_review(pk)
        for pk in RankingList.objects.filter(status="projected").values_list("pk", flat=True)
    ):
        assert time.monotonic() < give_up, "the nightly task did not replace the projection"
        time.sleep(0.2)
    [replaced] = RankingList.objects.filter(status="projected")
    assert stored_review(replaced.pk) is not None and stored_review(projected.pk) is None
