"""Fixtures of the rankings tests (the page tests add theirs in web/conftest.py)."""

from __future__ import annotations

import pytest

from matches.models import Club
from rankings import loader
from rankings.selectors import list_page
from tests.matches.factories import ClubFactory


@pytest.fixture
def club() -> Club:
    """The club CLUB-7, where the rankings tests' matches are played (unless a module has
    its own)."""
    return ClubFactory(club_id="CLUB-7")


@pytest.fixture(params=["by_player", "id_set", "walked"])
def plan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The three ways a filtered view of a list is read (rankings.selectors.list_page): the
    matching players' entries looked up by player (up to 2,000 players), the list walked
    against the set of their ids (up to 20,000; here from 1), and the list walked with a
    probe per entry (more: here, more than 4)."""
    if request.param == "id_set":
        monkeypatch.setattr(list_page, "EXACT_MATCHES", 0)
    if request.param == "walked":
        monkeypatch.setattr(list_page, "EXACT_MATCHES", 0)
        monkeypatch.setattr(list_page, "MANY_PLAYERS", 4)
    return str(request.param)


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``COPY`` statements run through :mod:`rankings.loader` from now on (Django's
    query log, which ``CaptureQueriesContext`` reads, does not see them): a statement
    count is the captured queries plus these."""
    seen: list[str] = []
    real = loader._drain_copy

    def spy(conn: object, statement: str, flush: object, **options: object) -> None:
        seen.append(statement)
        real(conn, statement, flush, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(loader, "_drain_copy", spy)
    return seen
