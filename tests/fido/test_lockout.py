"""Brute force: the web login and the token endpoint throttled per address and per account,
with backoff, and a lockout an admin can lift (issue 16, item 7)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from axes.models import AccessAttempt
from django.test import Client
from rest_framework.test import APIClient

from fido.lockout import cool_off
from matches.models import ApiKey
from tests.matches.factories import UserFactory

pytestmark = pytest.mark.django_db
LIMIT = 3
TOKEN = "/api/auth/token"
LOGIN = "/accounts/login/"


@pytest.fixture
def user(settings, fast_passwords):
    settings.AXES_FAILURE_LIMIT = LIMIT
    # the token endpoint's own rate limits must not be what stops the guessing here
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "100000/min", "anon": "100000/min"},
    }
    user = UserFactory(username="sec-7")
    user.set_password("right-password-1")
    user.save()
    return user


def test_the_token_endpoint_locks_an_account_out_with_a_429(user) -> None:
    api = APIClient()
    for _ in range(LIMIT - 1):
        wrong = api.post(TOKEN, {"username": "sec-7", "password": "guess"}, format="json")
        assert wrong.status_code == 400
    last = api.post(TOKEN, {"username": "sec-7", "password": "guess"}, format="json")
    assert last.status_code == 429  # the failure that reaches the limit locks at once
    locked = api.post(TOKEN, {"username": "sec-7", "password": "right-password-1"}, format="json")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == 15 * 60
    assert "Too many failed logins" in locked.json()["errors"][0]["message"]
    assert not ApiKey.objects.exists()  # the right password did not get through


def test_the_web_login_locks_an_address_out_for_every_account(user) -> None:
    client = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(LIMIT - 1):
        page = client.post(LOGIN, {"username": f"someone-{n}", "password": "guess"})
        assert page.status_code == 200  # the form again, with its error
    assert client.post(LOGIN, {"username": "x", "password": "guess"}).status_code == 429
    locked = client.post(LOGIN, {"username": "sec-7", "password": "right-password-1"})
    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # another address may still log in to that account
    other = Client(REMOTE_ADDR="198.51.100.1")
    assert (
        other.post(LOGIN, {"username": "sec-7", "password": "right-password-1"}).status_code == 302
    )


def test_an_account_is_locked_whatever_address_guesses(user) -> None:
    for n in range(LIMIT):
        Client(REMOTE_ADDR=f"192.0.2.{n + 1}").post(LOGIN, {"username": "sec-7", "password": "x"})
    fresh = Client(REMOTE_ADDR="192.0.2.200")
    locked = fresh.post(LOGIN, {"username": "sec-7", "password": "right-password-1"})
    assert locked.status_code == 429


def test_an_admin_lifts_the_lockout(user) -> None:
    api = APIClient()
    for _ in range(LIMIT):
        api.post(TOKEN, {"username": "sec-7", "password": "guess"}, format="json")
    assert (
        api.post(
            TOKEN, {"username": "sec-7", "password": "right-password-1"}, format="json"
        ).status_code
        == 429
    )
    AccessAttempt.objects.all().delete()  # what the admin's delete action does
    assert (
        api.post(
            TOKEN, {"username": "sec-7", "password": "right-password-1"}, format="json"
        ).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("failures", "minutes"),
    [(0, 15), (10, 15), (19, 15), (20, 30), (30, 60), (40, 120), (10_000, 24 * 60)],
)
def test_the_lockout_backs_off_while_guessing_goes_on(settings, failures, minutes) -> None:
    settings.AXES_FAILURE_LIMIT = 10
    request = SimpleNamespace(axes_failures_since_start=failures)
    assert cool_off(request) == dt.timedelta(minutes=minutes)  # type: ignore[arg-type]
