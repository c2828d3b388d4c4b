"""``/healthz`` reports the database and the broker, and fails with 503 on a dead broker."""

from __future__ import annotations

import pytest

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
