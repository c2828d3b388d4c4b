"""Why did I move (rankings.ledger): the parts of a change add up to it exactly, for any
history (Hypothesis, on the FLADUB core's own lists), and each kind names its results."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankings import fladub, ledger
from rankings.fladub import Match, Sides
from rankings.ledger import Held

FIRST = fladub.month_index(2025, 1)
ME = 0


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Match], int, set[int]]:
    """Up to 70 tables over 15 months, most with player 0; the list month R; the matches
    voided with effect from R (they count in L(R - 1), not in L(R))."""
    n_players = draw(st.integers(2, 6))
    out = []
    for n in range(draw(st.integers(0, 70))):
        others = draw(st.permutations(range(1, n_players)))
        k = draw(st.integers(2, min(n_players, 4)))
        with_me = draw(st.integers(0, 9)) < 8 or len(others) < k
        seated = ([ME] if with_me else []) + list(others)
        played = FIRST + draw(st.integers(0, 14))
        late = draw(st.sampled_from([0, 0, 0, 1]))
        sides = [(draw(st.integers(-2, 5)), [p]) for p in seated[:k]]
        base = draw(st.sampled_from(sorted(fladub.CATEGORY_BASE.values())))
        out.append(Match(2 * n + 7, played, played + late, base, sides))
    month = FIRST + draw(st.integers(1, 15))
    ids = [m.match_id for m in out]
    voided = set(draw(st.lists(st.sampled_from(ids), max_size=5))) if ids else set()
    return out, month, voided


def cents_in(ranking: fladub.RankingList, player: int) -> int:
    found = np.flatnonzero(ranking.player == player)
    return int(ranking.fladub_cents[found[0]]) if len(found) else 0


def held(sides: Sides, lists: dict[int, fladub.PublishedList], month: int) -> dict[int, Held]:
    results = fladub.match_points(sides.in_window(month), lists)
    return ledger.held_from_breakdown(fladub.player_breakdown(results, ME, month))


@settings(max_examples=200, deadline=None)
@given(history=histories())
def test_the_parts_sum_to_the_change_exactly_for_any_history(
    history: tuple[list[Match], int, set[int]],
) -> None:
    games, month, voided = history
    everything = Sides.from_matches(games)
    kept = Sides.from_matches([g for g in games if g.match_id not in voided])
    earlier = fladub.close_months(everything, range(FIRST - 1, month))
    lists = {m: r.to_published() for m, r in earlier.items()}
    now = fladub.compute_list(kept, month, lists)
    before, after = held(everything, lists, month - 1), held(kept, lists, month)
    left = {g.match_id for g in games if g.month_played == month - fladub.WINDOW_MONTHS}
    from_cents, to_cents = cents_in(earlier[month - 1], ME), cents_in(now, ME)

    found = ledger.decompose(before, after, left=left, from_cents=from_cents, to_cents=to_cents)

    assert sum(p.cents for p in found.parts) == found.change_cents == to_cents - from_cents
    assert found.part("merged") is None  # the stored results explain the whole change
    by_id = {g.match_id: g for g in games}
    for part in found.parts:
        for match in part.results:
            game = by_id[match]
            if part.kind == "new":
                assert match not in before
            if part.kind == "left":
                assert game.month_played == month - fladub.WINDOW_MONTHS
            if part.kind == "voided":
                assert match in voided
    aged = found.part("aged")
    assert aged is None or aged.units <= 0  # ageing never raises a number


def test_a_worked_example_by_hand() -> None:
    # L(R-1): results a (10.00, best), b (4.00, best); L(R): a aged to 9.00, b left the
    # window, c is new (3.335 -> the rounding is carried by the running total).
    u = fladub.UNITS_PER_POINT
    before = {"a": Held(10 * u, True), "b": Held(4 * u, True)}
    after = {"a": Held(9 * u, True), "c": Held(int(3.335 * u), True)}
    found = ledger.decompose(before, after, left={"b"}, from_cents=1400, to_cents=1234)
    assert [(p.kind, p.cents, p.results) for p in found.parts] == [
        ("left", -400, ("b",)),
        ("aged", -100, ("a",)),
        ("new", 334, ("c",)),
    ]
    assert found.change_cents == -166 == sum(p.cents for p in found.parts)


def test_pushed_out_and_back_in_of_the_best_twenty() -> None:
    u = fladub.UNITS_PER_POINT
    # 21 results worth 30, 29, .. 10 points: the best 20 sum 410.00, the 21st (10) is out.
    before = {n: Held(u * (30 - n), n < 20) for n in range(21)}
    # Result 0 is voided: the 21st comes back in. Nothing ages (to keep the sums by hand).
    after = {n: Held(u * (30 - n), True) for n in range(1, 21)}
    found = ledger.decompose(before, after, left=(), from_cents=41000, to_cents=39000)
    assert [(p.kind, p.cents, p.results) for p in found.parts] == [
        ("voided", -3000, (0,)),
        ("aged", 0, tuple(range(1, 20))),
        ("pushed_in", 1000, (20,)),
    ]
    # A new result of 50 points pushes the smallest (11 points) out.
    newer = {**after, "n": Held(50 * u, True), 19: Held(11 * u, False)}
    found = ledger.decompose(after, newer, left=(), from_cents=39000, to_cents=42900)
    assert [(p.kind, p.cents, p.results) for p in found.parts] == [
        ("aged", 0, tuple(range(1, 21))),
        ("pushed_out", -1100, (19,)),
        ("new", 5000, ("n",)),
    ]


def test_a_merge_is_the_part_the_results_do_not_explain() -> None:
    u = fladub.UNITS_PER_POINT
    same = {"a": Held(5 * u, True)}
    found = ledger.decompose(same, same, left=(), from_cents=300, to_cents=500)
    assert [(p.kind, p.cents) for p in found.parts] == [("merged", 200), ("aged", 0)]


def test_the_rank_sentence_names_each_count_in_english_and_german() -> None:
    from django.utils import translation

    from rankings.ledger import RankChange
    from rankings.ledger_words import rank_sentence

    change = RankChange(
        rank_from=3, rank_to=5, passed=2, new_above=1, overtaken=5, gone_above=1, explained=True
    )
    with translation.override("en"):
        assert rank_sentence(change) == (
            "Rank 3 → 5: 2 players passed you; 1 new player entered above you; "
            "you passed 5 players; 1 player above you left the list."
        )
        quiet = RankChange(3, 5, passed=0, new_above=0, overtaken=1, gone_above=0, explained=True)
        assert rank_sentence(quiet) == "Rank 3 → 5: you passed 1 player."
    with translation.override("de"):
        assert rank_sentence(change) == (
            "Rang 3 → 5: 2 Spieler haben Sie überholt; 1 neuer Spieler ist vor Ihnen "
            "eingestiegen; Sie haben 5 Spieler überholt; 1 Spieler vor Ihnen ist nicht mehr "
            "in der Rangliste."
        )


def test_a_part_is_worded_for_one_result_or_several_in_english_and_german() -> None:
    from types import SimpleNamespace

    from django.utils import translation

    from rankings.ledger_words import _part_words

    one = SimpleNamespace(kind="aged", results=[1], cents=-83)
    three = SimpleNamespace(kind="pushed_out", results=[1, 2, 3], cents=-120)
    with translation.override("en"):
        assert _part_words(one, None) == "-0.83 as an older result aged"  # type: ignore[arg-type]
        assert _part_words(three, None) == "-1.20 as 3 results dropped out of the best 20"  # type: ignore[arg-type]
    with translation.override("de"):
        assert _part_words(one, None) == "-0,83 durch die Alterung eines älteren Ergebnisses"  # type: ignore[arg-type]
        assert (
            _part_words(three, None)  # type: ignore[arg-type]
            == "-1,20, weil 3 Ergebnisse aus den besten 20 verdrängt wurden"
        )


@st.composite
def held_pairs(
    draw: st.DrawFn,
) -> tuple[dict[int, Held], dict[int, Held], set[int], set[int], int, int]:
    """Two lists' results of a player (shared keys, keys of one list only, any mix of best
    20 and not), the keys that left the window, the corrections, two published numbers."""
    keys = draw(st.lists(st.integers(1, 60), unique=True, max_size=40))
    units = st.integers(0, 300 * 2**39)

    def a_list() -> dict[int, Held]:
        chosen = draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []
        return {k: Held(draw(units), draw(st.booleans())) for k in chosen}

    before, after = a_list(), a_list()
    left = set(draw(st.lists(st.sampled_from(sorted(before)), unique=True))) if before else set()
    fixed = draw(st.lists(st.sampled_from(sorted(after)), unique=True)) if after else []
    cents = st.integers(0, 10**6)
    return before, after, left, set(fixed), draw(cents), draw(cents)


def _as_arrays(held: dict[int, Held]) -> ledger.HeldArrays:
    return ledger.HeldArrays(
        np.array(list(held), dtype=np.int64),
        np.array([h.units for h in held.values()], dtype=np.int64),
        np.array([h.in_best for h in held.values()], dtype=bool),
    )


@settings(max_examples=300, deadline=None)
@given(held_pairs())
def test_the_arrays_give_the_ledger_the_results_give(
    case: tuple[dict[int, Held], dict[int, Held], set[int], set[int], int, int],
) -> None:
    """decompose_arrays (what the ledger selector runs) equals decompose (the loop over
    Held results): the same parts, amounts and results in the same order."""
    before, after, left, fixed, from_cents, to_cents = case
    loop = ledger.decompose(
        before, after, left=left, from_cents=from_cents, to_cents=to_cents, corrections=fixed
    )
    arrays = ledger.decompose_arrays(
        _as_arrays(before),
        _as_arrays(after),
        left=np.array(sorted(left), dtype=np.int64),
        from_cents=from_cents,
        to_cents=to_cents,
        corrections=fixed,
    )
    assert arrays == loop
