"""Hands jobs to the Celery workers by task name, once the current transaction commits.

The services enqueue here and never import :mod:`rankings.tasks`: the tasks call the
services, so the import runs one way. Task names are defined here; the tasks register
under them. Guaranteed: nothing is sent before the transaction that recorded the job
commits (a job never runs ahead of its own record); when the broker refuses the message,
``on_failure`` hears of it before the error propagates to the caller of the commit.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from matches.months import Month

MONTH_CLOSE = "rankings.month_close"
DUE_MONTHS_CLOSE = "rankings.due_months_close"


def month_close_send(
    *,
    month: Month,
    discipline: str,
    run_id: int,
    task_id: str,
    on_failure: Callable[[BaseException], None],
) -> None:
    """After commit, send the close of ``month`` of ``discipline`` (recorded as run
    ``run_id``) to a worker as task ``task_id``."""

    # Celery (and kombu, redis) load here, on the first send: a process that never
    # enqueues, such as ``close_month --inline``, starts without them.
    from kombu.exceptions import OperationalError as BrokerError

    from fido.celery import app

    def send() -> None:
        try:
            app.send_task(MONTH_CLOSE, args=(str(month), discipline, run_id), task_id=task_id)
        except (BrokerError, OSError) as exc:
            on_failure(exc)
            raise

    transaction.on_commit(send)
