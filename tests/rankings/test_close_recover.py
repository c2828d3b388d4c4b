"""The close run's outbox and heartbeat (rankings.services.close_recover, issue 16 items 2
and 3): which runs are sent again, once, under a new task id; what a superseded delivery
does; the heartbeat thread. The real worker killed mid-close is in test_close_worker.py."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from typing import Any

import pytest

from fido.celery import app as celery_app
from matches import audit, clock
from rankings import tasks
from rankings.models import CloseRun
from rankings.services.close_recover import close_runs_recover, recoverable_runs
from rankings.services.close_run import Heartbeat

NOW = dt.datetime(2026, 4, 2, 12, 0, tzinfo=dt.UTC)


def make_run(**fields: Any) -> CloseRun:
    values: dict[str, Any] = {
        "discipline": "fido",
        "month": dt.date(2026, 3, 1),
        "created_at": NOW - dt.timedelta(minutes=10),
        "task_id": str(uuid.uuid4()),
        "dispatched_at": NOW - dt.timedelta(minutes=10),
        **fields,
    }
    with audit.recording():  # test data, as the services would write it
        return CloseRun.objects.create(**values)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: calls.append((name, kw)))
    return calls


@pytest.mark.django_db
def test_which_runs_are_recoverable(settings: Any) -> None:
    settings.FIDO_CLOSE_STALE_AFTER = 60
    lost = make_run(state="running", heartbeat_at=NOW - dt.timedelta(seconds=61))
    make_run(state="running", heartbeat_at=NOW - dt.timedelta(seconds=5))  # alive
    outbox = make_run(state="queued", dispatched_at=None)
    make_run(state="queued", dispatched_at=None, created_at=NOW - dt.timedelta(seconds=2))
    make_run(state="queued")  # dispatched, waiting for a worker
    make_run(state="succeeded", heartbeat_at=NOW - dt.timedelta(hours=1))
    make_run(state="failed", dispatched_at=None)
    assert [r.pk for r in recoverable_runs(now=NOW)] == [lost.pk, outbox.pk]


@pytest.mark.django_db(transaction=True)  # beat's recovery: outside a transaction
def test_a_lost_run_is_sent_again_once_under_a_new_task_id(sent: list[Any]) -> None:
    lost = make_run(state="running", heartbeat_at=NOW - dt.timedelta(minutes=5), attempts=1)
    handed = close_runs_recover(now=NOW)
    assert [r.pk for r in handed] == [lost.pk]
    run = CloseRun.objects.get(pk=lost.pk)
    assert run.state == "queued" and run.task_id != lost.task_id
    assert run.dispatched_at is not None and "no heartbeat" in run.error
    assert [(name, kw["args"], kw["task_id"]) for name, kw in sent] == [
        ("rankings.month_close", ("2026-03", "fido", run.pk), run.task_id)
    ]
    assert close_runs_recover(now=NOW) == []  # taken: not sent twice
    assert len(sent) == 1


@pytest.mark.django_db
def test_a_run_claimed_by_another_recovery_is_left_alone(sent: list[Any]) -> None:
    lost = make_run(state="running", heartbeat_at=NOW - dt.timedelta(minutes=5))
    stale_copy = CloseRun.objects.get(pk=lost.pk)
    CloseRun.objects.filter(pk=lost.pk).update(task_id="taken-by-the-other")
    from rankings.services import close_recover

    assert close_recover._claim(stale_copy, NOW) is False


@pytest.mark.django_db(transaction=True)
def test_a_broker_still_down_leaves_the_run_in_the_outbox(monkeypatch: Any) -> None:
    def down(name: str, **kwargs: Any) -> None:
        raise RuntimeError("Retry limit exceeded while trying to reconnect to the Redis server.")

    monkeypatch.setattr(celery_app, "send_task", down)
    lost = make_run(state="running", heartbeat_at=NOW - dt.timedelta(minutes=5))
    assert close_runs_recover(now=NOW) == []
    run = CloseRun.objects.get(pk=lost.pk)
    assert run.state == "queued" and run.dispatched_at is None
    assert "Retry limit exceeded" in run.error
    assert [r.pk for r in recoverable_runs(now=NOW + dt.timedelta(seconds=11))] == [run.pk]


@pytest.mark.django_db
def test_a_superseded_or_finished_delivery_does_nothing() -> None:
    """The dead worker's message comes back: the run is done, or another task is on it."""
    now = clock.now()
    busy = make_run(state="running", task_id="the-new-task", heartbeat_at=now)
    old = tasks.month_close.apply(args=("2026-03", "fido", busy.pk), task_id="the-dead-one")
    assert old.get() == {"state": "superseded", "run": busy.pk}
    done = make_run(state="succeeded", task_id="t")
    again = tasks.month_close.apply(args=("2026-03", "fido", done.pk), task_id="t")
    assert again.get() == {"state": "superseded", "run": done.pk}
    busy.refresh_from_db()
    assert (busy.state, busy.task_id, busy.attempts) == ("running", "the-new-task", 0)
    assert CloseRun.objects.get(pk=done.pk).attempts == 0


@pytest.mark.django_db
def test_another_task_on_a_queued_or_silent_run_is_not_superseded() -> None:
    from rankings.services.close_recover import close_run_superseded

    queued = make_run(state="queued", task_id="a")
    assert not close_run_superseded(queued, "b", now=NOW)
    silent = make_run(state="running", task_id="a", heartbeat_at=NOW - dt.timedelta(hours=1))
    assert not close_run_superseded(silent, "b", now=NOW)
    alive = make_run(state="running", task_id="a", heartbeat_at=NOW - dt.timedelta(seconds=5))
    assert close_run_superseded(alive, "b", now=NOW)
    assert not close_run_superseded(alive, "a", now=NOW)  # its own task, redelivered


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)  # the thread's own connection must see the row
def test_the_heartbeat_thread_stamps_the_run_until_stopped() -> None:
    run = make_run(state="running", heartbeat_at=None)
    beat = Heartbeat(run.pk, interval=0.2)
    beat.start()
    try:
        deadline = time.monotonic() + 10
        while CloseRun.objects.get(pk=run.pk).heartbeat_at is None:
            assert time.monotonic() < deadline, "no heartbeat within 10 s"
            time.sleep(0.05)
    finally:
        beat.stop()
    first = CloseRun.objects.get(pk=run.pk).heartbeat_at
    assert first is not None and abs((first - clock.now()).total_seconds()) < 10
    time.sleep(0.6)
    assert CloseRun.objects.get(pk=run.pk).heartbeat_at == first  # stopped
