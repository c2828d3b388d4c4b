"""Per-user throttling of submissions: over the rate is a 429 in the API's error shape."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from matches.apis.matches import SubmissionRateThrottle
from tests.matches.api.conftest import counts, errors_at

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_a_minute(settings, secretary):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "submissions": "2/min"}
    settings.REST_FRAMEWORK = rest
    # The throttle's history lives in the shared cache: start from none for this user.
    key = SubmissionRateThrottle.cache_format % {"scope": "submissions", "ident": secretary.pk}
    cache.delete(key)
    yield
    cache.delete(key)


def post(client, body):
    return client.post("/api/matches", data=json.dumps(body), content_type="application/json")


def test_the_third_submission_in_a_minute_is_429(two_a_minute, as_secretary, table):
    assert post(as_secretary, table(id="a")).status_code == 201
    assert post(as_secretary, table(id="b")).status_code == 201

    response = post(as_secretary, table(id="c"))

    assert response.status_code == 429
    assert errors_at(response) == [""]
    assert "throttled" in response.json()["errors"][0]["message"]
    assert int(response.headers["Retry-After"]) > 0
    assert counts()["Match"] == 2


def test_reads_are_not_counted_as_submissions(two_a_minute, as_secretary, table):
    post(as_secretary, table(id="a"))
    post(as_secretary, table(id="b"))

    assert as_secretary.get("/api/matches").status_code == 200


def test_the_rate_falls_back_to_the_user_rate(settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {"user": "7/hour", "anon": "1/min"}
    settings.REST_FRAMEWORK = rest

    assert SubmissionRateThrottle().get_rate() == "7/hour"
