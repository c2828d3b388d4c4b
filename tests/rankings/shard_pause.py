"""A Celery worker whose close shards stop half-way, for the worker-killed-mid-shard test.

``celery -A tests.rankings.shard_pause worker`` runs the project's real Celery app with one
difference, made when the worker starts: a shard's computation
(:func:`rankings.selectors.shard_totals.shard_totals`, as the task calls it) first logs
``shard_pause: sleeping`` and sleeps :data:`PAUSE_SECONDS`, so the test can kill the
worker while it holds an unacknowledged shard. Test code only: the product has no hook.
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
def _pause_each_shard(**_kwargs: Any) -> None:
    import django

    django.setup()
    from rankings import tasks

    compute = tasks.shard_totals

    def paused(**kwargs: Any) -> Any:
        logger.warning("shard_pause: sleeping %s s in shard %s", PAUSE_SECONDS, kwargs["shard"])
        time.sleep(PAUSE_SECONDS)
        return compute(**kwargs)

    tasks.shard_totals = paused
