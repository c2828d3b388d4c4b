"""Fixtures of the matches tests (the API and web tests add their own in api/ and web/)."""

from __future__ import annotations

import pytest

from matches.models import Club, Player
from tests.matches.factories import ClubFactory, PlayerFactory


@pytest.fixture
def club() -> Club:
    """The club CLUB-7, where the service tests' matches are played."""
    return ClubFactory(club_id="CLUB-7")


@pytest.fixture
def players(club: Club) -> list[Player]:
    """Eight players of the club."""
    return [PlayerFactory(club=club) for _ in range(8)]
