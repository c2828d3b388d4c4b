"""A Celery worker whose closes stop before publishing, for the worker-kill tests.

``celery -A tests.rankings.close_pause worker`` runs the project's real Celery app
(:mod:`fido.celery`, every task of the project) with one difference, made when the worker
starts: the close's publication (:func:`rankings.services.close.list_publish`) first sleeps
:data:`PAUSE_SECONDS`. So a close run by this worker has written its entries (committed, in
a list still ``computing``) and waits there, where the test kills the worker. Test code
only: the product has no hook for it.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from celery.signals import worker_init

from fido.celery import app

__all__ = ["app"]

PAUSE_SECONDS = 120.0
logger = logging.getLogger(__name__)


@worker_init.connect
def _pause_before_publishing(**_kwargs: Any) -> None:
    import django

    django.setup()
    from rankings.services import close

    publish = close.list_publish

    def paused(list_id: int) -> Any:
        logger.warning("close_pause: %s s before publishing list %s", PAUSE_SECONDS, list_id)
        time.sleep(PAUSE_SECONDS)
        return publish(list_id)

    close.list_publish = paused  # type: ignore[assignment]
