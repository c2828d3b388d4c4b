"""The automatic close: which months are due (aware deadlines, right across DST), the beat
task that enqueues them, catching up inline (demo data), and the task body itself."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.db import connection

from matches.months import Month
from rankings import dispatch
from rankings.models import CloseRun, RankingList
from rankings.selectors.cycle import months_due
from rankings.services.close import month_close
from rankings.services.close_run import close_run_create
from rankings.services.schedule import due_months_enqueue, past_months_close
from rankings.tasks import month_close as month_close_task
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import after_deadline, submit_table

pytestmark = pytest.mark.django_db
UTC = dt.UTC
FIVE = dt.timedelta(minutes=5)


def utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


@pytest.fixture
def results_in(request):
    """Results of one table per listed month (fido), submitted on time."""

    def make(*months: str, discipline: str = "fido") -> None:
        club = ClubFactory()
        a, b = PlayerFactory(club=club), PlayerFactory(club=club)
        for n, month in enumerate(months):
            submit_table(
                club, [([a], 2), ([b], 1)], id=f"m{n}", date=f"{month}-10", discipline=discipline
            )

    return make


def test_berlin_march_is_due_five_minutes_after_midnight_cest(results_in) -> None:
    results_in("2026-03")
    # 2026-03-29 is the last Sunday of March: clocks go 02:00 CET -> 03:00 CEST. March's
    # deadline, 2026-04-01 00:00 CEST, is 2026-03-31 22:00 UTC (not 23:00, not 00:00).
    assert months_due(now=utc(2026, 3, 29, 1, 30), delay=FIVE) == []
    assert months_due(now=utc(2026, 3, 31, 22, 4, 59), delay=FIVE) == []
    assert months_due(now=utc(2026, 3, 31, 22, 5), delay=FIVE) == [("fido", Month(2026, 3))]


def test_berlin_october_is_due_five_minutes_after_midnight_cet(results_in) -> None:
    results_in("2026-10")
    # 2026-10-25, the last Sunday of October: 03:00 CEST -> 02:00 CET. October's deadline,
    # 2026-11-01 00:00 CET, is 2026-10-31 23:00 UTC.
    assert months_due(now=utc(2026, 10, 25, 1, 30), delay=FIVE) == []
    assert months_due(now=utc(2026, 10, 31, 23, 4, 59), delay=FIVE) == []
    assert months_due(now=utc(2026, 10, 31, 23, 5), delay=FIVE) == [("fido", Month(2026, 10))]


def test_february_deadline_just_before_the_spring_change(results_in) -> None:
    results_in("2026-02")
    # 2026-03-01 00:00 CET = 2026-02-28 23:00 UTC; the default delay is FIDO_CLOSE_DELAY.
    delay = dt.timedelta(minutes=settings.FIDO_CLOSE_DELAY)
    at = utc(2026, 2, 28, 23, 0) + delay
    assert months_due(now=at - dt.timedelta(seconds=1)) == []
    assert months_due(now=at) == [("fido", Month(2026, 2))]


def test_due_months_follow_the_closed_ones_per_discipline(results_in) -> None:
    results_in("2026-02", "2026-03")
    results_in("2026-03", discipline="austrian")
    now = utc(2026, 4, 10, 12, 0)
    assert months_due(now=now) == [("fido", Month(2026, 2)), ("austrian", Month(2026, 3))]
    month_close(month=Month(2026, 2), discipline="fido", now=now)
    assert months_due(now=now) == [("fido", Month(2026, 3)), ("austrian", Month(2026, 3))]
    month_close(month=Month(2026, 3), discipline="fido", now=now)
    assert months_due(now=now) == [("austrian", Month(2026, 3))]


def test_the_beat_task_enqueues_each_due_month_once(
    results_in, django_capture_on_commit_callbacks
) -> None:
    results_in("2026-03")
    now = after_deadline("2026-03")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        runs = due_months_enqueue(now=now)
        again = due_months_enqueue(now=now)
    assert [(r.discipline, str(Month.of(r.month)), r.state) for r in runs] == [
        ("fido", "2026-03", "queued")
    ]
    assert again == []  # a queued run is not enqueued twice
    assert len(callbacks) == 1


def test_the_beat_schedule_runs_the_due_task_every_five_minutes() -> None:
    from celery.schedules import crontab

    from fido.celery import app

    entry = app.conf.beat_schedule["rankings-due-months-close"]
    assert entry["task"] == "rankings.due_months_close"
    assert entry["schedule"] == crontab(minute="*/5")
    app.loader.import_default_modules()
    # The names the services send by (rankings.dispatch) are the names the tasks have.
    assert {dispatch.DUE_MONTHS_CLOSE, dispatch.MONTH_CLOSE} == {
        "rankings.due_months_close",
        "rankings.month_close",
    }
    assert {"rankings.due_months_close", "rankings.month_close"} <= set(app.tasks)
    task = app.tasks["rankings.month_close"]
    assert task.acks_late and task.reject_on_worker_lost
    assert task.time_limit > task.soft_time_limit > 0


def test_close_past_months_catches_up_oldest_first(results_in) -> None:
    results_in("2026-03", "2026-04")
    results_in("2026-05", discipline="allfives")
    lists = past_months_close(now=dt.datetime(2026, 7, 15, 12, 0, tzinfo=UTC))
    assert [(x.discipline, str(Month.of(x.month))) for x in lists] == [
        ("fido", "2026-03"),
        ("fido", "2026-04"),
        ("fido", "2026-05"),
        ("fido", "2026-06"),
        ("allfives", "2026-05"),
        ("allfives", "2026-06"),
    ]
    assert past_months_close(now=dt.datetime(2026, 7, 15, 12, 0, tzinfo=UTC)) == []


def test_the_task_body_publishes_and_a_refusal_is_final(results_in) -> None:
    results_in("2026-03")
    run = close_run_create(month="2026-03", discipline="fido")
    result = month_close_task.apply(args=("2026-03", "fido", run.pk)).get()
    assert result["state"] == "published"
    assert RankingList.objects.get(pk=result["ranking_list"]).entry_count == 1
    run.refresh_from_db()
    assert (run.state, run.stage, run.percent) == ("succeeded", "done", 100)

    refused_run = close_run_create(month="2999-01", discipline="fido")
    refused = month_close_task.apply(args=("2999-01", "fido", refused_run.pk)).get()
    assert refused["state"] == "refused"
    refused_run.refresh_from_db()
    assert refused_run.state == CloseRun.State.FAILED
    assert "before its deadline" in refused_run.error


@pytest.mark.django_db
def test_the_beat_prunes_the_change_log_of_results_every_night() -> None:
    from celery.schedules import crontab

    from fido.celery import app

    entry = app.conf.beat_schedule["rankings-member-changes-prune"]
    assert entry["task"] == dispatch.MEMBER_CHANGES_PRUNE == "rankings.member_changes_prune"
    assert entry["schedule"] == crontab(hour=4, minute=41)
    app.loader.import_default_modules()
    task = app.tasks[dispatch.MEMBER_CHANGES_PRUNE]
    # Run in this process, with no pack: every change logged so far (the test database's
    # earlier TRUNCATEs) is pruned (the cases are in tests/rankings/test_result_packs.py).
    assert task.run() >= 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM rankings_memberchange")
            assert cursor.fetchone() == (0,)


@pytest.mark.django_db
def test_the_beat_packs_the_busiest_players_points_every_night() -> None:
    from celery.schedules import crontab

    from fido.celery import app

    entry = app.conf.beat_schedule["rankings-player-packs-write"]
    assert entry["task"] == dispatch.PLAYER_PACKS_WRITE == "rankings.player_packs_write"
    assert entry["schedule"] == crontab(hour=4, minute=53)
    app.loader.import_default_modules()
    # No list published here: nothing to pack (the cases: tests/rankings/test_player_packs.py).
    assert app.tasks[dispatch.PLAYER_PACKS_WRITE].run() == 0
