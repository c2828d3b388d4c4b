"""The format of a pack's tables (rankings.player_tables): what goes in comes out, for the
matches asked for that it holds; a match seating a renamed player is left to the reader;
bytes of another format or length are refused. No database."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankings import player_tables
from rankings.player_tables import Facts, Named, Seat, Table

NAMES = st.text(min_size=1, max_size=30)


def _encode(tables: dict[int, Table]) -> bytes:
    seats = [(m, s) for m, t in tables.items() for s in t.seats]
    players = {s.player_pk: Named(player_id=s.player_id, name=s.name) for _, s in seats}
    return player_tables.encode(
        np.array([m for m, _ in seats], dtype=np.int64),
        np.array([s.side_position for _, s in seats], dtype=np.int16),
        np.array([float(s.score) for _, s in seats]),  # the core's sides hold floats
        np.array([s.player_pk for _, s in seats], dtype=np.int64),
        {m: t.facts for m, t in tables.items()},
        players,
    )


@st.composite
def some_tables(draw: st.DrawFn) -> dict[int, Table]:
    """Matches of 2 to 4 sides of 1 or 2 players, drawn from a pool of players (each with
    one id and name, seated at several tables)."""
    pool = draw(st.lists(st.integers(1, 10**12), min_size=8, max_size=20, unique=True))
    named = {pk: (draw(NAMES), draw(NAMES)) for pk in pool}
    matches = draw(st.lists(st.integers(1, 10**15), min_size=1, max_size=12, unique=True))
    tables = {}
    for m in matches:
        sides, size = draw(st.integers(2, 4)), draw(st.integers(1, 2))
        seated = draw(st.permutations(pool))[: sides * size]
        seats = sorted(
            (
                Seat(
                    side_position=k // size + 1,
                    score=draw(st.integers(-200, 500)),
                    player_pk=pk,
                    player_id=named[pk][0],
                    name=named[pk][1],
                )
                for k, pk in enumerate(seated)
            ),
            key=lambda s: (s.side_position, s.player_pk),
        )
        # A side's players share its score.
        seats = [
            Seat(s.side_position, seats[(s.side_position - 1) * size].score, *_rest(s))
            for s in seats
        ]
        tables[m] = Table(
            match_pk=m,
            facts=Facts(
                external_id=draw(NAMES),
                date_played=draw(st.dates(dt.date(1990, 1, 1), dt.date(2100, 12, 31))),
                category=draw(st.sampled_from(["singles", "teams", "pairs"])),
                club_pk=draw(st.integers(1, 10**9)),
            ),
            seats=tuple(seats),
        )
    return tables


def _rest(seat: Seat) -> tuple[int, str, str]:
    return seat.player_pk, seat.player_id, seat.name


@settings(max_examples=60, deadline=None)
@given(tables=some_tables(), data=st.data())
def test_what_is_packed_reads_back(tables: dict[int, Table], data: st.DataObject) -> None:
    packed = player_tables.decode(_encode(tables))
    assert len(packed) == len(tables)
    asked = data.draw(st.lists(st.sampled_from(sorted(tables)), unique=True))
    unknown = data.draw(st.lists(st.integers(1, 10**15).filter(lambda m: m not in tables)))
    assert packed.matches([*asked, *unknown]) == {m: tables[m] for m in asked}
    assert packed.facts([*asked, *unknown]) == {m: tables[m].facts for m in asked}
    # A renamed player's matches are left out, and only theirs.
    renamed = data.draw(st.sampled_from([s.player_pk for t in tables.values() for s in t.seats]))
    assert packed.matches(tables, renamed=[renamed]) == {
        m: t for m, t in tables.items() if renamed not in {s.player_pk for s in t.seats}
    }


def test_names_in_any_script_and_the_seats_order() -> None:
    facts = Facts(
        external_id="Spiel-ä/1", date_played=dt.date(2025, 6, 30), category="pairs", club_pk=7
    )
    tables = {
        5: Table(
            match_pk=5,
            facts=facts,
            seats=(
                Seat(1, 120, 10, "P-10", "Zoë Ångström"),
                Seat(1, 120, 30, "P-30", "李小龍"),
                Seat(2, -15, 20, "P-20", "Jürgen Groß"),
                Seat(2, -15, 40, "P-40", "Ἀλέξανδρος"),
            ),
        )
    }
    packed = player_tables.decode(_encode(tables))
    assert packed.matches([5]) == tables
    assert packed.matches([5], renamed=[40]) == {}
    assert packed.facts([4, 5, 6]) == {5: facts}


def test_no_match_at_all() -> None:
    packed = player_tables.decode(_encode({}))
    assert len(packed) == 0 and packed.matches([1, 2]) == {} and packed.facts([3]) == {}


def test_a_missing_name_or_facts_is_refused_when_packing() -> None:
    one = np.array([1, 1], dtype=np.int64)
    with pytest.raises(KeyError):
        player_tables.encode(one, np.array([1, 2]), np.array([3.0, 4.0]), np.array([8, 9]), {}, {})


def test_bytes_of_another_format_or_length_are_refused() -> None:
    facts = Facts(external_id="m", date_played=dt.date(2025, 1, 2), category="singles", club_pk=1)
    data = _encode({1: Table(1, facts, (Seat(1, 3, 8, "P-8", "Ann"), Seat(2, 1, 9, "P-9", "Bob")))})
    with pytest.raises(ValueError, match="hold"):
        player_tables.decode(data[:-1])
    with pytest.raises(ValueError, match="hold"):
        player_tables.decode(data + b"x")
    with pytest.raises(ValueError, match="version 2"):
        player_tables.decode(np.array([2], dtype="<i4").tobytes() + data[4:])
