"""gunicorn's threaded worker, with new connections left to the workers that hold fewest.

Contract: ``SpreadingThreadWorker`` is gunicorn's ``gthread`` worker (deploy/gunicorn.conf.py
names it as ``worker_class``) but for one thing, when a new connection arrives. A worker
that holds no connection accepts it at once, as before. A worker that holds ``n``
connections (being served or kept alive) stops listening for ``n`` times
``GUNICORN_ACCEPT_DEFER`` seconds (0.005 by default, 0 turns this off; at most
``MAX_DEFER``), or until it holds none, whichever comes first; then it accepts the next
connection that is still waiting, without deferring again. So an idle worker takes a
new connection before a busy one, the least busy of the busy ones takes it when all are
busy, and no connection waits longer than that deferral for a worker that could take it.

Why: every worker waits on the one listening socket, and whichever wakes first accepts.
Keep-alive clients keep the connection they opened, so a few clients whose connections
landed on one process shared its GIL while the other processes idled: two clients
sending batches of ten both sat on one worker in ``bench/submit.py`` (its CPU shares 1.0,
0, 0, 0) and got 1,915 matches a second where the same load spread over two workers gets
more (docs/performance.md). The worker never sleeps: the deferral is the poller's
timeout, so the connections it holds are served meanwhile.

Relies on gunicorn 27's ``ThreadWorker`` (``nr_conns``, ``set_accept_enabled``,
``wait_for_and_dispatch_events``); ``tests/fido/test_gunicorn_worker.py`` runs it in a real
gunicorn and fails if an upgrade changes them.
"""

from __future__ import annotations

import os
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

DEFAULT_DEFER = 0.005
MAX_DEFER = 0.05


def accept_defer() -> float:
    """Seconds a worker waits per connection it holds before taking a new one."""
    return float(os.environ.get("GUNICORN_ACCEPT_DEFER", DEFAULT_DEFER))


class SpreadingThreadWorker(ThreadWorker):
    """``gthread``, with new connections left to idle workers first (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.defer_per_connection = accept_defer()
        self.resume_at: float | None = None  # while deferring: when to listen again
        self.resumed = False  # the next accepted connection is taken without deferring

    def accept(self, listener: Any) -> None:
        if self.nr_conns and not self.resumed and self.defer_per_connection > 0:
            delay = min(self.defer_per_connection * self.nr_conns, MAX_DEFER)
            self.resume_at = time.monotonic() + delay
            self.set_accept_enabled(False)
            return
        self.resumed = False
        super().accept(listener)

    def set_accept_enabled(self, enabled: bool) -> None:
        # The run loop turns listening back on whenever it may accept; not while deferring.
        if enabled and self.resume_at is not None:
            return
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        self._resume_if_due()
        # A resumed worker takes a connection waiting now, not one that arrives later.
        granted = self.resumed
        if self.resume_at is not None:
            timeout = min(timeout, max(self.resume_at - time.monotonic(), 0.0))
        super().wait_for_and_dispatch_events(timeout)
        if granted:
            self.resumed = False
        self._resume_if_due()

    def _resume_if_due(self) -> None:
        if self.resume_at is None:
            return
        if self.nr_conns and time.monotonic() < self.resume_at:
            return
        self.resume_at = None
        self.resumed = True
        if self.alive and self.nr_conns < self.worker_connections:
            self.set_accept_enabled(True)
