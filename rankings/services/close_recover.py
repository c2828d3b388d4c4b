"""Recovery of close runs that will not finish by themselves: the outbox and the heartbeat.

:func:`close_runs_recover` (beat's ``rankings.close_runs_recover``, every
``FIDO_CLOSE_RECOVER_EVERY`` seconds, and the dashboard's "Close now") sends again

- every run still in the outbox: queued, never taken by the broker (``dispatched_at`` null)
  and older than :data:`SEND_GRACE` (its own send may still be under way);
- every run whose worker is lost: running, its heartbeat (``heartbeat_at``, else
  ``started_at``) older than ``FIDO_CLOSE_STALE_AFTER`` seconds.

Each run is claimed with a conditional update (two recoveries at once re-send it once) and
gets a new task id; the dead worker's message, redelivered by the broker after its
visibility timeout, then finds its run taken over (:func:`close_run_superseded`) and does
nothing. A re-sent close is safe anyway: the close holds the discipline's advisory lock for
its whole job and a close that finds the list published returns it unchanged. A send that
fails leaves the run in the outbox for the next tick. Returns the runs handed over.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce

from matches import clock

from .. import dispatch
from ..models import CloseRun
from .close import close_run_send

logger = logging.getLogger(__name__)

SEND_GRACE = dt.timedelta(seconds=10)


def stale_after() -> dt.timedelta:
    return dt.timedelta(seconds=float(getattr(settings, "FIDO_CLOSE_STALE_AFTER", 60)))


def recoverable_runs(*, now: dt.datetime, discipline: str | None = None) -> list[CloseRun]:
    """The runs in the outbox and the running runs whose heartbeat stopped, oldest first."""
    undispatched = Q(
        state=CloseRun.State.QUEUED, dispatched_at__isnull=True, created_at__lt=now - SEND_GRACE
    )
    lost = Q(state=CloseRun.State.RUNNING, beat__lt=now - stale_after())
    runs = CloseRun.objects.annotate(beat=Coalesce("heartbeat_at", "started_at", "created_at"))
    runs = runs.filter(undispatched | lost)
    if discipline is not None:
        runs = runs.filter(discipline=discipline)
    return list(runs.order_by("created_at", "id"))


def close_run_superseded(
    run: CloseRun, task_id: str | None, *, now: dt.datetime | None = None
) -> bool:
    """Whether a delivered task should leave run ``run`` alone: the run is finished, or
    another task (a re-dispatch) is working on it and its heartbeat is fresh. (A dead
    worker's message, redelivered after the visibility timeout, is such a task.)"""
    if run.state == CloseRun.State.SUCCEEDED:
        return True
    if run.state != CloseRun.State.RUNNING or not task_id or run.task_id == task_id:
        return False
    beat = run.heartbeat_at or run.started_at or run.created_at
    return (now or clock.now()) - beat < stale_after()


def _claim(run: CloseRun, now: dt.datetime) -> bool:
    """Take ``run`` for a new send: True unless another recovery took it first."""
    task_id = str(uuid.uuid4())
    lost = run.state == CloseRun.State.RUNNING
    claimed = CloseRun.objects.filter(
        pk=run.pk,
        state=run.state,
        task_id=run.task_id,
        heartbeat_at=run.heartbeat_at,
        dispatched_at=run.dispatched_at,
    ).update(
        state=CloseRun.State.QUEUED,
        stage=CloseRun.Stage.QUEUED,
        task_id=task_id,
        dispatched_at=None,
        heartbeat_at=now,
        error=(
            f"re-dispatched at {now:%Y-%m-%d %H:%M:%S %Z}: its worker stopped "
            "answering (no heartbeat)"
            if lost
            else run.error
        ),
    )
    run.task_id = task_id
    return claimed == 1


def close_runs_recover(
    *, now: dt.datetime | None = None, discipline: str | None = None
) -> list[CloseRun]:
    """Send again the undispatched runs and those whose worker was lost (module docstring)."""
    now = now or clock.now()
    handed: list[CloseRun] = []
    for run in recoverable_runs(now=now, discipline=discipline):
        if not _claim(run, now):
            continue
        try:
            close_run_send(run)
        except dispatch.DispatchFailed as exc:
            logger.warning("close run %s still not dispatched: %s", run.pk, exc)
            continue
        logger.warning("close run %s (%s %s) sent again", run.pk, run.discipline, run.month)
        run.refresh_from_db()
        handed.append(run)
    return handed
