"""Muggins and Five Up (RULES.md section 4): the layout count, hand-end arithmetic, and full
replays through the engine (legal and illegal steps, targets, sessions, scoresheets)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from matches.rules import IllegalMove, RecordError, replay
from matches.rules.variants.allfives import (
    FivesLayout,
    LayoutError,
    hand_end_points,
    losers_subtract_points,
    round_share_to_five,
    round_to_five,
)

from .fido_records import game_record
from .moves import draw, pass_, play, refused


def muggins() -> FivesLayout:
    return FivesLayout(every_double_spins=False)


def fiveup() -> FivesLayout:
    return FivesLayout(every_double_spins=True)


# -- the count of RULES.md 4.2 -----------------------------------------------------------


def test_plain_lead_counts_both_ends() -> None:
    layout = muggins()
    assert layout.place((6, 4)) == 10


def test_lone_lead_double_counts_twice_its_value_not_four_times() -> None:
    layout = muggins()
    assert layout.place((5, 5)) == 10


def test_spinner_counts_while_one_side_is_free_then_nothing() -> None:
    layout = muggins()
    layout.place((5, 5))
    assert layout.place((5, 0), (5, 5)) == 10  # 5-5 still open on one side: 10 + 0
    assert layout.place((5, 3), (5, 5)) == 3  # both sides covered: spinner counts 0


def test_unused_cross_end_counts_nothing_and_a_started_cross_arm_counts_its_end() -> None:
    layout = muggins()
    layout.place((5, 5))
    layout.place((5, 0), (5, 5))
    layout.place((5, 3), (5, 5))
    assert layout.place((5, 1), (5, 5), "cross") == 0 + 3 + 1
    assert layout.place((5, 2), (5, 5), "cross") == 0 + 3 + 1 + 2


def test_double_at_an_arm_end_counts_both_halves_until_covered() -> None:
    layout = muggins()
    layout.place((6, 3))
    assert layout.place((3, 3), (6, 3)) == 6 + 6  # first double: the spinner
    assert layout.place((6, 6), (6, 3)) == 12 + 6  # an arm-end double: 6-6 counts 12
    assert layout.place((6, 5), (6, 6)) == 6 + 5


def test_non_lead_spinner_needs_its_far_side_covered_before_cross_ends() -> None:
    layout = muggins()
    layout.place((4, 2))
    layout.place((4, 4), (4, 2))
    with pytest.raises(LayoutError) as err:
        layout.place((4, 1), (4, 4), "cross")
    assert err.value.rule == "cross-before-sides"
    assert layout.place((4, 0), (4, 4)) == 2 + 0
    assert layout.place((4, 1), (4, 4), "cross") == 2 + 0 + 1


def test_lead_spinner_needs_both_sides_covered_before_cross_ends() -> None:
    layout = muggins()
    layout.place((2, 2))
    layout.place((2, 1), (2, 2))
    with pytest.raises(LayoutError) as err:
        layout.place((2, 0), (2, 2), "cross")
    assert err.value.rule == "cross-before-sides"
    assert layout.tiles() == [(2, 2), (2, 1)]


def test_muggins_second_double_is_not_a_spinner() -> None:
    layout = muggins()
    layout.place((6, 6))
    layout.place((6, 1), (6, 6))
    layout.place((1, 1), (6, 1))
    layout.place((1, 0), (1, 1))
    with pytest.raises(LayoutError) as err:
        layout.place((1, 2), (1, 1), "cross")
    assert err.value.rule == "not-a-spinner"
    assert layout.spinners() == [(6, 6)]


def test_fiveup_every_double_spins() -> None:
    layout = fiveup()
    layout.place((6, 6))
    layout.place((6, 1), (6, 6))
    layout.place((1, 1), (6, 1))
    layout.place((1, 0), (1, 1))
    assert layout.place((1, 2), (1, 1), "cross") == 12 + 0 + 2
    assert layout.spinners() == [(6, 6), (1, 1)]


def test_muggins_maximum_35_six_five_four_doubles_end_three_arms_and_a_five_the_fourth() -> None:
    # RULES.md 4.3: the largest Muggins score, built from a 3-3 spinner.
    layout = muggins()
    layout.place((3, 3))
    layout.place((6, 3), (3, 3))
    layout.place((5, 3), (3, 3))
    layout.place((4, 3), (3, 3), "cross")
    layout.place((3, 0), (3, 3), "cross")
    layout.place((6, 6), (6, 3))
    layout.place((5, 5), (5, 3))
    layout.place((4, 4), (4, 3))
    assert layout.place((5, 0), (3, 0)) == 12 + 10 + 8 + 5 == 35


def test_placements_refused_with_the_rule_broken_and_nothing_changed() -> None:
    layout = muggins()
    layout.place((6, 4))
    cases = [
        (((6, 4), None, "end"), "already-played"),
        (((6, 1), None, "end"), "on-required"),
        (((6, 1), (5, 5), "end"), "on-not-in-layout"),
        (((3, 1), (6, 4), "end"), "no-match"),
        (((6, 1), (6, 4), "cross"), "not-a-spinner"),
    ]
    for (tile, on, facet), rule in cases:
        with pytest.raises(LayoutError) as err:
            layout.place(tile, on, facet)  # type: ignore[arg-type]
        assert err.value.rule == rule
    assert layout.tiles() == [(6, 4)]
    assert layout.count() == 10


def test_spots_list_every_legal_place() -> None:
    layout = muggins()
    layout.place((5, 5))
    assert layout.spots((5, 1)) == [((5, 5), "end")]
    layout.place((5, 1), (5, 5))
    layout.place((5, 2), (5, 5))
    assert layout.spots((5, 3)) == [((5, 5), "cross")]
    assert layout.spots((2, 1)) == [((5, 1), "end"), ((5, 2), "end")]
    assert layout.spots((6, 6)) == []
    assert not layout.playable((6, 6))


# -- hand-end arithmetic of RULES.md 4.5 -------------------------------------------------


def test_rounding_one_and_two_go_down_three_and_four_go_up() -> None:
    assert [round_to_five(n) for n in range(11)] == [0, 0, 0, 5, 5, 5, 5, 5, 10, 10, 10]


def test_losing_hand_of_only_1_2_scores_5() -> None:
    assert hand_end_points({"A": 0, "B": 1 + 2}, "A") == {"A": 5}


def test_losing_hand_of_only_1_1_scores_0() -> None:
    assert hand_end_points({"A": 0, "B": 1 + 1}, "A") == {"A": 0}


def test_winner_scores_the_rounded_total_of_every_opponent() -> None:
    # 4 + 3 = 7 rounds to 5; rounding each hand first would give 5 + 5 = 10.
    assert hand_end_points({"A": 0, "B": 4, "C": 3}, "A") == {"A": 5}


def test_blocked_single_lowest_wins_the_others_pips() -> None:
    assert hand_end_points({"A": 9, "B": 4, "C": 12}, None) == {"B": 20}


def test_blocked_tie_two_players_nobody_scores() -> None:
    assert hand_end_points({"A": 7, "B": 7}, None) == {}


def test_blocked_tie_four_players_nobody_scores() -> None:
    assert hand_end_points({"A": 3, "B": 3, "C": 10, "D": 12}, None) == {}


def test_blocked_tie_partnerships_nobody_scores() -> None:
    assert hand_end_points({("A", "C"): 11, ("B", "D"): 11}, None) == {}


def test_blocked_tie_two_of_three_share_the_thirds_rounded_pips() -> None:
    # 21 rounds to 20, shared 10 each.
    assert hand_end_points({"A": 6, "B": 6, "C": 21}, None) == {"A": 10, "B": 10}


def test_blocked_tie_two_of_three_half_shares_round_up() -> None:
    # 17 rounds to 15; a share of 7.5 rounds up to 10. 13 -> 15 -> 7.5 -> 10 too.
    assert hand_end_points({"A": 2, "B": 2, "C": 17}, None) == {"A": 10, "B": 10}
    # 5 -> 2.5 -> 5; 10 -> 5 -> 5.
    assert hand_end_points({"A": 2, "B": 2, "C": 5}, None) == {"A": 5, "B": 5}
    assert hand_end_points({"A": 2, "B": 2, "C": 10}, None) == {"A": 5, "B": 5}


def test_blocked_tie_all_three_nobody_scores() -> None:
    assert hand_end_points({"A": 8, "B": 8, "C": 8}, None) == {}


def test_share_rounding_halves_up() -> None:
    assert round_share_to_five(Fraction(15, 2)) == 10
    assert round_share_to_five(Fraction(5, 2)) == 5
    assert round_share_to_five(Fraction(12, 1)) == 10
    assert round_share_to_five(Fraction(25, 2)) == 15


def test_losers_subtract_each_their_own_rounded_pips() -> None:
    assert losers_subtract_points({"A": 0, "B": 3, "C": 12}) == {"A": 0, "B": -5, "C": -10}


# -- full replays --------------------------------------------------------------------------


def record(
    hands: dict[str, list[str]],
    moves: list[dict[str, Any]],
    *,
    game: str = "muggins",
    stock: list[str] | None = None,
    teams: list[list[str]] | None = None,
    **options: Any,
) -> dict[str, Any]:
    return game_record({"game": game, **options}, hands, moves, stock=stock, teams=teams)


# A two-player Muggins hand of seven tiles each, worked out by hand: A dominoes at move 13.
HAND = {
    "A": ["5-5", "5-0", "0-0", "6-0", "6-6", "6-1", "1-1"],
    "B": ["5-4", "4-4", "5-3", "3-3", "2-2", "4-1", "3-2"],
}
MOVES = [
    play("A", "5-5"),  # lone lead spinner: 10, scores 10
    play("B", "5-4", "5-5"),  # 10 + 4 = 14
    play("A", "5-0", "5-5"),  # spinner covered: 4 + 0 = 4
    play("B", "4-4", "5-4"),  # 8 + 0 = 8
    play("A", "0-0", "5-0"),  # 8 + 0 = 8
    play("B", "5-3", "5-5", "cross"),  # 8 + 0 + 3 = 11
    play("A", "6-0", "0-0"),  # 8 + 6 + 3 = 17
    play("B", "3-3", "5-3"),  # 8 + 6 + 6 = 20, scores 20
    play("A", "6-6", "6-0"),  # 8 + 12 + 6 = 26
    play("B", "4-1", "4-4"),  # 1 + 12 + 6 = 19
    play("A", "6-1", "6-6"),  # 1 + 1 + 6 = 8
    play("B", "3-2", "3-3"),  # 1 + 1 + 2 = 4
    play("A", "1-1", "6-1"),  # 1 + 2 + 2 = 5, scores 5; A dominoes, B holds 2-2
]
COUNTS = [10, 14, 4, 8, 8, 11, 17, 20, 26, 19, 8, 4, 5]


def test_worked_hand_counts_points_and_hand_end() -> None:
    report = replay(record(HAND, MOVES))
    (game,) = report["games"]
    assert [m["count"] for m in game["moves"]] == COUNTS
    assert [m["points"] for m in game["moves"]] == [10, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 5]
    assert game["end"] == "domino"
    assert game["winners"] == ["A"]
    # B's 2-2 (4 pips) rounds up to 5 for A.
    assert game["players"] == {
        "A": {"points": 15, "pips_left": 0, "final": 20, "hand_end": 5},
        "B": {"points": 20, "pips_left": 4, "final": 20, "hand_end": 0},
    }
    assert report["session"]["players"]["A"] == {"total": 20, "money": "0.00"}
    assert report["session"]["target"] == 250
    assert report["session"]["target_reached"] is False


def test_fives_unit_divides_every_score_by_five() -> None:
    report = replay(record(HAND, MOVES, unit="fives"))
    (game,) = report["games"]
    assert [m["count"] for m in game["moves"]] == COUNTS
    assert [m["points"] for m in game["moves"] if m["points"]] == [2, 4, 1]
    assert game["players"]["A"]["final"] == 2 + 1 + 1
    assert game["players"]["B"]["final"] == 4
    assert report["session"]["target"] == 61


@pytest.mark.parametrize(("seats", "target"), [(2, 250), (3, 200), (4, 200)])
def test_default_target_by_table_size(seats: int, target: int) -> None:
    names = "ABCD"[:seats]
    data = {
        "variant": {"game": "muggins"},
        "seats": list(names),
        "games": [
            {
                "result": {
                    "blocked": True,
                    "pips": dict.fromkeys(names, 5),
                    "play_points": dict.fromkeys(names, 0),
                }
            }
        ],
    }
    assert replay(data)["session"]["target"] == target


def test_losers_subtract_each_player_loses_their_rounded_pips() -> None:
    report = replay(record(HAND, MOVES, hand_end="losers_subtract"))
    (game,) = report["games"]
    assert game["players"]["A"]["final"] == 15
    assert game["players"]["B"]["hand_end"] == -5
    assert game["players"]["B"]["final"] == 15


def test_next_hand_is_led_by_the_player_who_dominoed() -> None:
    second = {"hands": HAND, "moves": [play("B", "5-4")]}
    data = {
        "variant": {"game": "muggins"},
        "seats": ["A", "B"],
        "games": [{"hands": HAND, "moves": MOVES}, second],
    }
    assert refused(data) == (1, "B", "wrong-lead")
    second["moves"] = MOVES
    report = replay(data)
    assert report["session"]["players"]["A"]["total"] == 40
    assert report["games"][0]["next_leader"] == "A"


def test_after_a_blocked_hand_anyone_may_lead() -> None:
    sheet = {"result": {"blocked": True, "pips": {"A": 9, "B": 9}, "play_points": {"A": 0, "B": 0}}}
    led_by_b = {
        "hands": {"A": HAND["B"], "B": HAND["A"]},
        "moves": [{**m, "player": "B" if m["player"] == "A" else "A"} for m in MOVES],
    }
    report = replay(
        {"variant": {"game": "muggins"}, "seats": ["A", "B"], "games": [sheet, led_by_b]}
    )
    assert report["games"][1]["winners"] == ["B"]


# -- every kind of illegal step --------------------------------------------------------------


def test_tile_not_in_hand() -> None:
    assert refused(record(HAND, [*MOVES[:1], play("B", "6-0", "5-5")])) == (2, "B", "not-in-hand")


def test_tile_already_played() -> None:
    assert refused(record(HAND, [*MOVES[:3], play("B", "5-5", "5-4")])) == (
        4,
        "B",
        "already-played",
    )


def test_no_matching_end() -> None:
    assert refused(record(HAND, [*MOVES[:1], play("B", "4-1", "5-5")])) == (2, "B", "no-match")


def test_cross_end_before_both_sides_of_the_spinner_are_covered() -> None:
    assert refused(record(HAND, [*MOVES[:2], play("A", "5-0", "5-5", "cross")])) == (
        3,
        "A",
        "cross-before-sides",
    )


def test_second_double_in_muggins_has_no_cross_ends() -> None:
    moves = [*MOVES[:8], play("A", "6-0", "3-3")]
    assert refused(record(HAND, moves)) == (9, "A", "already-played")
    moves = [*MOVES[:9], play("B", "3-2", "3-3", "cross")]
    assert refused(record(HAND, moves)) == (10, "B", "not-a-spinner")


def test_placement_without_on_or_on_a_tile_not_on_the_table() -> None:
    assert refused(record(HAND, [*MOVES[:1], play("B", "5-4")])) == (2, "B", "on-required")
    assert refused(record(HAND, [*MOVES[:1], play("B", "5-4", "4-4")])) == (
        2,
        "B",
        "on-not-in-layout",
    )


def test_out_of_turn() -> None:
    assert refused(record(HAND, [*MOVES[:1], play("A", "5-0", "5-5")])) == (2, "A", "out-of-turn")


def test_move_after_the_hand_ended() -> None:
    assert refused(record(HAND, [*MOVES, pass_("B")])) == (14, "B", "after-end")


def test_record_that_stops_before_the_end_is_refused_unless_partial() -> None:
    with pytest.raises(IllegalMove) as caught:
        replay(record(HAND, MOVES[:-1]))
    assert (caught.value.move, caught.value.player, caught.value.rule) == (13, "A", "unfinished")
    assert replay(record(HAND, MOVES[:-1]), partial=True)["games"][0]["end"] == "unfinished"


def test_draw_while_holding_a_playable_tile() -> None:
    assert refused(record(HAND, [*MOVES[:1], draw("B", "6-5")])) == (
        2,
        "B",
        "draw-while-playable",
    )


def test_pass_while_holding_a_playable_tile() -> None:
    assert refused(record(HAND, [*MOVES[:1], pass_("B")])) == (2, "B", "pass-while-playable")


# B holds no 6: after A's 6-6 B must draw until the 6-0 comes, then place it at once.
NO_SIX = {
    "A": ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-0"],
    "B": ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "1-0"],
}
NO_SIX_STOCK = ["2-1", "6-0", "3-0", "4-0", "2-0", "5-4", "4-3"]


def test_draw_until_playable_then_play_that_tile() -> None:
    moves = [play("A", "6-6"), draw("B"), draw("B", "6-0"), play("B", "6-0", "6-6")]
    report = replay(record(NO_SIX, moves, stock=NO_SIX_STOCK), partial=True)
    entries = report["games"][0]["moves"]
    assert entries[1:3] == [
        {"n": 2, "player": "B", "draw": "2-1"},
        {"n": 3, "player": "B", "draw": "6-0"},
    ]
    assert entries[3] == {"n": 4, "player": "B", "tile": "6-0", "count": 12, "points": 0}


def test_pass_while_the_stock_can_be_drawn() -> None:
    moves = [play("A", "6-6"), pass_("B")]
    assert refused(record(NO_SIX, moves, stock=NO_SIX_STOCK)) == (2, "B", "pass-with-stock")


@pytest.mark.parametrize("then", [draw("B"), pass_("B"), play("A", "6-5", "6-6")])
def test_drawn_playable_tile_must_be_played_at_once(then: dict[str, Any]) -> None:
    moves = [play("A", "6-6"), draw("B"), draw("B"), then]
    expected = (4, then["player"], "must-play-drawn" if then["player"] == "B" else "out-of-turn")
    assert refused(record(NO_SIX, moves, stock=NO_SIX_STOCK)) == expected


def test_draws_follow_the_listed_stock() -> None:
    moves = [play("A", "6-6"), draw("B", "6-0")]
    assert refused(record(NO_SIX, moves, stock=NO_SIX_STOCK)) == (2, "B", "stock-order")


def test_without_a_listed_stock_a_draw_names_a_tile_not_in_play() -> None:
    assert refused(record(NO_SIX, [play("A", "6-6"), draw("B")])) == (2, "B", "draw-unnamed")
    assert refused(record(NO_SIX, [play("A", "6-6"), draw("B", "6-5")])) == (
        2,
        "B",
        "tile-in-play",
    )


def test_correction_draws_are_not_an_all_fives_rule() -> None:
    moves = [play("A", "6-6"), {"player": "B", "draw": "2-1", "correction": True}]
    assert refused(record(NO_SIX, moves)) == (2, "B", "correction-not-allowed")


def test_the_hand_starts_with_a_lead() -> None:
    assert refused(record(HAND, [pass_("A")])) == (1, "A", "lead-expected")


# Three players of nine tiles: a stock of one tile (1-0), and B holds no 6.
NINES = {
    "A": ["6-6", "6-5", "6-4", "6-3", "0-0", "1-1", "2-2", "3-3", "4-4"],
    "B": ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1"],
    "C": ["6-2", "6-1", "6-0", "4-0", "3-2", "3-1", "3-0", "2-1", "2-0"],
}


def test_keep_in_stock_the_last_tile_may_never_be_drawn() -> None:
    kept = record(NINES, [play("A", "6-6"), draw("B", "1-0")], keep_in_stock=1)
    assert refused(kept) == (2, "B", "stock-empty")
    passing = record(
        NINES, [play("A", "6-6"), pass_("B"), play("C", "6-2", "6-6")], keep_in_stock=1
    )
    assert replay(passing, partial=True)["games"][0]["moves"][2]["count"] == 14
    # Without keep_in_stock the same pass is refused: the 1-0 must be drawn first.
    assert refused(record(NINES, [play("A", "6-6"), pass_("B")])) == (2, "B", "pass-with-stock")
    drawn = record(NINES, [play("A", "6-6"), draw("B", "1-0"), pass_("B")])
    assert replay(drawn, partial=True)["games"][0]["moves"][2] == {
        "n": 3,
        "player": "B",
        "pass": True,
    }


def test_hand_sizes_follow_the_table_size() -> None:
    short = {"A": HAND["A"][:6], "B": HAND["B"][:6]}
    with pytest.raises(RecordError) as caught:
        replay(record(short, []))
    assert caught.value.path == "hands"


# -- the largest scores -----------------------------------------------------------------------


def test_muggins_35_through_the_engine() -> None:
    hands = {
        "A": ["3-3", "5-3", "3-0", "5-5", "5-0", "1-1", "2-1"],
        "B": ["6-3", "4-3", "6-6", "4-4", "2-2", "2-0", "1-0"],
    }
    moves = [
        play("A", "3-3"),
        play("B", "6-3", "3-3"),
        play("A", "5-3", "3-3"),
        play("B", "4-3", "3-3", "cross"),
        play("A", "3-0", "3-3", "cross"),
        play("B", "6-6", "6-3"),
        play("A", "5-5", "5-3"),
        play("B", "4-4", "4-3"),
        play("A", "5-0", "3-0"),
    ]
    entries = replay(record(hands, moves), partial=True)["games"][0]["moves"]
    assert [m["count"] for m in entries] == [6, 12, 11, 15, 15, 21, 26, 30, 35]
    assert entries[-1]["points"] == 35


FIVE_UP_HANDS = {
    "A": ["0-0", "5-0", "3-0", "5-5", "3-3", "6-3", "1-1"],
    "B": ["6-0", "4-0", "6-6", "4-4", "5-3", "4-3", "2-2"],
}
FIVE_UP_MOVES = [
    play("A", "0-0"),
    play("B", "6-0", "0-0"),
    play("A", "5-0", "0-0"),
    play("B", "4-0", "0-0", "cross"),
    play("A", "3-0", "0-0", "cross"),
    play("B", "6-6", "6-0"),
    play("A", "5-5", "5-0"),
    play("B", "4-4", "4-0"),
    play("A", "3-3", "3-0"),  # a second double: in Five Up a spinner too
    play("B", "5-3", "3-3"),
    play("A", "6-3", "3-3", "cross"),
    play("B", "4-3", "3-3", "cross"),  # 12 + 10 + 8 + 5 + 6 + 4
]


def test_five_up_reaches_45_where_muggins_cannot() -> None:
    entries = replay(record(FIVE_UP_HANDS, FIVE_UP_MOVES, game="fiveup"), partial=True)
    counts = [m["count"] for m in entries["games"][0]["moves"]]
    assert counts == [0, 6, 11, 15, 18, 24, 29, 33, 36, 35, 41, 45]
    assert entries["games"][0]["moves"][-1]["points"] == 45
    assert refused(record(FIVE_UP_HANDS, FIVE_UP_MOVES)) == (11, "A", "not-a-spinner")


# -- targets and the match end ------------------------------------------------------------------


def session(games: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    return {"variant": {"game": "muggins", **options}, "seats": ["A", "B"], "games": games}


def sheet(domino: str | None, pips: dict[str, int], play_points: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {"pips": pips, "play_points": play_points}
    if domino is None:
        result["blocked"] = True
    else:
        result["domino"] = domino
    return {"result": result}


def test_target_reached_in_mid_hand_ends_the_match_at_once() -> None:
    # A scores 10 at move 1, B 20 at move 8: B reaches 20 and the match is over there.
    report = replay(record(HAND, MOVES[:8], target=20))
    (game,) = report["games"]
    assert game["end"] == "target"
    assert game["match_over"] is True
    assert game["winners"] == ["B"]
    assert game["players"]["B"] == {"points": 20, "pips_left": 14, "final": 20, "hand_end": 0}
    assert report["session"]["winners"] == ["B"]
    assert report["session"]["target_reached"] is True
    assert refused(record(HAND, MOVES[:9], target=20)) == (9, "A", "after-match-end")


def test_exact_target_refuses_scores_that_pass_it() -> None:
    report = replay(record(HAND, MOVES, target=12, exact_target=True))
    (game,) = report["games"]
    assert [m["points"] for m in game["moves"] if m["count"] % 5 == 0] == [10, 0, 0]
    assert [m.get("over_target", False) for m in game["moves"] if m["count"] % 5 == 0] == [
        False,
        True,
        True,
    ]
    # The hand-end 5 would take A to 15: refused too.
    assert game["players"]["A"]["final"] == 10
    assert game["players"]["B"]["final"] == 0
    assert report["session"]["target_reached"] is False


def test_exact_target_reached_exactly_wins() -> None:
    # A: 10, then B's 20 passes 15 and is refused, then A's 5 makes exactly 15.
    report = replay(record(HAND, MOVES, target=15, exact_target=True))
    (game,) = report["games"]
    assert game["end"] == "domino"
    assert game["match_over"] is True
    assert game["players"]["A"] == {"points": 15, "pips_left": 0, "final": 15, "hand_end": 0}
    assert report["session"]["winners"] == ["A"]


def test_hand_end_score_reaching_the_target_ends_the_match() -> None:
    games = [
        sheet("A", {"A": 0, "B": 12}, {"A": 230, "B": 15}),  # A: 230 + 10 = 240
        {"hands": HAND, "moves": MOVES},  # A: 240 + 15 + 5 = 260
        {"hands": HAND, "moves": MOVES},
    ]
    with pytest.raises(IllegalMove) as caught:
        replay(session(games, target=260))
    assert (caught.value.game, caught.value.move, caught.value.rule) == (2, 1, "after-match-end")
    report = replay(session(games[:2], target=260))
    assert report["games"][1]["match_over"] is True
    assert report["session"]["players"]["A"]["total"] == 260
    assert report["session"]["players"]["B"]["total"] == 35
    assert report["session"]["winners"] == ["A"]


def test_scoresheet_play_points_are_whole_fives_and_respect_the_exact_target() -> None:
    with pytest.raises(RecordError) as caught:
        replay(session([sheet("A", {"A": 0, "B": 3}, {"A": 12, "B": 0})]))
    assert caught.value.path == "games[0].result.play_points.A"
    with pytest.raises(IllegalMove) as refusal:
        replay(
            session([sheet("A", {"A": 0, "B": 3}, {"A": 65, "B": 0})], target=61, exact_target=True)
        )
    assert refusal.value.rule == "over-target"


# -- blocked hands: ties for 2, 3 and 4 players and partnerships ------------------------------


def blocked(pips: dict[str, int], teams: list[list[str]] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "variant": {"game": "fiveup"},
        "seats": list(pips),
        "games": [sheet(None, pips, dict.fromkeys(pips, 5))],
    }
    if teams is not None:
        data["teams"] = teams
    return replay(data)["games"][0]


def finals(game: dict[str, Any]) -> dict[str, int]:
    return {p: r["final"] for p, r in game["players"].items()}


def test_scoresheet_blocked_single_fewest_pips_scores_the_rest() -> None:
    game = blocked({"A": 9, "B": 4, "C": 13})
    assert game["winners"] == ["B"]
    assert finals(game) == {"A": 5, "B": 5 + 20, "C": 5}  # 22 rounds to 20


def test_scoresheet_blocked_tie_two_players_nobody_scores() -> None:
    game = blocked({"A": 7, "B": 7})
    assert game["winners"] == []
    assert finals(game) == {"A": 5, "B": 5}


def test_scoresheet_blocked_tie_three_players_two_share_the_third() -> None:
    game = blocked({"A": 2, "B": 2, "C": 17})  # 17 -> 15, shares of 7.5 round up to 10
    assert game["winners"] == ["A", "B"]
    assert finals(game) == {"A": 15, "B": 15, "C": 5}


def test_scoresheet_blocked_tie_three_players_all_three_nobody_scores() -> None:
    game = blocked({"A": 8, "B": 8, "C": 8})
    assert game["winners"] == []
    assert finals(game) == {"A": 5, "B": 5, "C": 5}


def test_scoresheet_blocked_tie_four_players_nobody_scores() -> None:
    game = blocked({"A": 3, "B": 3, "C": 10, "D": 12})
    assert game["winners"] == []
    assert finals(game) == {"A": 5, "B": 5, "C": 5, "D": 5}


def test_scoresheet_blocked_tie_partnerships_nobody_scores() -> None:
    game = blocked({"A": 3, "B": 5, "C": 8, "D": 6}, teams=[["A", "C"], ["B", "D"]])
    assert game["winners"] == []
    assert [side["final"] for side in game["sides"]] == [10, 10]


def test_scoresheet_blocked_partnership_with_fewer_pips_scores_the_others() -> None:
    # A + C hold 5, B + D hold 11 (rounds to 10); C, with fewer pips, is credited.
    game = blocked({"A": 3, "B": 5, "C": 2, "D": 6}, teams=[["A", "C"], ["B", "D"]])
    assert game["winners"] == ["A", "C"]
    assert finals(game) == {"A": 5, "B": 5, "C": 15, "D": 5}
    assert [side["final"] for side in game["sides"]] == [20, 10]


def test_partnership_domino_scores_the_opponents_pips() -> None:
    data = {
        "variant": {"game": "muggins"},
        "seats": ["A", "B", "C", "D"],
        "teams": [["A", "C"], ["B", "D"]],
        "games": [sheet("A", {"A": 0, "B": 4, "C": 30, "D": 8}, dict.fromkeys("ABCD", 0))],
    }
    report = replay(data)
    assert finals(report["games"][0]) == {"A": 10, "B": 0, "C": 0, "D": 0}
    assert report["session"]["sides"][0]["total"] == 10
    assert report["session"]["winners"] == ["A", "C"]


def test_replay_game_on_its_own_matches_the_session() -> None:
    # The protocol's per-game entry points rebuild the match from the reports before.
    from matches.rules.record import load

    games = [sheet("A", {"A": 0, "B": 12}, {"A": 15, "B": 5}), {"hands": HAND, "moves": MOVES}]
    loaded = load(session(games, target=40))
    reports = loaded.variant.replay_session(loaded)
    alone = loaded.variant.replay_game(loaded, loaded.games[1], reports[:1])
    assert alone.to_json() == reports[1].to_json()
    # A: 15 + 10 after the scoresheet, 35 after the lead, 40 with the last tile.
    assert alone.extra["match_over"] is True
    again = loaded.variant.score_sheet(loaded, loaded.games[0], [])
    assert again.to_json() == reports[0].to_json()
