"""A Celery worker whose closes stop before publishing, for the worker-kill tests.

``celery -A tests.rankings.close_pause worker`` runs the project's real Celery app
(:mod:`fido.celery`, every task of the project) with one difference, made when the worker
starts: the close's publication (:func:`rankings.services.close.list_publish`) first sleeps
(:mod:`tests.rankings.pause_worker`). So a close run by this worker has written its entries
(committed, in a list still ``computing``) and waits there, where the test kills the
worker. Test code only: the product has no hook for it.
"""

from __future__ import annotations

from fido.celery import app
from tests.rankings.pause_worker import PAUSE_SECONDS, pause_when_the_worker_starts

__all__ = ["app"]

pause_when_the_worker_starts(
    "rankings.services.close",
    "list_publish",
    lambda list_id, **_: f"close_pause: {PAUSE_SECONDS} s before publishing list {list_id}",
)
