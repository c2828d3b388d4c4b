"""Fixtures of the secretary page tests: a club, its secretary logged in, players, a fixed clock."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from html import unescape

import pytest
from django.test import Client

from matches.models import Club, Match, MatchEvent, Player, Side, SideMember, Submission
from tests.clock import NOW
from tests.matches.factories import ClubFactory, PlayerFactory, SecretaryFactory, UserFactory

# The clock of every page test unless a test sets another: a Friday in March 2026.


def form_fields(sides: list[tuple[str, str]], **fields: str | None) -> dict[str, str]:
    """The match form's fields: a FIDO club match of 2026-03-14 with these (players, score)
    sides, and ``fields`` on top (None: the field left out)."""
    data: dict[str, str | None] = {"date": "2026-03-14", "discipline": "fido", "category": "club"}
    for i, (players, score) in enumerate(sides):
        data[f"sides-{i}-players"] = players
        data[f"sides-{i}-score"] = score
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def counts() -> dict[str, int]:
    """Rows of every table a submission writes to (to assert that nothing was stored)."""
    return {
        model.__name__: model.objects.count()
        for model in (Match, Side, SideMember, Submission, MatchEvent)
    }


def text(html: str) -> str:
    """The page's text, tags dropped and white space collapsed (to read what a user reads)."""
    html = re.sub(r"</?(?:code|small|strong|em|span|a|time)\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def error_of(html: str, element_id: str) -> str:
    """The message shown in the error box of one field (``<span id="...">``)."""
    found = re.search(rf'<span[^>]*\bid="{re.escape(element_id)}"[^>]*>(.*?)</span>', html, re.S)
    assert found, f"no error box {element_id}"
    return text(found.group(1))


@pytest.fixture(autouse=True)
def _fast_passwords(fast_passwords: None) -> None:
    """The factories hash a password for every user: the suite's fast hasher (tests/conftest.py)."""


@pytest.fixture
def set_now(set_now: Callable[[dt.datetime], None]) -> Callable[[dt.datetime], None]:
    """The suite's ``set_now`` (tests/conftest.py), the clock at :data:`NOW` to begin with."""
    set_now(NOW)
    return set_now


@pytest.fixture
def club(db: None) -> Club:
    return ClubFactory(club_id="CLUB-7", name="Domino Club Seven")


@pytest.fixture
def other_club(db: None) -> Club:
    return ClubFactory(club_id="CLUB-9", name="Other Club")


@pytest.fixture
def players(club: Club) -> list[Player]:
    return [PlayerFactory(player_id=f"P-{n:06d}", club=club) for n in range(1, 9)]


@pytest.fixture
def secretary(club: Club):
    return SecretaryFactory(club=club, user=UserFactory(username="sec7")).user


@pytest.fixture
def sec_client(client: Client, secretary, set_now) -> Client:
    client.force_login(secretary)
    return client
