"""The close on real workers, Redis and PostgreSQL: through a worker, a worker killed mid-job,
a duplicate delivery, two closes at once, an exception half-way.

These run only against the real servers (markers ``postgres`` and ``redis``; under
``CI=true`` a missing server fails them). Rows must be committed for the workers to see
them, hence ``transaction=True``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection, connections

from matches.months import Month
from rankings import fladub, writer
from rankings.models import CloseRun, CurrentList, RankingEntry, RankingList
from rankings.selectors.lists import current_list
from rankings.selectors.window import window
from rankings.services.close import month_close_enqueue
from tests.rankings.factories import close, list_columns, random_results

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]
ROOT = Path(__file__).resolve().parents[2]
MONTHS = [Month(2025, 6) + i for i in range(10)]  # 2025-06 .. 2026-03
TARGET = MONTHS[-1]


@pytest.fixture
def history() -> None:
    """Random results over ten months, every month but the last one closed."""
    random_results(seed=11, matches=300, players=90, months=MONTHS)
    for month in MONTHS[:-1]:
        close(month)


def entries(ranking_list: RankingList) -> list[tuple[int, int, int, int, int | None]]:
    return list(
        RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "player__player_id")
        .values_list("player_id", "rank", "fladub_cents", "results_counted", "previous_rank")
    )


def undisturbed(month: Month) -> list[tuple[int, int, int, int, int | None]]:
    """The list a single clean run computes from the same data (the portable path)."""
    inputs = window(discipline="fido", month=month, portable=True)
    ranking = fladub.compute_list(
        inputs.sides, month.index, inputs.published, player_order=inputs.player_order
    )
    columns = ("player", "rank", "fladub_cents", "results_counted", "previous_rank")
    return [
        (p, r, c, n, None if prev == 0 else prev)
        for p, r, c, n, prev in list_columns(ranking, *columns)
    ]


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def run_of(pk: int) -> CloseRun:
    return CloseRun.objects.get(pk=pk)


def current_id() -> int | None:
    found = current_list(discipline="fido")
    return None if found is None else found.id


# --- through a worker -------------------------------------------------------------------------


def test_close_month_command_waits_for_the_worker(history, live_worker, capsys) -> None:
    call_command("close_month", str(TARGET), "--discipline", "fido", "--timeout", "120")
    out = capsys.readouterr().out
    assert f"fido {TARGET}: closing on a worker (run " in out
    assert f"fido {TARGET}: published (list " in out
    assert [line.split()[0] for line in out.splitlines()[2:]] == [
        "load",
        "compute",
        "write",
        "publish",
    ]
    published = RankingList.objects.get(month=TARGET.first_day, status="published")
    assert entries(published) == undisturbed(TARGET)
    assert current_id() == published.pk
    run = CloseRun.objects.get(month=TARGET.first_day)
    assert run.task_id and run.state == "succeeded" and run.attempts == 1


def test_a_duplicate_delivery_publishes_nothing_twice(history, live_worker) -> None:
    first = month_close_enqueue(month=TARGET, discipline="fido")
    second = month_close_enqueue(month=TARGET, discipline="fido")
    for run in (first, second):
        wait_for(lambda run=run: run_of(run.pk).is_finished, 120, f"run {run.pk}")
    one, two = run_of(first.pk), run_of(second.pk)
    assert (one.state, two.state) == ("succeeded", "succeeded")
    assert one.ranking_list_id == two.ranking_list_id
    assert RankingList.objects.filter(month=TARGET.first_day).count() == 1


def test_an_exception_half_way_leaves_the_previous_list_live(
    history, live_worker, monkeypatch
) -> None:
    previous = current_list(discipline="fido")
    assert previous is not None and previous.list_month == TARGET.prev()

    def broken(**_kwargs):
        raise RuntimeError("the disk is full (simulated)")

    monkeypatch.setattr(writer, "write_entries", broken)
    run = month_close_enqueue(month=TARGET, discipline="fido")
    wait_for(lambda: run_of(run.pk).is_finished, 120, "the failing run")
    failed = run_of(run.pk)
    assert failed.state == CloseRun.State.FAILED
    assert failed.error == "RuntimeError: the disk is full (simulated)"
    assert failed.stage == "write"
    assert current_id() == previous.id
    assert not RankingList.objects.filter(month=TARGET.first_day, status="published").exists()
    assert not RankingEntry.objects.filter(ranking_list__month=TARGET.first_day).exists()


def test_two_closes_at_once_publish_one_list(history) -> None:
    barrier = threading.Barrier(2)
    results: list[int] = []
    errors: list[BaseException] = []

    def close_at_once() -> None:
        try:
            barrier.wait()
            results.append(close(TARGET).pk)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=close_at_once) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert len(results) == 2 and results[0] == results[1]
    assert RankingList.objects.filter(month=TARGET.first_day).count() == 1
    assert entries(RankingList.objects.get(pk=results[0])) == undisturbed(TARGET)
    assert sorted(
        CloseRun.objects.filter(month=TARGET.first_day).values_list("state", flat=True)
    ) == [
        "succeeded",
        "succeeded",
    ]


# --- a worker killed mid-job ------------------------------------------------------------------


def _database_url() -> str:
    s = connection.settings_dict
    user = quote(s["USER"] or "", safe="")
    password = f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else ""
    host = s["HOST"] or "127.0.0.1"
    port = f":{s['PORT']}" if s["PORT"] else ""
    return f"postgres://{user}{password}@{host}{port}/{s['NAME']}"


@pytest.fixture
def worker_process(tmp_path) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``celery -A APP worker`` subprocesses on the test database (``APP`` the
    project's app, or :mod:`tests.rankings.close_pause`: the same with a pause before each
    publication); stop them after."""
    started: list[subprocess.Popen[bytes]] = []

    def start(
        name: str, app: str = "fido", env: dict[str, str] | None = None, beat: bool = False
    ) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "CELERY_VISIBILITY_TIMEOUT": "3",
            # Look for unacknowledged tasks every second (kombu's default: about 100 s).
            "CELERY_UNACKED_RESTORE_INTERVAL": "1",
            "CELERY_UNACKED_RESTORE_THROTTLE": "1",
            "DJANGO_SETTINGS_MODULE": "fido.settings.base",
            **(env or {}),
        }
        log = (tmp_path / f"{name}.log").open("wb")
        role = (
            ["beat", "--schedule", str(tmp_path / "beat-schedule")]
            if beat
            else [
                "worker",
                "--pool",
                "solo",
                "--without-mingle",
                "--without-gossip",
                "--hostname",
                f"{name}-{uuid.uuid4().hex[:8]}@%h",
            ]
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", app, *role, "--loglevel", "INFO"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def test_a_worker_killed_mid_job_is_redelivered_and_publishes_once(
    history, worker_process, tmp_path
) -> None:
    from fido.celery import app

    app.control.purge()
    expected = undisturbed(TARGET)
    doomed = worker_process("doomed", app="tests.rankings.close_pause")
    run = month_close_enqueue(month=TARGET, discipline="fido")

    # The job wrote its entries and sleeps before publishing: kill the worker there.
    wait_for(lambda: "write" in run_of(run.pk).timings, 120, "the job to finish writing")
    attempt = RankingList.objects.get(month=TARGET.first_day)
    assert attempt.status == RankingList.Status.COMPUTING
    assert RankingEntry.objects.filter(ranking_list=attempt).count() == len(expected)
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(30)
    assert run_of(run.pk).state == CloseRun.State.RUNNING  # nobody told the record
    assert current_id() == RankingList.objects.get(month=TARGET.prev().first_day).pk

    # Another worker: Redis hands it the unacknowledged task after the visibility timeout.
    worker_process("rescuer")
    wait_for(
        lambda: run_of(run.pk).state == CloseRun.State.SUCCEEDED,
        120,
        "the redelivered task (log: " + str(tmp_path / "rescuer.log") + ")",
    )
    finished = run_of(run.pk)
    assert finished.attempts == 2
    lists = RankingList.objects.filter(month=TARGET.first_day).order_by("version")
    assert [(x.version, x.status) for x in lists] == [(1, "failed"), (2, "published")]
    published = lists[1]
    assert finished.ranking_list_id == published.pk
    assert not RankingEntry.objects.filter(ranking_list=attempt).exists()
    assert entries(published) == expected
    assert current_id() == published.pk
    assert CurrentList.objects.get(discipline="fido").ranking_list_id == published.pk
    assert np.unique([e[0] for e in expected]).size == len(expected)


