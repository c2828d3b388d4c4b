"""``/healthz`` reports the database and the broker, 503 when either fails, always within 2 s
(a frozen server included: issue 16, item 5)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from django.db import connection

from fido import health
from fido.celery import app as celery_app


@pytest.mark.django_db
def test_healthz_ok_with_database_and_broker(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body == {"status": "ok", "database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_healthz_is_503_when_the_broker_is_unreachable(client, monkeypatch) -> None:
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    monkeypatch.setitem(celery_app.conf, "broker_url", "redis://127.0.0.1:1/0")
    monkeypatch.setitem(celery_app.conf, "broker_transport_options", {})
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error"
    assert body["database"] == "ok"
    assert body["broker"].startswith("error:")


def test_healthz_rejects_post(client) -> None:
    assert client.post("/healthz").status_code == 405


# --- bounded whatever the servers do (issue 16, item 5) -----------------------------------


#: The issue's bound on the probe, whatever the state of PostgreSQL and Redis.
BOUND = 2.0


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A port whose server accepts TCP connections and never answers: what a SIGSTOPped
    PostgreSQL or Redis looks like from the outside (the kernel completes the handshake)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield server.getsockname()[1]


def _timed_healthz(client) -> tuple[int, dict[str, str], float]:
    start = time.perf_counter()
    response = client.get("/healthz")
    return response.status_code, response.json(), time.perf_counter() - start


def _point_broker_at(monkeypatch, url: str) -> None:
    monkeypatch.setitem(celery_app.conf, "broker_url", url)
    monkeypatch.setitem(celery_app.conf, "broker_transport_options", {})


@pytest.mark.django_db
def test_a_frozen_broker_is_reported_within_two_seconds(client, monkeypatch, black_hole) -> None:
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{black_hole}/0")
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND, elapsed
    assert status == 503
    assert body == {
        "status": "error",
        "database": "ok",
        "broker": f"error: no answer within {health.CHECK_SECONDS} s",
    }


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_frozen_postgresql_is_reported_within_two_seconds(
    client, monkeypatch, black_hole
) -> None:
    params = {**connection.get_connection_params(), "host": "127.0.0.1", "port": black_hole}
    monkeypatch.setattr(connection, "get_connection_params", lambda: params)
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND, elapsed
    assert status == 503
    assert body["database"] == f"error: no answer within {health.CHECK_SECONDS} s"
    assert body["broker"] == "ok"


@pytest.mark.postgres
@pytest.mark.django_db
def test_both_frozen_still_answer_within_two_seconds(client, monkeypatch, black_hole) -> None:
    params = {**connection.get_connection_params(), "host": "127.0.0.1", "port": black_hole}
    monkeypatch.setattr(connection, "get_connection_params", lambda: params)
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{black_hole}/0")
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND, elapsed  # the two checks run at the same time
    assert status == 503
    assert body["database"].startswith("error: no answer") and body["broker"].startswith("error")


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_stopped_postgresql_is_reported_without_its_address(client, monkeypatch) -> None:
    params = {**connection.get_connection_params(), "host": "127.0.0.1", "port": 1}
    monkeypatch.setattr(connection, "get_connection_params", lambda: params)
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND
    assert status == 503
    assert body["database"] == "error: unreachable (OperationalError)"


@pytest.mark.django_db
def test_a_stuck_embedded_database_is_bounded_too(client, monkeypatch) -> None:
    monkeypatch.setattr(connection, "vendor", "sqlite")  # the embedded default's path
    monkeypatch.setattr(health.sql, "select_one", lambda: time.sleep(4))
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND
    assert status == 503
    assert body["database"] == f"error: no answer within {health.CHECK_SECONDS} s"


@pytest.fixture
def own_redis(tmp_path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A redis-server of this test's own (never the shared one), on a free port."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", tmp_path],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield proc, port
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.django_db
def test_a_real_redis_stopped_with_sigstop_is_reported_within_two_seconds(
    client, monkeypatch, own_redis
) -> None:
    proc, port = own_redis
    _point_broker_at(monkeypatch, f"redis://127.0.0.1:{port}/0")
    assert _timed_healthz(client)[1]["broker"] == "ok"
    os.kill(proc.pid, signal.SIGSTOP)
    status, body, elapsed = _timed_healthz(client)
    assert elapsed < BOUND, elapsed
    assert status == 503
    assert body["broker"] == f"error: no answer within {health.CHECK_SECONDS} s"
    os.kill(proc.pid, signal.SIGCONT)
    assert _timed_healthz(client)[:2] == (200, {"status": "ok", "database": "ok", "broker": "ok"})
