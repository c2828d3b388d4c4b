"""FLADUB core (rankings/fladub.py): SPEC.md section 4's worked examples and each rule.

Plain unit tests, no database. Months are month indices; players are small integers.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankings import fladub
from rankings.fladub import Match, PublishedList, Sides

MARCH = fladub.month_index(2026, 3)
FEBRUARY = MARCH - 1
A, B, C, D, X, Y, Z = range(7)
CLUB = fladub.CATEGORY_BASE["club"]


def cents_of(ranking: fladub.RankingList) -> dict[int, int]:
    return dict(zip(ranking.player.tolist(), ranking.fladub_cents.tolist(), strict=True))


def points_by_player(
    sides: Sides, published: dict[int, PublishedList] | None = None
) -> dict[int, float]:
    results = fladub.match_points(sides, published or {})
    return dict(zip(results.player.tolist(), results.points.tolist(), strict=True))


def table_of_four(counting_month: int = MARCH) -> Sides:
    """SPEC worked example: a club table of four, A 57, B 31, C 31, D -4."""
    return Sides.from_matches(
        [
            Match(
                1,
                MARCH,
                counting_month,
                CLUB,
                [(57, [A]), (31, [B]), (31, [C]), (-4, [D])],
            )
        ]
    )


def x_and_y_on_february_list() -> dict[int, PublishedList]:
    """SPEC second example: L(February) tops out at X 100.00, Y has 50.00, A is absent."""
    return {FEBRUARY: PublishedList.from_fladub([X, Y, Z], [100.00, 50.00, 20.00])}


# --- the month and rounding helpers ---------------------------------------------------------


def test_month_index_and_label_round_trip() -> None:
    assert fladub.month_index(2026, 1) == 2026 * 12
    assert fladub.month_index(2026, 12) - fladub.month_index(2026, 1) == 11
    assert fladub.month_index(2027, 1) - fladub.month_index(2026, 12) == 1
    assert fladub.month_label(fladub.month_index(2026, 3)) == "2026-03"
    assert fladub.month_label(fladub.month_index(2027, 12)) == "2027-12"
    with pytest.raises(ValueError, match="month 13"):
        fladub.month_index(2026, 13)


def test_rounding_is_half_away_from_zero_despite_binary_floats() -> None:
    # 9.165, 2.675 and 1.005 are stored just below the half cent; Python's round() and
    # floor(x * 100 + 0.5) give 9.16, 2.67, 1.0 for them.
    values = [0.125, 9.165, 2.675, 1.005, 0.005, 0.0049, 0.014999, -0.125, -2.675, 0.0]
    assert fladub.round_half_away_cents(values).tolist() == [
        13,
        917,
        268,
        101,
        1,
        0,
        1,
        -13,
        -268,
        0,
    ]


def test_rounding_slack_is_exactly_the_documented_number_of_units() -> None:
    half_cent_above_twelve = 2**36  # 0.125 point, in units of 2**-39
    slack = fladub.ROUNDING_SLACK_UNITS
    assert fladub.cents_from_units([half_cent_above_twelve - slack]).tolist() == [13]
    assert fladub.cents_from_units([half_cent_above_twelve - slack - 1]).tolist() == [12]


def test_published_list_from_decimal_numbers_and_its_ranks() -> None:
    listed = PublishedList.from_fladub([5, 6, 7, 8], [9.17, 12.40, 9.17, 0.83])
    assert listed.fladub_cents.tolist() == [917, 1240, 917, 83]
    assert listed.ranks().tolist() == [2, 1, 2, 4]
    with pytest.raises(ValueError, match="FLADUB > 0"):
        PublishedList(player=np.array([1]), fladub_cents=np.array([0]))


# --- SPEC worked example 1: points and ageing -----------------------------------------------


def test_worked_example_table_of_four_points() -> None:
    assert points_by_player(table_of_four()) == {
        A: 10.0,
        B: 5.0,
        C: 5.0,
        D: 0.0,
    }


def test_worked_example_ageing_of_a_march_result() -> None:
    lists = fladub.close_months(table_of_four(), range(MARCH, MARCH + 13))
    assert cents_of(lists[MARCH])[A] == 1000  # 10.00
    assert cents_of(lists[MARCH + 1])[A] == 917  # 10 * 11/12 = 9.1666.. -> 9.17
    assert cents_of(lists[MARCH + 11])[A] == 83  # February next year: 10 * 1/12 -> 0.83
    assert len(lists[MARCH + 12]) == 0  # March next year: the result is gone
    assert fladub.month_label(MARCH + 11) == "2027-02"
    # B and C share 5.00, then 4.58 (5 * 11/12 = 4.5833..); D's 0 never lists him.
    assert cents_of(lists[MARCH]) == {A: 1000, B: 500, C: 500}
    assert cents_of(lists[MARCH + 1]) == {A: 917, B: 458, C: 458}
    assert lists[MARCH].rank.tolist() == [1, 2, 2]


def test_every_weight_from_twelve_twelfths_down_to_one() -> None:
    lists = fladub.close_months(table_of_four(), range(MARCH, MARCH + 12))
    expected = [1000, 917, 833, 750, 667, 583, 500, 417, 333, 250, 167, 83]
    assert [cents_of(lists[MARCH + age])[A] for age in range(12)] == expected


# --- SPEC worked example 2: opponent strength -----------------------------------------------


def three_player_march_match(counting_month: int = MARCH) -> Sides:
    return Sides.from_matches(
        [Match(7, MARCH, counting_month, CLUB, [(41, [A]), (12, [X]), (-3, [Y])])]
    )


def test_opponent_strength_reads_the_list_before_the_played_month() -> None:
    sides = three_player_march_match()
    q = fladub.opponent_strength(sides.player, sides.month_played, x_and_y_on_february_list())
    assert dict(zip(sides.player.tolist(), q.tolist(), strict=True)) == {A: 0.0, X: 1.0, Y: 0.5}


def test_worked_example_opponent_strength_points() -> None:
    assert points_by_player(three_player_march_match(), x_and_y_on_february_list()) == {
        A: 17.5,
        X: 7.5,
        Y: 0.0,
    }
    ranking = fladub.compute_list(three_player_march_match(), MARCH, x_and_y_on_february_list())
    assert cents_of(ranking) == {A: 1750, X: 750}


def test_late_march_match_still_uses_the_february_list() -> None:
    published = x_and_y_on_february_list()
    # L(March) exists by the time the late result is counted; it must not be used.
    published[MARCH] = PublishedList.from_fladub([A, Y], [80.00, 10.00])
    late = three_player_march_match(counting_month=MARCH + 1)
    results = fladub.match_points(late, published)
    assert results.points.tolist() == [17.5, 7.5, 0.0]
    # Counted in April, so it has already aged one month: 17.5 * 11/12 = 16.0416.. -> 16.04.
    assert cents_of(fladub.compute_list(late, MARCH + 1, published)) == {A: 1604, X: 688}
    # ... and it is not in L(March): it was received after March's deadline.
    assert len(fladub.compute_list(late, MARCH, published)) == 0


def test_no_list_before_the_month_means_every_q_is_zero() -> None:
    only_january = {FEBRUARY - 1: PublishedList.from_fladub([X, Y], [100.00, 50.00])}
    results = fladub.match_points(three_player_march_match(), only_january)
    assert results.points.tolist() == [10.0, 5.0, 0.0]


def test_formula_producing_an_exact_half_cent_rounds_up() -> None:
    # A league draw against a player with 0.05 when the list tops out at 100.00: q = 0.0005,
    # pts = 20 * 1/2 * 1.0005 = 10.005 exactly, which float64 evaluates to 10.00499999...
    published = {FEBRUARY: PublishedList.from_fladub([X, Y], [100.00, 0.05])}
    draw = Sides.from_matches([Match(3, MARCH, MARCH, 20, [(5, [A]), (5, [Y])])])
    points = fladub.match_points(draw, published).points
    assert points[0] < 10.005  # the float really is below the half cent
    assert cents_of(fladub.compute_list(draw, MARCH, published))[A] == 1001


# --- sides, teams and ties ------------------------------------------------------------------


def test_team_strength_is_the_mean_of_its_members() -> None:
    published = x_and_y_on_february_list()  # q: X 1.0, Y 0.5, Z 0.2, A 0
    sides = Sides.from_matches(
        [Match(9, MARCH, MARCH, CLUB, [(120, [X, A]), (80, [Y, Z])])]  # means 0.5 and 0.35
    )
    points = points_by_player(sides, published)
    assert points == {X: 13.5, A: 13.5, Y: 0.0, Z: 0.0}  # 10 * (1 + 0.35) / 1


def test_team_beside_single_players_in_one_match() -> None:
    published = x_and_y_on_february_list()
    sides = Sides.from_matches([Match(9, MARCH, MARCH, CLUB, [(10, [B]), (30, [X, A]), (20, [Y])])])
    points = points_by_player(sides, published)
    # Team X+A (q 0.5) beats B (q 0) and Y (q 0.5): 10 * (1 + 1.5) / 2 = 12.5 each member.
    # Y beats B: 10 * 1 / 2 = 5. B beats nobody.
    assert points == {X: 12.5, A: 12.5, Y: 5.0, B: 0.0}


def test_equal_scores_share_the_comparison() -> None:
    published = x_and_y_on_february_list()
    sides = Sides.from_matches([Match(4, MARCH, MARCH, CLUB, [(7, [A]), (7, [X])])])
    points = points_by_player(sides, published)
    assert points == {A: 10.0, X: 5.0}  # A: 1/2 * (1 + 1.0) * 10; X: 1/2 * (1 + 0) * 10


def test_an_all_square_table_of_nine() -> None:
    sides = Sides.from_matches(
        [Match(4, MARCH, MARCH, fladub.CATEGORY_BASE["world"], [(0, [p]) for p in range(9)])]
    )
    assert fladub.match_points(sides, {}).points.tolist() == [80.0] * 9


def test_tables_must_have_two_to_nine_sides() -> None:
    alone = Sides.from_matches([Match(1, MARCH, MARCH, CLUB, [(3, [A])])])
    with pytest.raises(ValueError, match=r"match 1 does not have 2\.\.9 sides"):
        fladub.match_points(alone, {})
    crowd = Sides.from_matches([Match(2, MARCH, MARCH, CLUB, [(s, [s]) for s in range(10)])])
    with pytest.raises(ValueError, match=r"match 2 does not have 2\.\.9 sides"):
        fladub.match_points(crowd, {})


def test_base_beyond_world_is_rejected() -> None:
    sides = Sides.from_matches([Match(1, MARCH, MARCH, 320, [(3, [A]), (1, [B])])])
    with pytest.raises(ValueError, match="base B"):
        fladub.match_points(sides, {})


# --- the list -------------------------------------------------------------------------------


def wins(first_id: int, winner: int, losers: list[int], base: float = CLUB) -> list[Match]:
    return [
        Match(first_id + i, MARCH, MARCH, base, [(1, [winner]), (0, [loser])])
        for i, loser in enumerate(losers)
    ]


def ties_sides() -> Sides:
    # 20.00 (two wins), 10.00, 10.00, 5.00, 5.00 (a draw); the losers 8 and 9 have 0.
    return Sides.from_matches(
        [
            *wins(1, 0, [9, 8]),
            *wins(3, 2, [9]),
            *wins(4, 1, [8]),
            Match(5, MARCH, MARCH, CLUB, [(4, [7]), (4, [3])]),
        ]
    )


def test_shared_ranks_and_player_order_within_a_shared_rank() -> None:
    ranking = fladub.compute_list(ties_sides(), MARCH, {})
    assert ranking.player.tolist() == [0, 1, 2, 3, 7]
    assert ranking.fladub_cents.tolist() == [2000, 1000, 1000, 500, 500]
    assert ranking.rank.tolist() == [1, 2, 2, 4, 4]
    # Players 8 and 9 only lost: they have counting results but are not listed.
    assert 8 not in ranking.player and 9 not in ranking.player


def test_player_order_decides_within_a_shared_rank_only() -> None:
    # E.g. federation ids ordered so that player 7 sorts before 3 and 2 before 1.
    order = np.array([50, 40, 30, 20, 0, 0, 0, 10, 0, 0])
    ranking = fladub.compute_list(ties_sides(), MARCH, {}, player_order=order)
    assert ranking.player.tolist() == [0, 2, 1, 7, 3]
    assert ranking.rank.tolist() == [1, 2, 2, 4, 4]


def test_best_twenty_cut_off_and_results_counted_counts_all() -> None:
    world, club = fladub.CATEGORY_BASE["world"], CLUB
    sides = Sides.from_matches(
        [*wins(100, A, [B] * 5, base=world), *wins(200, A, [B] * 20, base=club)]
    )
    ranking = fladub.compute_list(sides, MARCH, {})
    # 25 results count; only the 20 largest are summed: 5 * 160 + 15 * 10 = 950.
    assert cents_of(ranking) == {A: 95000}
    assert ranking.results_counted.tolist() == [25]


def test_best_twenty_across_sort_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Players with more than 20 results are sorted in blocks (65,536 players each at full
    # scale); one player per block here. Player p wins 21 + p club matches in March against
    # player 9 and one world match: 160 + 19 * 10 = 350.00 each, whatever the block.
    monkeypatch.setattr(fladub, "_SORT_BLOCK_BITS", 0)
    matches = []
    for p in range(4):
        matches += wins(1000 * (p + 1), p, [9] * (21 + p))
        matches += wins(1000 * (p + 1) + 500, p, [9], base=fladub.CATEGORY_BASE["world"])
    ranking = fladub.compute_list(Sides.from_matches(matches), MARCH, {})
    assert cents_of(ranking) == {0: 35000, 1: 35000, 2: 35000, 3: 35000}
    assert ranking.results_counted.tolist() == [22, 23, 24, 25]


def test_results_counted_includes_zero_point_results() -> None:
    sides = Sides.from_matches([*wins(1, A, [B, B, B]), *wins(4, B, [A])])
    ranking = fladub.compute_list(sides, MARCH, {})
    assert dict(zip(ranking.player.tolist(), ranking.results_counted.tolist(), strict=True)) == {
        A: 4,
        B: 4,
    }


def test_results_not_yet_counting_or_too_old_are_left_out() -> None:
    sides = Sides.from_matches(
        [
            Match(1, MARCH, MARCH + 1, CLUB, [(1, [A]), (0, [B])]),  # counts from April
            Match(2, MARCH - 12, MARCH - 12, CLUB, [(1, [A]), (0, [B])]),  # age 12 in March
            Match(3, MARCH - 11, MARCH - 11, CLUB, [(1, [A]), (0, [B])]),  # age 11: 1/12
        ]
    )
    ranking = fladub.compute_list(sides, MARCH, {})
    assert cents_of(ranking) == {A: 83}
    assert ranking.results_counted.tolist() == [1]
    assert sides.in_window(MARCH).match_id.tolist() == [3, 3]
    # player_totals applies the same window to rows the loader did not trim.
    totals = fladub.player_totals(fladub.match_points(sides, {}), MARCH)
    assert totals.player.tolist() == [A, B]
    assert totals.results_counted.tolist() == [1, 1]
    assert totals.fladub_cents.tolist() == [83, 0]


def test_previous_rank_movement_and_new() -> None:
    sides = Sides.from_matches(
        [
            *wins(1, A, [D, D]),  # March: A 20.00, B 10.00
            *wins(3, B, [D]),
            # April, national: B first (40 * 2/2 = 40), C second (40 * 1/2 = 20), D last.
            Match(5, MARCH + 1, MARCH + 1, 40, [(3, [B]), (2, [C]), (1, [D])]),
        ]
    )
    lists = fladub.close_months(sides, [MARCH, MARCH + 1])
    april = lists[MARCH + 1]
    # B 10 * 11/12 + 40 = 49.17, C 20.00, A 20 * 11/12 = 18.33.
    assert cents_of(april) == {B: 4917, C: 2000, A: 1833}
    assert april.player.tolist() == [B, C, A]
    assert april.rank.tolist() == [1, 2, 3]
    assert april.previous_rank.tolist() == [2, 0, 1]
    assert april.is_new.tolist() == [False, True, False]
    assert april.movement.tolist() == [1, 0, -2]
    frame = april.to_frame()
    assert frame["previous_rank"].isna().tolist() == [False, True, False]
    assert frame["previous_rank"].dropna().tolist() == [2, 1]
    assert frame["movement"].isna().tolist() == [False, True, False]
    assert frame["movement"].dropna().tolist() == [1, -2]
    assert lists[MARCH].is_new.all()


def test_breakdown_lists_every_counting_result_with_its_weight() -> None:
    sides = Sides.from_matches(
        [
            Match(1, MARCH - 2, MARCH - 2, CLUB, [(1, [A]), (0, [B])]),
            Match(2, MARCH, MARCH, 20, [(0, [A]), (1, [B])]),
            Match(3, MARCH - 1, MARCH, 40, [(1, [A]), (0, [C])]),  # late: counts in March
        ]
    )
    results = fladub.match_points(sides, {})
    breakdown = fladub.player_breakdown(results, A, MARCH)
    assert breakdown.match_id.tolist() == [3, 1, 2]  # best first
    assert breakdown.age.tolist() == [1, 2, 0]
    assert breakdown.weight_twelfths.tolist() == [11, 10, 12]
    assert breakdown.points.tolist() == [40.0, 10.0, 0.0]
    assert breakdown.in_best.tolist() == [True, True, True]
    ranking = fladub.compute_list(sides, MARCH, {})
    assert breakdown.fladub_cents == cents_of(ranking)[A] == 3667 + 833  # 36.666.. + 8.333..


def test_breakdown_marks_only_the_best_twenty() -> None:
    sides = Sides.from_matches(wins(1, A, [B] * 22))
    breakdown = fladub.player_breakdown(fladub.match_points(sides, {}), A, MARCH)
    assert len(breakdown.match_id) == 22
    assert int(breakdown.in_best.sum()) == 20
    assert breakdown.match_id[breakdown.in_best].tolist() == list(range(1, 21))  # lower ids


def test_unsorted_rows_give_the_identical_list() -> None:
    sides = ties_sides()
    assert sides.canonical() is sides  # from_matches emits canonical order: no sort
    reversed_rows = sides.take(np.arange(len(sides))[::-1])
    assert not reversed_rows.is_canonical()
    assert fladub.compute_list(reversed_rows, MARCH, {}).equals(
        fladub.compute_list(sides, MARCH, {})
    )


def test_split_across_workers_equals_the_single_run() -> None:
    sides = ties_sides()
    published = x_and_y_on_february_list()
    whole = fladub.compute_list(sides, MARCH, published)
    parts = [
        fladub.compute_partial(
            fladub.sides_for_worker(sides, w, 3), MARCH, published, worker=w, n_workers=3
        )
        for w in range(3)
    ]
    split = fladub.rank_list(fladub.merge_totals(parts), MARCH, previous=published.get(FEBRUARY))
    assert split.equals(whole)
    # Players 0, 1, 2, 3, 7, 8, 9 have results: worker 0 owns 0, 3, 9; 1 owns 1, 7; 2 owns 2, 8.
    assert [p.player.tolist() for p in parts] == [[0, 3, 9], [1, 7], [2, 8]]


def test_merge_refuses_overlapping_parts() -> None:
    results = fladub.match_points(ties_sides(), {})
    part = fladub.player_totals(results, MARCH)
    with pytest.raises(ValueError, match="overlap"):
        fladub.merge_totals([part, part])


def test_an_empty_window_gives_an_empty_list() -> None:
    ranking = fladub.compute_list(Sides.from_matches([]), MARCH, x_and_y_on_february_list())
    assert len(ranking) == 0
    assert ranking.to_frame().shape == (0, 6)
