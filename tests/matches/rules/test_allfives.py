"""Muggins and Five Up (RULES.md section 4): the layout count, hand-end arithmetic, and full
replays through the engine (legal and illegal steps, targets, sessions, scoresheets)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from matches.rules.variants.allfives import (
    FivesLayout,
    LayoutError,
    hand_end_points,
    losers_subtract_points,
    round_share_to_five,
    round_to_five,
)


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
