"""gunicorn settings for production: ``gunicorn -c deploy/gunicorn.conf.py fido.wsgi``.

Two worker processes per CPU with two threads each (``WEB_CONCURRENCY`` and
``GUNICORN_THREADS`` override; at least two processes): 4 x 2 on the 2-core reference
machine. A page's request is CPU-bound in Python for most of its time, and two of them in
one process take turns on its GIL while the other process's core may be idle; with two
processes per CPU the kernel shares the cores instead, and each process keeps a second
thread for the time a request waits for PostgreSQL. Against one process per CPU with four
threads (the layout until 2026-11-29), alternating runs of ``bench/pages.py`` gave the
busiest players' page a lower p95 in each of six pairs on the two hosts of 2026-11-29 where
it was compared so (on the AMD EPYC of the late afternoon 55.1, 56.0 and 58.4 ms against
96.1, 68.3 and 85.6). The price is a little CPU per request: a one-match submission cost
3.6 to 3.9 ms of gunicorn CPU against 3.4 to 3.5 (``bench/submit.py``; the accepted rate
moved less than its runs' spread). Single runs on older code and other hosts had found the
opposite for the submissions (2026-11-21) and for the player page (the slow host), so this
is a setting to measure on the machine that serves (docs/performance-history.md,
"Gunicorn's layout, a third time").

Each worker switches threads every 0.5 ms (``sys.setswitchinterval``; Python's default is
5 ms, ``GUNICORN_SWITCH_INTERVAL`` overrides): a thread whose PostgreSQL answer has arrived
waits for the GIL at most that long instead of up to 5 ms behind a thread building a batch's
response, which kept the database idle between statements when two clients' requests shared
a worker (docs/performance.md).

The worker class is gunicorn's ``gthread`` with one change (``fido.gunicorn_worker``): a
worker that holds connections waits a few milliseconds per connection before accepting a
new one, so an idle worker takes it first and keep-alive clients spread over the processes
instead of sharing one process's GIL (``GUNICORN_ACCEPT_DEFER``, seconds per connection
held, 0.005 by default; 0 turns it off).
"""

import multiprocessing
import os
import sys
from typing import Any

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, 2 * multiprocessing.cpu_count())))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
worker_class = "fido.gunicorn_worker.SpreadingThreadWorker"
timeout = 30
accesslog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
switch_interval = float(os.environ.get("GUNICORN_SWITCH_INTERVAL", "0.0005"))


def post_fork(server: Any, worker: Any) -> None:
    """gunicorn's hook, in each worker process: the thread switch interval above."""
    del server, worker
    sys.setswitchinterval(switch_interval)
