"""A Celery worker whose close shards stop half-way, for the worker-killed-mid-shard test.

``celery -A tests.rankings.shard_pause worker`` runs the project's real Celery app with one
difference, made when the worker starts: a shard's computation
(:func:`rankings.selectors.shard_totals.shard_totals`, as the task calls it) first logs
``shard_pause: sleeping`` and sleeps (:mod:`tests.rankings.pause_worker`), so the test can
kill the worker while it holds an unacknowledged shard. Test code only: the product has no
hook.
"""

from __future__ import annotations

from fido.celery import app
from tests.rankings.pause_worker import PAUSE_SECONDS, pause_when_the_worker_starts

__all__ = ["app"]

pause_when_the_worker_starts(
    "rankings.tasks",
    "shard_totals",
    lambda **kwargs: f"shard_pause: sleeping {PAUSE_SECONDS} s in shard {kwargs['shard']}",
)
