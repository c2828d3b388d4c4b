"""Fixtures of the API tests: a club with its secretary and players, a fixed clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from matches.models import (
    IdempotencyRecord,
    Match,
    MatchEvent,
    Side,
    SideMember,
    Submission,
)
from tests.clock import NOW
from tests.matches.factories import (
    AdminFactory,
    ClubFactory,
    PlayerFactory,
    SecretaryFactory,
    match_payload,
)

# The clock of every API test unless a test sets another: a Friday in March 2026.


def counts() -> dict[str, int]:
    """Rows of every table a submission writes to (to assert that nothing was stored)."""
    return {
        model.__name__: model.objects.count()
        for model in (Match, Side, SideMember, Submission, MatchEvent, IdempotencyRecord)
    }


def errors_at(response: Any) -> list[str]:
    """The paths of a response's errors; fails if it is not in the API's error shape."""
    body = response.json()
    assert set(body) == {"errors"}, body
    assert body["errors"], body
    for error in body["errors"]:
        assert set(error) == {"path", "message"}, error
        assert error["message"], error
    return [error["path"] for error in body["errors"]]


@pytest.fixture(autouse=True)
def _fast_passwords(fast_passwords: None) -> None:
    """The users of every API test are made with the suite's fast hasher (tests/conftest.py)."""


@pytest.fixture(autouse=True)
def now(set_now: Callable[[dt.datetime], None]) -> Callable[[dt.datetime], None]:
    """``now(instant)`` sets the server clock the API reads through ``matches.clock.now``
    (the suite's ``set_now``); it says :data:`NOW` until a test sets it."""
    set_now(NOW)
    return set_now


@pytest.fixture
def club() -> Any:
    return ClubFactory(club_id="CLUB-7", name="Dominoclub Pankow")


@pytest.fixture
def other_club() -> Any:
    return ClubFactory(club_id="CLUB-9", name="Club Nine")


@pytest.fixture
def players(club: Any) -> list[Any]:
    return [PlayerFactory(club=club) for _ in range(10)]


@pytest.fixture
def secretary(club: Any) -> Any:
    return SecretaryFactory(club=club).user


@pytest.fixture
def admin() -> Any:
    return AdminFactory()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def _client_of(user: Any) -> Iterator[APIClient]:
    """An API client authenticated as ``user`` for the test's duration."""
    client = APIClient()
    client.force_authenticate(user)
    yield client
    client.force_authenticate(None)


@pytest.fixture
def as_secretary(secretary: Any) -> Iterator[APIClient]:
    yield from _client_of(secretary)


@pytest.fixture
def as_admin(admin: Any) -> Iterator[APIClient]:
    yield from _client_of(admin)


@pytest.fixture
def table(club: Any, players: list[Any]) -> Callable[..., dict[str, Any]]:
    """``table(id=..., date=..., **fields)``: a FIDO table of four of ``club``."""

    def make(id: str = "CLUB-7/2026-03-14/t1", **extra: Any) -> dict[str, Any]:
        sides = [([players[0]], 57), ([players[1]], 31), ([players[2]], 31), ([players[3]], -4)]
        return match_payload(club, sides, id=id, **extra)

    return make