# Issue 16 item 2: the production visibility timeout (no shortcut), a heartbeat and beat.
HEARTBEAT_ENV = {
    "CELERY_VISIBILITY_TIMEOUT": "1980",
    "FIDO_CLOSE_HEARTBEAT": "1",
    "FIDO_CLOSE_STALE_AFTER": "6",
    "FIDO_CLOSE_RECOVER_EVERY": "2",
}


def _forget_unacknowledged() -> None:
    """The killed worker's message stays unacknowledged in Redis for the production
    visibility timeout; a later test's worker would restore it (for a run its flushed
    database no longer has). Drop it: kombu's Redis transport keeps it in these keys."""
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).delete("unacked", "unacked_index")


def test_a_whole_worker_killed_mid_close_is_re_dispatched_by_its_heartbeat(
    history, worker_process, tmp_path, request
) -> None:
    from fido.celery import app

    app.control.purge()
    request.addfinalizer(_forget_unacknowledged)
    expected = undisturbed(TARGET)
    worker_process("beat", env=HEARTBEAT_ENV, beat=True)
    doomed = worker_process("doomed", app="tests.rankings.close_pause", env=HEARTBEAT_ENV)
    run = month_close_enqueue(month=TARGET, discipline="fido")
    assert run_of(run.pk).dispatched_at is not None
    wait_for(lambda: "write" in run_of(run.pk).timings, 120, "the job to finish writing")

    # Alive (paused before publishing) it keeps beating: beat leaves it alone.
    time.sleep(9)
    alive = run_of(run.pk)
    assert alive.state == CloseRun.State.RUNNING and alive.task_id == run.task_id
    assert alive.heartbeat_at is not None

    os.kill(doomed.pid, signal.SIGKILL)
    doomed.wait(30)
    killed_at = time.monotonic()
    worker_process("restarted", env=HEARTBEAT_ENV)
    wait_for(
        lambda: run_of(run.pk).state == CloseRun.State.SUCCEEDED,
        120,
        "the re-dispatched close (logs in " + str(tmp_path) + ")",
    )
    took = time.monotonic() - killed_at
    finished = run_of(run.pk)
    assert took < 120, took
    assert finished.task_id != run.task_id and finished.attempts == 2
    lists = RankingList.objects.filter(month=TARGET.first_day).order_by("version")
    assert [(x.version, x.status) for x in lists] == [(1, "failed"), (2, "published")]
    assert entries(lists[1]) == expected
    assert current_id() == lists[1].pk
    print(f"published {took:.1f} s after the SIGKILL")


