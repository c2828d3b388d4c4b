"""Tiles and sets (RULES.md section 1)."""

import copy
import pickle

import pytest

from matches.rules.tiles import Tile, austrian_set, double_set, heaviest


def test_tile_is_normalised_high_end_first():
    assert Tile(12, 18) == Tile(18, 12)
    assert Tile(12, 18).high == 18
    assert Tile(12, 18).low == 12
    assert str(Tile(12, 18)) == "18-12"


def test_parse_accepts_either_order_and_interns():
    assert Tile.parse("12-18") is Tile.parse("18-12")
    assert Tile.parse(" 7 - 3 ") == Tile(7, 3)


@pytest.mark.parametrize("text", ["18", "18-", "a-b", "18-12-1", "22-0", "-1-3", ""])
def test_parse_refuses_malformed_text(text):
    with pytest.raises(ValueError, match="tile"):
        Tile.parse(text)


def test_parse_refuses_non_text():
    with pytest.raises(ValueError, match="text"):
        Tile.parse(18)  # type: ignore[arg-type]


def test_out_of_range_and_non_integer_ends_are_refused():
    with pytest.raises(ValueError, match="between 0 and 21"):
        Tile(22, 0)
    with pytest.raises(TypeError):
        Tile(1.0, 0)  # type: ignore[arg-type]


def test_pips_double_difference_and_other_end():
    t = Tile.parse("18-12")
    assert (t.pips, t.is_double, t.difference) == (30, False, 6)
    assert Tile(8, 8).is_double
    assert t.other(18) == 12
    assert t.other(12) == 18
    assert Tile(8, 8).other(8) == 8
    with pytest.raises(ValueError, match="no end 5"):
        t.other(5)


def test_tile_survives_copy_and_pickle():
    t = Tile(9, 4)
    assert copy.deepcopy(t) == t
    again = pickle.loads(pickle.dumps(t))  # noqa: S301 - our own bytes
    assert again == t
    assert type(again) is Tile


@pytest.mark.parametrize(
    ("n", "size"), [(6, 28), (8, 45), (9, 55), (12, 91), (15, 136), (18, 190), (21, 253)]
)
def test_double_n_set_sizes(n, size):
    tiles = double_set(n)
    assert len(tiles) == size == (n + 1) * (n + 2) // 2
    assert max(t.high for t in tiles) == n


def test_double_set_range():
    with pytest.raises(ValueError, match="0 <= N <= 21"):
        double_set(22)


def test_austrian_set_is_double_eight_without_doubles():
    tiles = austrian_set()
    assert len(tiles) == 36
    assert not any(t.is_double for t in tiles)
    assert tiles < double_set(8)


def test_heaviest_breaks_pip_ties_by_higher_top_end():
    assert heaviest([Tile(7, 6), Tile(8, 5), Tile(4, 4)]) == Tile(8, 5)
    assert heaviest(list(austrian_set())) == Tile(8, 7)
