"""Per-user throttling: over the rate is a 429 in the API's error shape; the counter slides;
a counter store that is down lets submissions through instead of losing them."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from rest_framework.test import APIRequestFactory

from matches.apis import throttling
from matches.apis.throttling import SlidingWindowThrottle, SubmissionRateThrottle
from tests.matches.api.conftest import counts, errors_at

pytestmark = pytest.mark.django_db


def forget_counters() -> None:
    """Drop every throttle counter (Redis keys ``throttle:*``, or the embedded cache)."""
    client = throttling._redis()
    if client is None:
        cache.clear()
        return
    keys = list(client.scan_iter("throttle:*"))
    if keys:
        client.delete(*keys)


def set_rates(settings, **rates: str) -> None:
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = rest


@pytest.fixture
def two_a_minute(settings, secretary) -> Iterator[None]:
    set_rates(settings, submissions="2/min")
    forget_counters()
    yield
    forget_counters()


def post(client, body):
    return client.post("/api/matches", data=json.dumps(body), content_type="application/json")


def test_the_third_submission_in_a_minute_is_429(two_a_minute, as_secretary, table):
    assert post(as_secretary, table(id="a")).status_code == 201
    assert post(as_secretary, table(id="b")).status_code == 201

    response = post(as_secretary, table(id="c"))

    assert response.status_code == 429
    assert errors_at(response) == [""]
    assert "throttled" in response.json()["errors"][0]["message"]
    assert 0 < int(response.headers["Retry-After"]) <= 60
    assert counts()["Match"] == 2


def test_a_refused_request_is_not_counted(two_a_minute, as_secretary, secretary, table):
    post(as_secretary, table(id="a"))
    post(as_secretary, table(id="b"))
    for _ in range(3):
        assert post(as_secretary, table(id="c")).status_code == 429

    throttle = SubmissionRateThrottle()
    window = int(throttle.timer() // 60)
    key = f"throttle:submissions:{secretary.pk}:{window}"
    client = throttling._redis()
    stored = client.get(key) if client is not None else cache.get(key)
    assert int(stored) == 2


def test_reads_are_not_counted_as_submissions(two_a_minute, as_secretary, table):
    post(as_secretary, table(id="a"))
    post(as_secretary, table(id="b"))

    assert as_secretary.get("/api/matches").status_code == 200


def test_the_rate_falls_back_to_the_user_rate(settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {"user": "7/hour", "anon": "1/min"}
    settings.REST_FRAMEWORK = rest

    assert SubmissionRateThrottle().get_rate() == "7/hour"


class _Clocked(SlidingWindowThrottle):
    scope = "clocked"
    now = 0.0

    def timer(self) -> float:
        return self.now

    def get_cache_key(self, request, view) -> str:
        return "throttle:clocked:1"


def _allowed_at(now: float) -> tuple[bool, float | None]:
    throttle = _Clocked()
    throttle.now = now
    request = APIRequestFactory().get("/")
    return throttle.allow_request(request, None), throttle.wait()


def test_the_window_slides(settings):
    """10/min: 10 requests late in one minute; early in the next one most of them still
    count, by the end of it none does."""
    set_rates(settings, clocked="10/min")
    forget_counters()
    base = 60.0 * 1_000_000  # the start of a window
    assert all(_allowed_at(base + 50 + i)[0] for i in range(10))
    allowed, wait = _allowed_at(base + 60 + 1)  # 59/60 of the previous 10 still count

    assert not allowed
    assert wait is not None and 0 < wait <= 60
    # When the previous window's weight has shrunk by one request, there is room again.
    assert _allowed_at(base + 60 + 1 + wait + 0.01)[0]
    assert not _allowed_at(base + 60 + 1 + wait + 0.02)[0]
    forget_counters()


def test_no_double_rate_at_a_window_boundary(settings):
    set_rates(settings, clocked="10/min")
    forget_counters()
    base = 60.0 * 2_000_000
    late = sum(_allowed_at(base + 59.9)[0] for _ in range(10))
    early = sum(_allowed_at(base + 60.1)[0] for _ in range(10))

    assert (late, early) == (10, 0)
    forget_counters()


def test_submissions_go_on_when_the_counter_store_is_down(
    settings, secretary, as_secretary, table, caplog
):
    """Redis unreachable (a closed port): the match is accepted and stored; a warning."""
    set_rates(settings, submissions="2/min")
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    with caplog.at_level(logging.WARNING, logger="matches.apis.throttling"):
        responses = [post(as_secretary, table(id=f"m{i}")).status_code for i in range(3)]

    assert responses == [201, 201, 201]
    assert counts()["Match"] == 3
    assert "rate limit store unavailable" in caplog.text