# Issue 16 item 2, its last sentence: a worker told to stop (SIGTERM: a deploy, systemd,
# docker stop) mid-close does a warm shutdown: it takes no new task, finishes the close it
# is running, acknowledges it and exits; the list is published once, by that run.
def test_a_worker_stopped_with_sigterm_mid_close_finishes_it_first(
    history, worker_process, tmp_path
) -> None:
    from fido.celery import app

    app.control.purge()
    expected = undisturbed(TARGET)
    pause = 8
    stopping = worker_process(
        "stopping", app="tests.rankings.close_pause", env={"FIDO_TEST_CLOSE_PAUSE": str(pause)}
    )
    run = month_close_enqueue(month=TARGET, discipline="fido")
    wait_for(lambda: "write" in run_of(run.pk).timings, 120, "the job to finish writing")
    assert run_of(run.pk).state == CloseRun.State.RUNNING  # paused before publishing

    stopping.send_signal(signal.SIGTERM)
    time.sleep(1)
    assert stopping.poll() is None, "the worker left its close unfinished"
    assert stopping.wait(120) == 0  # a clean exit, after the close
    finished = run_of(run.pk)
    assert finished.state == CloseRun.State.SUCCEEDED, (tmp_path / "stopping.log").read_text()
    assert finished.attempts == 1 and finished.task_id == run.task_id
    lists = RankingList.objects.filter(month=TARGET.first_day)
    assert [(x.version, x.status) for x in lists] == [(1, "published")]
    assert entries(lists[0]) == expected
    assert current_id() == lists[0].pk
    log = (tmp_path / "stopping.log").read_text()
    assert "Warm shutdown" in log or "warm shutdown" in log.lower(), log[-2000:]

    # Nothing was handed back to be run again: a new worker finds no task and no second list.
    worker_process("after")
    time.sleep(5)
    assert RankingList.objects.filter(month=TARGET.first_day).count() == 1
    assert run_of(run.pk).attempts == 1
