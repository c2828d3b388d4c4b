"""gunicorn settings for production: ``gunicorn -c deploy/gunicorn.conf.py fido.wsgi``.

One worker process per CPU with four threads each (``WEB_CONCURRENCY`` and
``GUNICORN_THREADS`` override): on the 2-core reference machine, 2 x 4 accepted 300
single-match submissions a second where the usual 2 x CPUs + 1 processes (or 4 x 2)
accepted about 250, each request costing more CPU as more processes took turns on the
cores; a request spends most of its time waiting for PostgreSQL, which the threads of a
process overlap (docs/performance.md).

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
workers = int(os.environ.get("WEB_CONCURRENCY", max(2, multiprocessing.cpu_count())))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
timeout = 30
accesslog = "-"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
switch_interval = float(os.environ.get("GUNICORN_SWITCH_INTERVAL", "0.0005"))


def post_fork(server: Any, worker: Any) -> None:
    """gunicorn's hook, in each worker process: the thread switch interval above."""
    del server, worker
    sys.setswitchinterval(switch_interval)
