"""Hands jobs to the Celery workers by task name, once the current transaction commits.

The services enqueue here and never import :mod:`rankings.tasks`: the tasks call the
services, so the import runs one way. Task names are defined here; the tasks register
under them. Guaranteed: nothing is sent before the transaction that recorded the job
commits (a job never runs ahead of its own record); when the broker takes the message,
``on_sent`` hears of it (the run's outbox mark); when it cannot, whatever the library
raised (kombu's ``OperationalError``, ``OSError``, the Redis result backend's
``RuntimeError``...), ``on_failure`` hears of it and :class:`DispatchFailed` propagates to
the caller of the commit, within about :data:`SEND_RETRY_POLICY`'s time plus the connect
timeouts (``fido/settings/base.py``): a couple of seconds, not the library's default 20.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction

from matches.months import Month

MONTH_CLOSE = "rankings.month_close"
DUE_MONTHS_CLOSE = "rankings.due_months_close"
CLOSE_SHARD = "rankings.close_shard"
PROJECTION_REFRESH = "rankings.projection_refresh"
PROJECTIONS_REFRESH = "rankings.projections_refresh"
CLOSE_RUNS_RECOVER = "rankings.close_runs_recover"
MEMBER_CHANGES_PRUNE = "rankings.member_changes_prune"
PLAYER_PACKS_WRITE = "rankings.player_packs_write"

logger = logging.getLogger(__name__)

# One quick retry, then give up: the run stays in the outbox and beat re-sends it.
SEND_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}


class DispatchFailed(Exception):
    """The broker did not take the job (the cause is chained); the run is still recorded."""


def month_close_send(
    *,
    month: Month,
    discipline: str,
    run_id: int,
    task_id: str,
    on_failure: Callable[[BaseException], None],
    on_sent: Callable[[], None] = lambda: None,
) -> None:
    """After commit, send the close of ``month`` of ``discipline`` (recorded as run
    ``run_id``) to a worker as task ``task_id``."""

    # Celery (and kombu, redis) load here, on the first send: a process that never
    # enqueues, such as ``close_month --inline``, starts without them.
    from fido.celery import app

    def send() -> None:
        try:
            app.send_task(
                MONTH_CLOSE,
                args=(str(month), discipline, run_id),
                task_id=task_id,
                retry_policy=SEND_RETRY_POLICY,
                # The run record is the close's outcome: no result to store, and no
                # result-backend subscription in the sending process (with Redis down, the
                # backend's reconnection loop alone took seconds, then a RuntimeError).
                ignore_result=True,
            )
        except Exception as exc:  # any library's way of saying "not sent"
            on_failure(exc)
            raise DispatchFailed(str(exc) or type(exc).__name__) from exc
        on_sent()

    transaction.on_commit(send)


def close_shards_send(*, month: Month, discipline: str, shards: int) -> Any:
    """Send the ``shards`` shards of the close of ``month`` as one Celery group (a task per
    shard, on whichever workers are free); the handle for :func:`close_shards_wait`."""
    from celery import group

    from fido.celery import app

    job = group(
        app.signature(CLOSE_SHARD, args=(str(month), discipline, shard, shards))
        for shard in range(shards)
    )
    return job.apply_async()


def close_shards_wait(pending: Any, *, timeout: float) -> list[dict[str, Any]]:
    """Wait for every shard: their wire-format totals in shard order. A shard whose worker
    dies is redelivered (the task acknowledges late); ``celery.exceptions.TimeoutError``
    after ``timeout`` seconds. Not for use inside a task (Celery refuses to wait on
    subtasks there)."""
    # join() polls each shard's result (get() would use the backend's native join,
    # which the embedded default's file backend does not support).
    return list(pending.join(timeout=timeout, propagate=True, interval=0.2))


def close_shards_forget(pending: Any) -> None:
    """Drop the shards' results from the backend; never raises (cleaning up must not hide
    the outcome; the file backend cannot forget results that were never written)."""
    with contextlib.suppress(Exception):
        pending.forget()


def projection_send(
    *, discipline: str, run_id: int, on_failure: Callable[[BaseException], None]
) -> None:
    """After commit, send the refresh of ``discipline``'s projected list (run ``run_id``)."""
    from fido.celery import app

    def send() -> None:
        try:
            app.send_task(
                PROJECTION_REFRESH,
                args=(discipline, run_id),
                retry_policy=SEND_RETRY_POLICY,
                ignore_result=True,  # the run record is the outcome
            )
        except Exception as exc:  # any library's way of saying "not sent"
            on_failure(exc)
            raise DispatchFailed(str(exc) or type(exc).__name__) from exc

    transaction.on_commit(send)


def player_packs_send(*, discipline: str) -> bool:
    """Send the packing of ``discipline``'s busiest players' points (after a close
    published its list): True sent, False not (logged; the nightly beat packs them, and
    until then their pages score their results, as they did before packs)."""
    from fido.celery import app

    try:
        app.send_task(
            PLAYER_PACKS_WRITE,
            args=(discipline,),
            retry_policy=SEND_RETRY_POLICY,
            ignore_result=True,
        )
    except Exception:  # any library's way of saying "not sent"
        logger.warning("could not send the player packs of %s", discipline, exc_info=True)
        return False
    return True
