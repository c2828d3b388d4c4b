"""The run record of a close: who asked, its state and stage, a percentage, each stage's
seconds and the error (:class:`~rankings.models.CloseRun`).

- :func:`close_run_create` records a request to close a month (state ``queued``);
  :func:`close_run_claim` gives a delivered task its record;
- :class:`RunTracker` writes the record as the job advances, in autocommit, so that
  readers (the dashboard's progress bar, ``close_month`` waiting for its worker) see each
  step at once;
- :func:`close_run_fail` marks a run failed that no job will ever pick up;
- :class:`Heartbeat` stamps ``heartbeat_at`` every ``FIDO_CLOSE_HEARTBEAT`` seconds while the
  job runs (a thread with its own connection, on PostgreSQL), so that a run whose worker
  died is seen as such within ``FIDO_CLOSE_STALE_AFTER`` seconds
  (:mod:`rankings.services.close_recover`).

None of these raises a database error into the job: record keeping never hides the job's
own error (a failed update is logged).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection

from matches import audit, clock
from matches.disciplines import CODES
from matches.months import Month

from ..models import CloseRun, RankingList

logger = logging.getLogger(__name__)

Progress = Callable[[str, int], None]

NOT_DISPATCHED = "not dispatched yet: "

STAGES = ("freeze", "load", "compute", "write", "publish")
# Where each stage starts and ends on the run's progress bar (percent).
_STAGE_SPAN = {
    "freeze": (0, 3),
    "load": (3, 40),
    "compute": (40, 70),
    "write": (70, 95),
    "publish": (95, 100),
}


class CloseRefused(Exception):
    """The close is not allowed (yet): the message says why. Nothing was changed."""


def as_month(month: Month | str) -> Month:
    return month if isinstance(month, Month) else Month.parse(month)


def check_discipline(discipline: str) -> None:
    """Raise :class:`CloseRefused` for an unknown discipline."""
    if discipline not in CODES:
        raise CloseRefused(f"unknown discipline {discipline!r} (one of {', '.join(CODES)})")


@audit.recording()
def close_run_create(
    *, month: Month | str, discipline: str, by: Any = None, erratum: Any = None
) -> CloseRun:
    """A new run record (queued) for the close of ``month`` of ``discipline`` (or for the
    :class:`~rankings.models.Erratum` ``erratum`` of it)."""
    month = as_month(month)
    check_discipline(discipline)
    return CloseRun.objects.create(
        month=month.first_day,
        discipline=discipline,
        requested_by=by if getattr(by, "pk", None) else None,
        created_at=clock.now(),
        task_id=str(uuid.uuid4()),
        erratum=erratum,
    )


def close_run_claim(
    *, run_id: int, month: Month | str, discipline: str, task_id: str | None
) -> CloseRun:
    """The run record a delivered task works on: run ``run_id``, or a new one if it was
    deleted (a trace of every run is kept); its task id becomes the delivering task's."""
    run = CloseRun.objects.filter(pk=run_id).first()
    if run is None:
        run = close_run_create(month=month, discipline=discipline)
    if task_id and run.task_id != task_id:
        CloseRun.objects.filter(pk=run.pk).update(task_id=task_id)
        run.task_id = task_id
    return run


def close_run_fail(*, run_id: int, error: str) -> None:
    """Mark a run failed (its job will never run); must not raise: it is called while
    another error is being handled."""
    _update(run_id, state=CloseRun.State.FAILED, error=error[:10_000], finished_at=clock.now())


def close_run_dispatched(*, run_id: int) -> None:
    """The broker took the run's task: out of the outbox (the outbox's note goes too)."""
    _update(run_id, dispatched_at=clock.now())
    try:
        CloseRun.objects.filter(pk=run_id, error__startswith=NOT_DISPATCHED).update(error="")
    except DatabaseError:
        logger.warning("could not update close run %s", run_id, exc_info=True)


