"""Austrian double-eight games (RULES.md section 5): the set, the heaviest-tile lead, the
line, the winner, and full replays in draw and block mode through the engine."""

from __future__ import annotations

from typing import Any

import pytest

from matches.rules import IllegalMove, RecordError, replay
from matches.rules.variants.austrian import (
    AUSTRIAN_TILES,
    LineError,
    LineLayout,
    first_leader,
    game_winner,
    heaviest_key,
)

from .moves import draw, pass_, play, refused
from .trail import trail_game


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


# -- full replays --------------------------------------------------------------------------


TRAIL_COUNTS = [15, 14, 16, 13, 15, 12, 16, 11, 15, 10, 16, 9, 15, 8, 14, 13, 12, 14, 11, 13,
                10, 14, 9, 13, 8]  # fmt: skip


def record(
    hands: dict[str, list[str]],
    moves: list[dict[str, Any]],
    *,
    stock: list[str] | None = None,
    **options: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "variant": {"game": "austrian", **options},
        "seats": list(hands),
        "hands": hands,
        "moves": moves,
    }
    if stock is not None:
        data["stock"] = stock
    return data


def test_block_game_played_out_the_domino_player_wins() -> None:
    hands, moves = trail_game()
    report = replay(record(hands, moves, mode="block"))
    (game,) = report["games"]
    assert [m["count"] for m in game["moves"]] == TRAIL_COUNTS
    assert {m["points"] for m in game["moves"]} == {0}
    assert game["end"] == "domino"
    assert game["winners"] == ["A"]
    assert {p: (r["pips_left"], r["final"]) for p, r in game["players"].items()} == {
        "A": (0, 1),
        "B": (7, 0),
        "C": (3, 0),
        "D": (4, 0),
    }
    assert report["session"]["winners"] == ["A"]
    assert report["session"]["players"]["A"]["total"] == 1


def test_first_game_is_led_by_the_holder_of_the_heaviest_tile_with_it() -> None:
    hands, _ = trail_game()
    assert refused(record(hands, [play("B", "7-6")], mode="block")) == (1, "B", "wrong-lead")
    assert refused(record(hands, [play("A", "7-5")], mode="block")) == (1, "A", "wrong-lead")


def test_block_game_has_no_draws() -> None:
    hands, moves = trail_game()
    assert refused(record(hands, [*moves[:1], draw("B", "3-0")], mode="block")) == (
        2,
        "B",
        "no-draw",
    )


def test_pass_while_able_to_play() -> None:
    hands, moves = trail_game()
    assert refused(record(hands, [*moves[:1], pass_("B")], mode="block")) == (
        2,
        "B",
        "pass-while-playable",
    )


def test_out_of_turn_after_end_and_unfinished() -> None:
    hands, moves = trail_game()
    assert refused(record(hands, [*moves[:1], moves[2]], mode="block")) == (2, "C", "out-of-turn")
    assert refused(record(hands, [*moves, pass_("B")], mode="block")) == (26, "B", "after-end")
    with pytest.raises(IllegalMove) as caught:
        replay(record(hands, moves[:-1], mode="block"))
    assert (caught.value.move, caught.value.rule) == (25, "unfinished")


def test_illegal_placements() -> None:
    hands, moves = trail_game()
    cases = [
        (play("B", "7-5", "8-7"), "not-in-hand"),
        (play("B", "8-7", "8-7"), "already-played"),
        (play("B", "6-4", "8-7"), "no-match"),
        (play("B", "7-6", "7-5"), "on-not-in-layout"),
        (play("B", "7-6"), "on-required"),
        (play("B", "7-6", "8-7", "cross"), "not-a-spinner"),
    ]
    for move, rule in cases:
        assert refused(record(hands, [*moves[:1], move], mode="block")) == (2, "B", rule)


# Draw game, two players of eight: B holds no 7 and no 8, so after the lead B must draw.
DRAW_HANDS = {
    "A": ["8-7", "8-6", "8-5", "8-4", "8-3", "8-2", "8-1", "8-0"],
    "B": ["6-5", "5-4", "4-3", "3-2", "2-1", "1-0", "6-0", "5-0"],
}
DRAW_STOCK = ["6-1", "4-0", "3-0", "7-1", "6-4"]


