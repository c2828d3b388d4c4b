"""gunicorn settings for production: ``gunicorn -c deploy/gunicorn.conf.py fido.wsgi``.

Two worker processes per CPU with two threads each (``WEB_CONCURRENCY`` and
``GUNICORN_THREADS`` override; at least two processes): 4 x 2 on the 2-core reference
machine. A page's request is CPU-bound in Python, and two of them in one process share its
GIL while the other process's core may be idle; with two processes per core the kernel
shares the cores instead. Against 2 x 4 (one process per CPU with four threads, the layout
until 2026-11-29), alternating runs of ``bench/pages.py`` gave the busiest players' page a
lower p95 in every pair (five pairs on two hosts: 55.1 and 56.0 ms against 96.1 and 68.3 on
the AMD EPYC of 2026-11-29 afternoon, eleven kinds of twelve met against six and eleven),
while the submissions stayed within their runs' spread (``bench/submit.py``: 322 and 372
one-match requests a second from 8 clients against 337 and 361). Each process keeps two
threads, so a request waiting for PostgreSQL leaves its process's core to the other
(docs/performance.md, "Gunicorn's layout, a third time").

Each worker switches threads every 0.5 ms (``sys.setswitchinterval``; Python's default is
5 ms, ``GUNICORN_SWITCH_INTERVAL`` overrides): a thread whose PostgreSQL answer has arrived
waits for the GIL at most that long instead of up to 5 ms behind a thread building a batch's
response, which kept the database idle between statements when two clients' requests shared
a worker (docs/performance.md).
"""

import multiprocessing
import os
import sys
from typing import Any

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, 2 * multiprocessing.cpu_count())))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
timeout = 30
accesslog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
switch_interval = float(os.environ.get("GUNICORN_SWITCH_INTERVAL", "0.0005"))


def post_fork(server: Any, worker: Any) -> None:
    """gunicorn's hook, in each worker process: the thread switch interval above."""
    del server, worker
    sys.setswitchinterval(switch_interval)
