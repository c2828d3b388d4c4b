"""deploy/gunicorn.conf.py's worker class (fido.gunicorn_worker) in a real gunicorn: new
keep-alive connections spread over the worker processes, the least busy first, and a
worker that is the only one still takes every connection, after its deferral."""

from __future__ import annotations

import http.client
import os
import runpy
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import GUNICORN_CONF

ROOT = Path(__file__).resolve().parents[2]
WORKER_CLASS = "fido.gunicorn_worker.SpreadingThreadWorker"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def gunicorn(tmp_path: Path, *, workers: int, defer: float) -> Iterator[int]:
    """gunicorn with the deployment's configuration serving ``tests.fido.pid_app``; yields
    its port once every worker has booted."""
    port = free_port()
    env = {
        **os.environ,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_THREADS": "2",
        "GUNICORN_ACCEPT_DEFER": str(defer),
    }
    log = tmp_path / "gunicorn.log"
    with log.open("w") as errors:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "tests.fido.pid_app:app"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        deadline = time.monotonic() + 30
        while log.read_text().count("Booting worker") < workers:
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert server.returncode == 0, log.read_text()
    assert "Traceback" not in log.read_text(), log.read_text()


def open_connection(port: int) -> tuple[http.client.HTTPConnection, int]:
    """A keep-alive connection that has been answered once: it and the serving process's id."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    assert response.status == 200
    return connection, int(response.read())


def test_the_deployment_runs_the_spreading_worker() -> None:
    assert runpy.run_path(str(GUNICORN_CONF))["worker_class"] == WORKER_CLASS


def test_keep_alive_connections_spread_over_the_workers_least_busy_first(
    tmp_path: Path,
) -> None:
    """Eight clients opening one connection after the other, each kept open: the four
    workers take two each (plain gthread leaves them to whichever process wakes first)."""
    with gunicorn(tmp_path, workers=4, defer=0.02) as port:
        opened = [open_connection(port) for _ in range(8)]
        by_worker = Counter(pid for _connection, pid in opened)
        # Each connection stays with its worker.
        for connection, pid in opened:
            connection.request("GET", "/")
            assert int(connection.getresponse().read()) == pid
            connection.close()
    assert sorted(by_worker.values()) == [2, 2, 2, 2], by_worker


def test_a_busy_worker_still_takes_new_connections_after_its_deferral(tmp_path: Path) -> None:
    """With one worker there is no idle one to leave a connection to: it takes each new one
    after waiting 0.02 s per connection it holds, and not sooner."""
    with gunicorn(tmp_path, workers=1, defer=0.02) as port:
        first, pid = open_connection(port)
        started = time.monotonic()
        second, pid_second = open_connection(port)
        waited_second = time.monotonic() - started
        started = time.monotonic()
        third, pid_third = open_connection(port)
        waited_third = time.monotonic() - started
        for connection in (first, second, third):
            connection.close()
    assert pid == pid_second == pid_third
    assert 0.02 <= waited_second < 5
    assert 0.04 <= waited_third < 5