def close_run_undispatched(*, run_id: int, error: str) -> None:
    """The broker did not take the run's task: it stays queued, in the outbox (no
    ``dispatched_at``), for beat to re-send; must not raise."""
    _update(
        run_id,
        state=CloseRun.State.QUEUED,
        stage=CloseRun.Stage.QUEUED,
        dispatched_at=None,
        error=f"{NOT_DISPATCHED}{error}"[:10_000],
    )


def _update(run_id: int, **fields: Any) -> None:
    try:
        CloseRun.objects.filter(pk=run_id).update(**fields)
    except DatabaseError:  # never let the record keeping hide the job's own error
        logger.warning("could not update close run %s", run_id, exc_info=True)


def heartbeat_seconds() -> float:
    return float(getattr(settings, "FIDO_CLOSE_HEARTBEAT", 10))


class Heartbeat:
    """A daemon thread stamping run ``run_id``'s ``heartbeat_at`` every ``interval`` seconds
    until :meth:`stop`. Its own database connection (closed when it stops), so that a long
    statement of the job does not delay the beat; only on PostgreSQL (SQLite has one writer:
    there the stage updates are the heartbeat)."""

    def __init__(self, run_id: int, interval: float | None = None) -> None:
        self.run_id = run_id
        self.interval = heartbeat_seconds() if interval is None else interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.interval <= 0 or connection.vendor != "postgresql":
            return
        self._thread = threading.Thread(
            target=self._run, name=f"close-run-{self.run_id}-heartbeat", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                _update(self.run_id, heartbeat_at=clock.now())
        finally:
            connection.close()  # this thread's own connection

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class RunTracker:
    """Writes a run's record as its job advances, stage by stage, with a heartbeat from
    :meth:`start` to :meth:`succeed` or :meth:`fail`."""

    def __init__(self, run: CloseRun, progress: Progress | None) -> None:
        self.run = run
        self.progress = progress
        self.current: str | None = None
        self.started = 0.0
        self.timings: dict[str, float] = {}
        self.heartbeat = Heartbeat(run.pk)

    def _save(self, **fields: Any) -> None:
        fields.setdefault("heartbeat_at", clock.now())
        for name, value in fields.items():
            setattr(self.run, name, value)
        _update(self.run.pk, **fields)

    def start(self) -> None:
        self.heartbeat.start()
        self._save(
            state=CloseRun.State.RUNNING,
            stage=CloseRun.Stage.WAITING,
            percent=0,
            error="",
            timings={},
            started_at=clock.now(),
            finished_at=None,
            attempts=self.run.attempts + 1,
        )

    def _finish_stage(self) -> None:
        if self.current is not None:
            self.timings[self.current] = round(time.perf_counter() - self.started, 3)
            self.current = None

    def stage_done(self) -> None:
        """Record the current stage's time now (before a slow next step)."""
        self._finish_stage()
        self._save(timings=dict(self.timings))

    def stage(self, name: str) -> None:
        self._finish_stage()
        self.current = name
        self.started = time.perf_counter()
        percent = _STAGE_SPAN[name][0]
        self._save(stage=name, percent=percent, timings=dict(self.timings))
        if self.progress is not None:
            self.progress(name, percent)

    def succeed(self, ranking_list: RankingList) -> None:
        self.heartbeat.stop()
        self._finish_stage()
        self._save(
            state=CloseRun.State.SUCCEEDED,
            stage=CloseRun.Stage.DONE,
            percent=100,
            timings=dict(self.timings),
            ranking_list=ranking_list,
            finished_at=clock.now(),
        )
        if self.progress is not None:
            self.progress("done", 100)

    def fail(self, exc: BaseException) -> None:
        self.heartbeat.stop()
        self._finish_stage()
        message = str(exc) if isinstance(exc, CloseRefused) else f"{type(exc).__name__}: {exc}"
        self._save(
            state=CloseRun.State.FAILED,
            timings=dict(self.timings),
            error=message[:10_000],
            finished_at=clock.now(),
        )
