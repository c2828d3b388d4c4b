"""A real Celery worker on the configured broker runs tasks and returns their results."""

from __future__ import annotations

import os

import pytest

from fido.tasks import database_ping, ping


def test_ping_round_trip_through_a_real_worker(live_worker) -> None:
    assert ping.delay().get(timeout=30) == "pong"


@pytest.mark.django_db(transaction=True)
def test_worker_reaches_the_configured_database(live_worker) -> None:
    from django.db import connection

    result = database_ping.delay().get(timeout=30)
    assert result == {"vendor": connection.vendor, "result": 1}


@pytest.mark.redis
def test_tasks_travel_through_redis_when_it_is_configured(live_worker) -> None:
    import redis

    assert live_worker.conf.broker_url == os.environ["REDIS_URL"]
    result = ping.delay()
    assert result.get(timeout=30) == "pong"
    # The result backend is Redis too: the stored result is readable straight from Redis.
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    assert client.exists(f"celery-task-meta-{result.id}") == 1
