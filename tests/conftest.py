"""Test-suite wiring: which real servers the suite runs against, the live-worker fixture,
and the fixtures many test modules share (a fast password hasher, a fixed server clock).

The suite runs on whatever ``DATABASE_URL`` / ``REDIS_URL`` say. Tests that need PostgreSQL
(marker ``postgres``) or Redis (marker ``redis``) skip on a developer's embedded default but,
under ``CI=true``, the suite FAILS if either server is missing or unreachable: CI never
passes by skipping the real components.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _redis_problem() -> str | None:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        return "REDIS_URL is not set"
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {url} is unreachable: {exc}"
    return None


def _postgres_problem() -> str | None:
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if "postgresql" not in engine:
        return f"DATABASE_URL is not PostgreSQL (engine {engine})"
    return None


def pytest_configure(config: pytest.Config) -> None:
    if not IN_CI:
        return
    # Fail fast, before collecting anything, if CI is not wired to the real servers.
    problems = [p for p in (_redis_problem(), _postgres_problem()) if p]
    if problems:
        raise pytest.UsageError("CI=true but: " + "; ".join(problems))


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, check in (("postgres", _postgres_problem), ("redis", _redis_problem)):
        if item.get_closest_marker(marker) is None:
            continue
        problem = check()
        if problem is None:
            continue
        if IN_CI:
            pytest.fail(f"{marker} required under CI: {problem}")
        pytest.skip(f"needs {marker}: {problem}")


@pytest.fixture
def fast_passwords(settings: Any) -> None:
    """MD5 passwords: the factories hash one for every user, and the default hasher is slow
    on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def set_now(monkeypatch: pytest.MonkeyPatch) -> Callable[[dt.datetime], None]:
    """``set_now(instant)``: from then on the server clock (``matches.clock.now``) says
    ``instant`` (the live server and an in-process worker share the module)."""
    from matches import clock

    return lambda instant: monkeypatch.setattr(clock, "now", lambda: instant)


@pytest.fixture
def live_worker() -> Iterator[object]:
    """A real Celery worker (solo pool, in a thread) consuming the configured broker.

    Use with ``@pytest.mark.django_db(transaction=True)`` when tasks touch the database, so
    that the worker's connection sees committed rows.
    """
    from celery.contrib.testing.worker import start_worker

    from fido.celery import app

    app.control.purge()  # messages left by an earlier, interrupted run are not this test's
    with start_worker(app, perform_ping_check=False, shutdown_timeout=30.0):
        yield app


@pytest.fixture(autouse=True)
def _fresh_file_cache() -> Iterator[None]:
    """Each test starts with an empty cache on the embedded default (a cache in files).

    The rate limits count per user id in Django's cache when Redis is not configured; SQLite
    hands a rolled-back test's ids out again, so without this a user of one test inherits the
    requests of the users before it and meets a 429. (With Redis the cache is the broker's
    database too, which a worker may be using: it is left alone, and PostgreSQL never reuses
    ids.)
    """
    from django.conf import settings

    if "FileBasedCache" in settings.CACHES["default"]["BACKEND"]:
        from django.core.cache import cache

        cache.clear()
    yield


@pytest.fixture(autouse=True)
def _language_reset() -> Iterator[None]:
    """Each test starts in the default language: a request in German leaves German active
    on the test's thread (the locale middleware activates it for the request and leaves it),
    which a later test's command or service messages would otherwise speak."""
    from django.utils import translation

    yield
    translation.deactivate()
