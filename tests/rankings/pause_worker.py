"""The pause of the worker-kill tests' Celery workers (``close_pause``, ``shard_pause``).

:func:`pause_when_the_worker_starts` makes one function of the product, looked up by module
and name when the worker starts, first log a line and sleep :data:`PAUSE_SECONDS`, so the
test can kill the worker there. Test code only: the product has no hook for it.
"""

from __future__ import annotations

import importlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from celery.signals import worker_init

# ``FIDO_TEST_CLOSE_PAUSE`` shortens it (the SIGTERM test lets the worker finish the close).
PAUSE_SECONDS = float(os.environ.get("FIDO_TEST_CLOSE_PAUSE", "120"))
logger = logging.getLogger(__name__)


def pause_when_the_worker_starts(module: str, name: str, says: Callable[..., str]) -> None:
    """Once the worker starts, ``module.name(*args, **kwargs)`` logs ``says(*args,
    **kwargs)`` (a warning, in the worker's log) and sleeps before it runs."""

    def pause(**_kwargs: Any) -> None:
        import django

        django.setup()
        owner = importlib.import_module(module)
        original = getattr(owner, name)

        def paused(*args: Any, **kwargs: Any) -> Any:
            logger.warning(says(*args, **kwargs))
            time.sleep(PAUSE_SECONDS)
            return original(*args, **kwargs)

        setattr(owner, name, paused)

    worker_init.connect(pause, weak=False)
