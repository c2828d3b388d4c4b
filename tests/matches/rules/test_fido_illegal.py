"""Every kind of illegal FIDO step is refused with its move number, player and rule."""

import pytest

from matches.rules import IllegalMove, replay

from .fido_records import BLOCKED_GAME, DOMINO_GAME, draw, pass_, play, record

# Double-18 on 11, four players, three tiles each (hand_size 3), the stock not listed.
HANDS = {
    "A": ["18-18", "18-7", "2-0"],
    "B": ["18-12", "16-16", "1-0"],
    "C": ["12-8", "18-14", "3-0"],
    "D": ["5-0", "4-1", "12-5"],
}
OPEN = [play("A", "18-18"), play("B", "18-12", "18-18", "cross")]


def refused(moves, hands=None, **kwargs):
    data = record(hands or HANDS, moves, **kwargs)
    with pytest.raises(IllegalMove) as caught:
        replay(data, partial=True)
    err = caught.value
    return err.move, err.player, err.rule, err.message


def test_tile_not_in_the_players_hand():
    assert refused([*OPEN, play("C", "18-7", "18-18", "cross")]) == (
        3,
        "C",
        "not-in-hand",
        "C does not hold 18-7",
    )


def test_tile_already_played():
    assert refused([*OPEN, play("C", "18-12", "18-18", "end")]) == (
        3,
        "C",
        "already-played",
        "18-12 is already on the table",
    )


def test_tile_with_no_matching_end():
    assert refused([*OPEN, play("C", "3-0", "18-12")]) == (
        3,
        "C",
        "no-match",
        "3-0 does not match the 12 of 18-12",
    )


def test_on_tile_not_in_the_layout():
    assert refused([*OPEN, play("C", "12-8", "12-12")]) == (
        3,
        "C",
        "on-not-in-layout",
        "12-12 is not on the table",
    )


def test_on_tile_in_a_hand_is_not_in_the_layout():
    assert refused([*OPEN, play("C", "18-14", "18-7")]) == (
        3,
        "C",
        "on-not-in-layout",
        "18-7 is not on the table",
    )


def test_on_tile_whose_end_is_covered():
    moves = [*OPEN, play("C", "12-8", "18-12"), play("D", "12-5", "18-12")]
    assert refused(moves) == (4, "D", "no-open-end", "18-12 has no free end left")


def test_placement_without_on():
    assert refused([*OPEN, play("C", "12-8")]) == (
        3,
        "C",
        "on-required",
        "say which tile 12-8 is placed on (`on`)",
    )


def test_opening_tile_with_on():
    assert refused([play("A", "18-18", "18-7")]) == (
        1,
        "A",
        "lead-on",
        "the opening tile is not attached to anything",
    )


def test_second_tile_on_an_end_of_the_opening_double():
    # The cross sides are the only place allowed for the second tile (3.2).
    assert refused([play("A", "18-18"), play("B", "18-12", "18-18", "end")]) == (
        2,
        "B",
        "second-not-on-cross",
        'the second tile goes on a cross side of 18-18 (facet "cross")',
    )


def test_second_tile_facet_defaults_to_end_and_is_refused():
    assert refused([play("A", "18-18"), play("B", "18-12", "18-18")])[2] == "second-not-on-cross"


def test_cross_side_of_a_tile_that_is_not_a_double():
    assert refused([*OPEN, play("C", "12-8", "18-12", "cross")]) == (
        3,
        "C",
        "no-cross-side",
        "18-12 is not a double: no cross side",
    )


def test_cross_side_already_taken():
    hands = {**HANDS, "C": ["18-14", "12-8", "3-0"], "D": ["18-8", "5-0", "4-1"]}
    moves = [*OPEN, play("C", "18-14", "18-18", "cross"), play("D", "18-8", "18-18", "cross")]
    assert refused(moves, hands) == (
        4,
        "D",
        "cross-side-taken",
        "both cross sides of 18-18 are taken",
    )


def test_cross_side_of_a_later_double_is_single():
    # A double placed on an end has one cross side (its fourth side), used once.
    hands = {
        "A": ["18-18", "2-0", "3-1"],
        "B": ["18-12", "12-11", "1-0"],
        "C": ["12-12", "12-8", "3-0"],
        "D": ["12-5", "12-4", "4-1"],
    }
    moves = [
        *OPEN,
        play("C", "12-12", "18-12"),
        play("D", "12-5", "12-12", "cross"),
        draw("A", "9-0"),
        play("B", "12-11", "12-12", "cross"),
    ]
    assert refused(moves, hands) == (6, "B", "cross-side-taken", "the cross side of 12-12 is taken")


