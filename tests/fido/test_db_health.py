"""fido.db.postgresql: the per-request health check asks PostgreSQL only when the client
sees a reason to; a terminated connection is still found and replaced."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_postgresql

from matches.models import Club

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_the_settings_use_the_backend():
    assert type(connections["default"]).__module__ == "fido.db.postgresql.base"


def test_an_idle_connection_is_usable_without_a_round_trip(monkeypatch):
    Club.objects.count()  # connected and idle
    asked = []

    def round_trip(self) -> bool:
        asked.append(1)
        return True

    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", round_trip)

    assert connection.is_usable() is True
    assert asked == []


def test_a_terminated_connection_is_found_and_replaced():
    Club.objects.count()
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    with psycopg.connect(
        **{k: v for k, v in params.items() if k in {"dbname", "user", "host", "port"}},
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
    time.sleep(0.2)  # the termination notice reaches the socket

    assert connection.is_usable() is False
    # What Django does at the start of a request with CONN_HEALTH_CHECKS:
    connection.health_check_done = False
    connection.close_if_health_check_failed()
    assert Club.objects.count() == 0
    assert connection.connection.info.backend_pid != pid
