"""Austrian double-eight games (RULES.md section 5): the set, the heaviest-tile lead, the
line, the winner, and full replays in draw and block mode through the engine."""

from __future__ import annotations

import pytest

from matches.rules.variants.austrian import (
    AUSTRIAN_TILES,
    LineError,
    LineLayout,
    first_leader,
    game_winner,
    heaviest_key,
)


def test_set_is_double_eight_without_doubles() -> None:
    assert len(AUSTRIAN_TILES) == 36
    assert all(a != b and 0 <= b < a <= 8 for a, b in AUSTRIAN_TILES)


def test_heaviest_order_8_7_then_8_6_then_pips_with_higher_top_end_first() -> None:
    ordered = sorted(AUSTRIAN_TILES, key=heaviest_key, reverse=True)
    assert ordered[:6] == [(8, 7), (8, 6), (8, 5), (7, 6), (8, 4), (7, 5)]


def test_holder_of_8_7_leads_it() -> None:
    hands = {"A": [(3, 1), (8, 6)], "B": [(8, 7), (0, 1)]}
    assert first_leader(hands) == ("B", (8, 7))


def test_without_8_7_the_8_6_leads() -> None:
    hands = {"A": [(3, 1), (8, 6)], "B": [(7, 6), (8, 5)]}
    assert first_leader(hands) == ("A", (8, 6))


def test_8_5_leads_before_7_6() -> None:
    hands = {"A": [(7, 6), (2, 1)], "B": [(8, 5), (0, 1)]}
    assert first_leader(hands) == ("B", (8, 5))


def test_line_has_two_ends() -> None:
    line = LineLayout()
    assert line.place((8, 3)) == 11
    assert line.place((3, 1), (8, 3)) == 9
    assert line.place((8, 2), (8, 3)) == 3
    assert sorted(line.spots((2, 1))) == [(3, 1), (8, 2)]
    assert line.spots((7, 6)) == []


def test_line_refusals() -> None:
    line = LineLayout()
    line.place((8, 3))
    line.place((3, 1), (8, 3))
    cases = [
        (((8, 3), None), "already-played"),
        (((8, 4), None), "on-required"),
        (((8, 4), (7, 6)), "on-not-in-layout"),
        (((8, 4), (3, 1)), "no-match"),
        (((3, 2), (8, 3)), "no-match"),  # the 3 of 8-3 is covered
    ]
    for (tile, on), rule in cases:
        with pytest.raises(LineError) as err:
            line.place(tile, on)
        assert err.value.rule == rule
    assert line.tiles == [(8, 3), (3, 1)]


def test_winner_domino_then_fewest_pips_then_nobody() -> None:
    assert game_winner({"A": 0, "B": 3}, "A") == "A"
    assert game_winner({"A": 9, "B": 3, "C": 4}, None) == "B"
    assert game_winner({"A": 3, "B": 3, "C": 4}, None) is None