def test_wrong_value_on_a_cross_side():
    assert refused([play("A", "18-18"), play("B", "16-16", "18-18", "cross")]) == (
        2,
        "B",
        "no-match",
        "16-16 does not match the 18 of 18-18",
    )


def test_pass_while_holding_a_playable_tile():
    assert refused([*OPEN, pass_("C")]) == (
        3,
        "C",
        "pass-while-playable",
        "C can place 18-14 and must play",
    )


def test_draw_while_holding_a_playable_tile():
    assert refused([*OPEN, draw("C", "9-9")]) == (
        3,
        "C",
        "draw-while-playable",
        "C can place 18-14 and must play",
    )


def test_pass_while_the_stock_still_holds_tiles():
    moves = [*OPEN, play("C", "12-8", "18-12"), pass_("D")]
    assert refused(moves) == (
        4,
        "D",
        "pass-with-stock",
        "the stock still holds 178 tiles: draw one",
    )


def test_draw_out_of_the_listed_stock_order():
    moves = [*OPEN, play("C", "12-8", "18-12"), draw("D", "9-9")]
    assert refused(moves, stock=["3-1", "9-9"]) == (
        4,
        "D",
        "stock-order",
        "the next tile of the stock is 3-1, not 9-9",
    )


def test_draw_of_a_tile_already_in_play_without_a_stock():
    moves = [*OPEN, play("C", "12-8", "18-12"), draw("D", "16-16")]
    assert refused(moves) == (4, "D", "tile-in-play", "16-16 is already in play")


def test_draw_of_a_tile_already_on_the_table():
    moves = [*OPEN, play("C", "12-8", "18-12"), draw("D", "18-12")]
    assert refused(moves)[2] == "tile-in-play"


def test_draw_of_a_tile_already_drawn():
    moves = [*OPEN, play("C", "12-8", "18-12"), draw("D", "9-9"), draw("A", "9-9")]
    hands = {**HANDS, "A": ["18-18", "2-0", "3-1"]}
    assert refused(moves, hands) == (5, "A", "tile-in-play", "9-9 is already in play")


def test_unnamed_draw_needs_a_listed_stock():
    moves = [*OPEN, play("C", "12-8", "18-12"), draw("D")]
    assert refused(moves) == (4, "D", "draw-unnamed", "name the drawn tile (no stock listed)")


def test_draw_from_an_empty_stock():
    moves = [*BLOCKED_GAME["moves"][:10], {"player": "B", "draw": "0-0"}]
    with pytest.raises(IllegalMove) as caught:
        replay({**BLOCKED_GAME, "moves": moves})
    assert (caught.value.move, caught.value.rule) == (11, "stock-empty")


def test_play_out_of_turn():
    assert refused([*OPEN, play("D", "12-5", "18-12")]) == (3, "D", "out-of-turn", "it is C's turn")


def test_opening_by_the_wrong_player():
    assert refused([play("B", "18-12")]) == (1, "B", "out-of-turn", "A opens the game with 18-18")


def test_wrong_opening_tile():
    assert refused([play("A", "18-7")]) == (1, "A", "wrong-opening", "A must open with 18-18")


def test_opening_with_a_draw():
    assert refused([draw("A", "9-9")])[2] == "wrong-opening"


def test_move_after_a_domino():
    moves = [*DOMINO_GAME["moves"], draw("B", "6-1")]
    with pytest.raises(IllegalMove) as caught:
        replay({**DOMINO_GAME, "moves": moves})
    err = caught.value
    assert (err.move, err.player, err.rule, err.message) == (
        11,
        "B",
        "after-end",
        "the game already ended (domino)",
    )


def test_move_after_a_blocked_end():
    moves = [*BLOCKED_GAME["moves"], pass_("B")]
    with pytest.raises(IllegalMove) as caught:
        replay({**BLOCKED_GAME, "moves": moves})
    assert (caught.value.move, caught.value.rule, caught.value.message) == (
        13,
        "after-end",
        "the game already ended (blocked)",
    )


def test_error_in_a_later_game_of_a_session_names_that_game():
    bad = {k: DOMINO_GAME[k] for k in ("hands", "moves")}
    bad = {**bad, "moves": [*bad["moves"][:2], pass_("C")]}
    data = {
        "variant": DOMINO_GAME["variant"],
        "seats": DOMINO_GAME["seats"],
        "games": [{k: DOMINO_GAME[k] for k in ("hands", "moves")}, bad],
    }
    with pytest.raises(IllegalMove) as caught:
        replay(data)
    err = caught.value
    assert (err.game, err.move, err.path) == (1, 3, "games[1].moves[2]")
    assert err.as_dict() == {
        "path": "games[1].moves[2]",
        "move": 3,
        "player": "C",
        "rule": "pass-while-playable",
        "message": "C can place 6-5 and must play",
    }
