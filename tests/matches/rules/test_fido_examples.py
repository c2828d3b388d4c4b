"""RULES.md 3.3: the worked example (double-18 on divisor 11), one test per table row,
and the section 2 example record."""

import pytest

from matches.rules import IllegalMove, replay
from matches.rules.record import load
from matches.rules.variants.fido import layout

from .fido_records import SECTION_2_EXAMPLE, play, record

HANDS = {
    "A": ["18-18", "18-14"],
    "B": ["18-12", "3-3"],
    "C": ["12-8", "18-14", "18-7"],
    "D": ["18-8", "8-8"],
}


def _hands(c_tile: str = "12-8") -> dict[str, list[str]]:
    hands = {p: list(h) for p, h in HANDS.items()}
    hands["A"] = ["18-18", "2-0"]
    hands["C"] = [c_tile, "1-0"]
    return hands


def _last(moves, hands=None):
    """Count and points of the last move, and the layout (E, X) after it."""
    data = record(hands or _hands(), moves)
    report = replay(data, partial=True)
    entry = report["games"][0]["moves"][-1]
    return entry["count"], entry["points"], layout(load(data))


OPEN = [play("A", "18-18")]
SECOND = [*OPEN, play("B", "18-12", "18-18", "cross")]
THIRD = [*SECOND, play("C", "12-8", "18-12")]


def test_row_a_opens_18_18():
    assert _last(OPEN) == (36, 0, ([18, 18], [18, 18]))


def test_row_b_plays_18_12_on_a_cross_side():
    assert _last(SECOND) == (48, 0, ([18, 18, 12], [18]))


def test_row_c_plays_12_8_on_the_12():
    assert _last(THIRD) == (44, 4, ([18, 18, 8], [18]))


def test_row_alternative_c_plays_18_14_on_an_18():
    moves = [*SECOND, play("C", "18-14", "18-18", "end")]
    assert _last(moves, _hands("18-14")) == (44, 4, ([18, 14, 12], [18]))


def test_row_alternative_c_plays_18_7_on_the_last_cross_side():
    moves = [*SECOND, play("C", "18-7", "18-18", "cross")]
    assert _last(moves, _hands("18-7")) == (55, 5, ([18, 18, 12, 7], []))


def test_row_after_12_8_the_18_8_on_the_8():
    moves = [*THIRD, play("D", "18-8", "12-8")]
    assert _last(moves) == (54, 0, ([18, 18, 18], [18]))


def test_row_after_12_8_the_18_8_on_an_18():
    moves = [*THIRD, play("D", "18-8", "18-18", "end")]
    assert _last(moves) == (34, 0, ([18, 8, 8], [18]))


def test_row_after_12_8_the_18_8_on_the_last_cross_side():
    moves = [*THIRD, play("D", "18-8", "18-18", "cross")]
    assert _last(moves) == (52, 0, ([18, 18, 8, 8], []))


def test_row_a_double_8_8_on_an_open_8_raises_the_sum_by_8():
    before, _, _ = _last(THIRD)
    moves = [*THIRD, play("D", "8-8", "12-8")]
    count, points, (ends, cross) = _last(moves)
    assert count == before + 8 == 52
    assert points == 0
    # The double covers the 8 and shows two 8s; its fourth side is a free cross side.
    assert (ends, cross) == ([18, 18, 8, 8], [18, 8])


def test_seed_110_on_divisor_11_scores_10():
    # Seed, "Règles de base": raising the sum to 110 on divisor 11 scores 10 points.
    hands = {
        "A": ["18-18", "2-0"],
        "B": ["18-17", "16-16", "1-0"],
        "C": ["18-16", "17-8", "3-0"],
        "D": ["17-17", "4-0"],
    }
    moves = [
        play("A", "18-18"),  # 36
        play("B", "18-17", "18-18", "cross"),  # 53
        play("C", "18-16", "18-18", "cross"),  # 69
        play("D", "17-17", "18-17"),  # double on the 17: +17 = 86
        {"player": "A", "draw": "5-0"},  # 2-0 fits nothing
        play("B", "16-16", "18-16"),  # +16 = 102
        play("C", "17-8", "17-17", "cross"),  # a new end of 8: 110
    ]
    assert _last(moves, hands) == (110, 10, ([18, 18, 17, 17, 16, 16, 8], [16]))


def test_section_2_example_first_four_moves():
    data = {**SECTION_2_EXAMPLE, "moves": SECTION_2_EXAMPLE["moves"][:4]}
    game = replay(data, partial=True)["games"][0]
    assert game["moves"] == [
        {"n": 1, "player": "A", "tile": "18-18", "count": 36, "points": 0},
        {"n": 2, "player": "B", "tile": "18-12", "count": 48, "points": 0},
        {"n": 3, "player": "C", "tile": "12-8", "count": 44, "points": 4},
        {"n": 4, "player": "D", "draw": "3-1"},
    ]
    # The example's hands are far short of the 38 tiles of a four-player double-18 deal,
    # so B and C, though their hands are empty, have not played out (3.6).
    assert game["end"] == "unfinished"
    assert game["winners"] == []


def test_section_2_example_is_refused_at_move_5():
    # A passes holding 18-7, which fits an 18 end or the free cross side of 18-18 (and
    # the stock is not empty either): must-play is the first rule broken.
    with pytest.raises(IllegalMove) as caught:
        replay(SECTION_2_EXAMPLE)
    err = caught.value
    assert (err.move, err.player, err.rule) == (5, "A", "pass-while-playable")
    assert err.path == "games[0].moves[4]"
    assert err.message == "A can place 18-7 and must play"