def test_draw_until_a_tile_plays_then_play_it() -> None:
    moves = [play("A", "8-7"), draw("B"), draw("B"), draw("B"), draw("B"), play("B", "7-1", "8-7")]
    report = replay(record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw"), partial=True)
    assert report["games"][0]["moves"][5] == {
        "n": 6,
        "player": "B",
        "tile": "7-1",
        "count": 9,
        "points": 0,
    }


def test_drawn_playable_tile_must_be_played_at_once() -> None:
    moves = [play("A", "8-7"), draw("B"), draw("B"), draw("B"), draw("B"), pass_("B")]
    data = record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw")
    assert refused(data) == (6, "B", "must-play-drawn")


def test_pass_in_a_draw_game_while_the_stock_holds_tiles() -> None:
    moves = [play("A", "8-7"), draw("B"), pass_("B")]
    data = record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw")
    assert refused(data) == (3, "B", "pass-with-stock")


def test_max_draws_three_then_pass() -> None:
    moves = [play("A", "8-7"), draw("B"), draw("B"), draw("B"), draw("B")]
    data = record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw", max_draws=3)
    assert refused(data) == (5, "B", "max-draws")
    moves[4] = pass_("B")
    passed = replay(record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw", max_draws=3),
                    partial=True)  # fmt: skip
    assert passed["games"][0]["moves"][4] == {"n": 5, "player": "B", "pass": True}


def test_draw_while_able_to_play() -> None:
    moves = [play("A", "8-7"), play("B", "6-5", "8-7")]
    data = record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw")
    assert refused(data) == (2, "B", "no-match")
    moves = [play("A", "8-7"), draw("B"), draw("B"), draw("B"), draw("B"), draw("B")]
    assert refused(record(DRAW_HANDS, moves, stock=DRAW_STOCK, mode="draw")) == (
        6,
        "B",
        "must-play-drawn",
    )
    hands, trail = trail_game()
    two = {"A": hands["A"] + ["3-0"], "B": hands["B"] + ["3-1"]}
    assert refused(record(two, [trail[0], draw("B", "1-0")], mode="draw")) == (
        2,
        "B",
        "draw-while-playable",
    )


@pytest.mark.parametrize(
    ("mode", "seats", "size"),
    [("draw", 2, 10), ("draw", 3, 8), ("block", 4, 6), ("block", 2, 10), ("block", 3, 7)],
)
def test_hand_sizes_by_mode_and_table(mode: str, seats: int, size: int) -> None:
    deck = [f"{a}-{b}" for a in range(9) for b in range(a)]
    hands = {"ABCD"[i]: deck[i * size : (i + 1) * size] for i in range(seats)}
    with pytest.raises(RecordError) as caught:
        replay(record(hands, [], mode=mode))
    assert caught.value.path == "hands"


def test_draw_game_is_for_two_or_three() -> None:
    hands, moves = trail_game()
    with pytest.raises(RecordError) as caught:
        replay(record(hands, moves, mode="draw"))
    assert caught.value.path == "seats"


def test_options_are_checked() -> None:
    hands, moves = trail_game()
    for options, path in [
        ({}, "variant.mode"),
        ({"mode": "block", "max_draws": 3}, "variant.max_draws"),
        ({"mode": "draw", "max_draws": 0}, "variant.max_draws"),
        ({"mode": "block", "target": 3}, "variant.target"),
    ]:
        with pytest.raises(RecordError) as caught:
            replay(record(hands, moves, **options))
        assert caught.value.path == path


# Two players of eleven in a block game: after the lead 8-7 every other 7 and 8 lies in the
# Stamm, so both pass and the game is blocked at once. Their pips tie at 63.
TIED = {
    "A": ["8-7", "6-5", "6-4", "6-3", "6-1", "5-4", "5-0", "3-2", "3-1", "2-0", "1-0"],
    "B": ["6-2", "6-0", "5-3", "5-2", "5-1", "4-3", "4-2", "4-1", "4-0", "3-0", "2-1"],
}
# The same, but A holds 60 and B 66.
A_FEWER = {
    "A": ["8-7", "6-4", "6-2", "5-3", "4-3", "4-2", "4-1", "4-0", "3-2", "3-1", "3-0"],
    "B": ["6-5", "6-3", "6-1", "6-0", "5-4", "5-2", "5-1", "5-0", "2-1", "2-0", "1-0"],
}
BLOCK = [play("A", "8-7"), pass_("B"), pass_("A")]


def session(*games: dict[str, Any]) -> dict[str, Any]:
    return {"variant": {"game": "austrian", "mode": "block"}, "seats": ["A", "B"],
            "games": list(games)}  # fmt: skip


def test_blocked_fewest_pips_wins_and_leads_the_next_game() -> None:
    report = replay(session({"hands": A_FEWER, "moves": BLOCK}))
    (game,) = report["games"]
    assert game["end"] == "blocked"
    assert game["winners"] == ["A"]
    assert game["players"]["A"]["pips_left"] == 60
    assert game["players"]["B"]["pips_left"] == 66
    # Later games: the winner leads, with any tile.
    later = {"hands": TIED, "moves": [play("A", "6-5")]}
    assert replay(session({"hands": A_FEWER, "moves": BLOCK}, later), partial=True)
    later["moves"] = [play("B", "6-2")]
    assert refused(session({"hands": A_FEWER, "moves": BLOCK}, later)) == (1, "B", "wrong-lead")


def test_blocked_tie_has_no_winner_and_the_last_placer_leads() -> None:
    report = replay(session({"hands": TIED, "moves": BLOCK}))
    assert report["games"][0]["winners"] == []
    assert report["session"]["players"] == {
        "A": {"total": 0, "money": "0.00"},
        "B": {"total": 0, "money": "0.00"},
    }
    # Nobody won: A placed the last tile (the lead) and leads next.
    later = {"hands": {"A": TIED["B"], "B": TIED["A"]}, "moves": [play("B", "8-7")]}
    assert refused(session({"hands": TIED, "moves": BLOCK}, later)) == (1, "B", "wrong-lead")
    later["moves"] = [play("A", "6-2")]
    assert replay(session({"hands": TIED, "moves": BLOCK}, later), partial=True)


def test_after_a_tied_scoresheet_anyone_leads() -> None:
    tie = {"result": {"blocked": True, "pips": {"A": 20, "B": 20}}}
    later = {"hands": TIED, "moves": [play("B", "6-2")]}
    report = replay(session(tie, later), partial=True)
    assert report["games"][0]["winners"] == []
    assert report["games"][1]["moves"][0]["player"] == "B"


def test_session_total_counts_games_won() -> None:
    won = {"result": {"domino": "B", "pips": {"A": 20, "B": 0}}}
    swapped = {"A": A_FEWER["B"], "B": A_FEWER["A"]}
    again = {"hands": swapped, "moves": [play("B", "8-7"), pass_("A"), pass_("B")]}
    by_a = {"result": {"domino": "A", "pips": {"A": 0, "B": 9}}}
    report = replay(session(won, again, by_a))
    assert [g["winners"] for g in report["games"]] == [["B"], ["B"], ["A"]]
    assert report["session"]["players"]["B"]["total"] == 2
    assert report["session"]["players"]["A"]["total"] == 1
    assert report["session"]["winners"] == ["B"]
