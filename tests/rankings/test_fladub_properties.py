"""FLADUB invariants (Hypothesis) against a slow, exact reference written from SPEC section 4.

The reference below knows nothing of the module's arrays, sorting or quantised units: it
walks the matches one by one in exact rational arithmetic (``fractions.Fraction``) and
rounds the exact value half away from zero. The vectorised list must equal it entirely:
players, order, published cents, ranks, results counted, previous ranks.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankings import fladub
from rankings.fladub import Match, PublishedList, Sides
from tests.rankings.factories import list_columns

FIRST = fladub.month_index(2025, 1)

# --- the exact reference --------------------------------------------------------------------

Lists = Mapping[int, Mapping[int, int]]  # month -> {player: published cents}


def reference_points(match: Match, lists: Lists) -> list[tuple[int, Fraction]]:
    """(player, pts) of every member, straight from the formula."""
    published = lists.get(match.month_played - 1, {})
    top = max(published.values(), default=0)

    def q(player: int) -> Fraction:
        return Fraction(published[player], top) if player in published else Fraction(0)

    strength = [
        sum((q(p) for p in players), Fraction(0)) / len(players) for _, players in match.sides
    ]
    k = len(match.sides)
    out = []
    for t, (score_t, players_t) in enumerate(match.sides):
        total = Fraction(0)
        for u, (score_u, _) in enumerate(match.sides):
            if u == t:
                continue
            s = Fraction(1) if score_t > score_u else Fraction(1, 2) if score_t == score_u else 0
            total += s * (1 + strength[u])
        pts = Fraction(match.base) * total / (k - 1)
        out.extend((player, pts) for player in players_t)
    return out


def reference_list(
    matches: Sequence[Match], month: int, lists: Lists, order: Sequence[int]
) -> list[tuple[int, int, int, int, int]]:
    """Rows (player, cents, rank, results counted, previous rank or 0) of L(month)."""
    weighted: dict[int, list[Fraction]] = defaultdict(list)
    for match in matches:
        age = month - match.month_played
        if match.counting_month > month or not 0 <= age < 12:
            continue
        for player, pts in reference_points(match, lists):
            weighted[player].append(pts * Fraction(12 - age, 12))
    cents = {
        player: math.floor(
            sum(sorted(values, reverse=True)[:20], Fraction(0)) * 100 + Fraction(1, 2)
        )
        for player, values in weighted.items()
    }
    listed = sorted((p for p in cents if cents[p] > 0), key=lambda p: (-cents[p], order[p]))
    previous = lists.get(month - 1, {})

    def rank_in(numbers: Mapping[int, int], player: int) -> int:
        return 1 + sum(1 for other in numbers.values() if other > numbers[player])

    return [
        (
            p,
            cents[p],
            rank_in({q: cents[q] for q in listed}, p),
            len(weighted[p]),
            rank_in(previous, p) if p in previous else 0,
        )
        for p in listed
    ]


def rows_of(ranking: fladub.RankingList) -> list[tuple[Any, ...]]:
    columns = ("player", "fladub_cents", "rank", "results_counted", "previous_rank")
    return list_columns(ranking, *columns)


def as_published(lists: Lists) -> dict[int, PublishedList]:
    return {
        month: PublishedList(
            player=np.array(list(listed), dtype=np.int64),
            fladub_cents=np.array(list(listed.values()), dtype=np.int64),
        )
        for month, listed in lists.items()
    }


# --- strategies -----------------------------------------------------------------------------


@st.composite
def matches(draw: st.DrawFn, n_players: int, max_matches: int) -> list[Match]:
    out = []
    for match_id in range(draw(st.integers(0, max_matches))):
        players = draw(st.permutations(range(n_players)))
        k = draw(st.integers(2, min(n_players, 5)))
        team = draw(st.sampled_from([1, 1, 1, 2])) if 2 * k <= n_players else 1
        played = FIRST + draw(st.integers(0, 5))
        late = draw(st.sampled_from([0, 0, 0, 1, 2]))
        sides = [
            (draw(st.integers(-2, 3)), sorted(players[i * team : (i + 1) * team])) for i in range(k)
        ]
        base = draw(st.sampled_from(sorted(fladub.CATEGORY_BASE.values())))
        out.append(Match(3 * match_id + 11, played, played + late, base, sides))
    return out


World = tuple[int, list[Match], Lists]
"""What :func:`worlds` draws: the player count, the matches, the published lists (month
index -> player -> cents)."""


@st.composite
def worlds(draw: st.DrawFn, max_matches: int = 60) -> World:
    """Players 0..n-1, their matches over six months, and some published lists before."""
    n_players = draw(st.integers(2, 7))
    games = draw(matches(n_players, max_matches))
    lists: dict[int, dict[int, int]] = {}
    for month in range(FIRST - 1, FIRST + 6):
        if draw(st.booleans()):
            listed = draw(st.lists(st.integers(0, n_players + 1), unique=True, max_size=5))
            lists[month] = {p: draw(st.integers(1, 30_000)) for p in listed}
    return n_players, games, lists


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(world=worlds(), month_offset=st.integers(0, 14), reverse_order=st.booleans())
def test_list_equals_the_exact_reference(
    world: World,
    month_offset: int,
    reverse_order: bool,
) -> None:
    n_players, games, lists = world
    month = FIRST + month_offset
    order = [n_players + 2 - p for p in range(n_players + 2)] if reverse_order else None
    ranking = fladub.compute_list(
        Sides.from_matches(games),
        month,
        as_published(lists),
        player_order=None if order is None else np.array(order),
    )
    expected = reference_list(games, month, lists, order or list(range(n_players + 2)))
    assert rows_of(ranking) == expected


@settings(max_examples=60, deadline=None)
@given(world=worlds(), month_offset=st.integers(0, 8), block_bits=st.integers(0, 2))
def test_best_twenty_sorted_in_many_blocks_equals_the_reference(
    world: World,
    month_offset: int,
    block_bits: int,
) -> None:
    # At full scale players with more than 20 results are sorted in blocks of 65,536; here
    # blocks of 1, 2 or 4 players make the small worlds cross block boundaries.
    n_players, games, lists = world
    month = FIRST + month_offset
    with mock.patch.object(fladub, "_SORT_BLOCK_BITS", block_bits):
        ranking = fladub.compute_list(Sides.from_matches(games), month, as_published(lists))
    assert rows_of(ranking) == reference_list(games, month, lists, list(range(n_players + 2)))


@settings(max_examples=100, deadline=None)
@given(world=worlds(), month_offset=st.integers(0, 8), data=st.data())
def test_reordering_rows_changes_nothing(
    world: World,
    month_offset: int,
    data: st.DataObject,
) -> None:
    _, games, lists = world
    sides = Sides.from_matches(games)
    shuffled = sides.take(np.array(data.draw(st.permutations(range(len(sides)))), dtype=np.int64))
    month = FIRST + month_offset
    published = as_published(lists)
    whole = fladub.player_totals(fladub.match_points(sides, published), month)
    again = fladub.player_totals(fladub.match_points(shuffled, published), month)
    assert again.equals(whole)  # exact units, not only the rounded cents
    assert fladub.compute_list(shuffled, month, published).equals(
        fladub.compute_list(sides, month, published)
    )


@settings(max_examples=100, deadline=None)
@given(world=worlds(), n_workers=st.integers(1, 5))
def test_split_by_worker_equals_the_single_run(world: World, n_workers: int) -> None:
    _, games, lists = world
    sides = Sides.from_matches(games)
    published = as_published(lists)
    for month in (FIRST + 3, FIRST + 6):
        whole_totals = fladub.player_totals(
            fladub.match_points(sides.in_window(month), published), month
        )
        parts = [
            fladub.compute_partial(
                fladub.sides_for_worker(sides, w, n_workers),
                month,
                published,
                worker=w,
                n_workers=n_workers,
            )
            for w in range(n_workers)
        ]
        merged = fladub.merge_totals(parts)
        assert merged.equals(whole_totals)
        split = fladub.rank_list(merged, month, previous=published.get(month - 1))
        assert split.equals(fladub.compute_list(sides, month, published))


@settings(max_examples=100, deadline=None)
@given(world=worlds(max_matches=30))
def test_a_results_contribution_never_grows_with_age(
    world: World,
) -> None:
    n_players, games, lists = world
    results = fladub.match_points(Sides.from_matches(games), as_published(lists))
    for player in range(n_players):
        seen: dict[int, float] = {}
        dropped: set[int] = set()
        for month in range(FIRST, FIRST + 19):
            breakdown = fladub.player_breakdown(results, player, month)
            now = dict(zip(breakdown.match_id.tolist(), breakdown.weighted.tolist(), strict=True))
            for match_id, before in seen.items():
                assert now.get(match_id, 0.0) <= before
            assert not dropped & set(now)  # a result that dropped out never comes back
            dropped |= set(seen) - set(now)
            seen = now
        assert seen == {}  # everything has dropped out 18 months after the last match


@settings(max_examples=100, deadline=None)
@given(world=worlds(), month_offset=st.integers(0, 8))
def test_no_new_results_a_month_later_means_nobody_higher(world: World, month_offset: int) -> None:
    _, games, lists = world
    month = FIRST + month_offset
    quiet = [g for g in games if g.counting_month != month + 1]  # nothing new counts in M+1
    lists = {m: listed for m, listed in lists.items() if m < month}
    closed = fladub.close_months(Sides.from_matches(quiet), [month, month + 1], as_published(lists))
    before = dict(
        zip(closed[month].player.tolist(), closed[month].fladub_cents.tolist(), strict=True)
    )
    after = closed[month + 1]
    for player, cents in zip(after.player.tolist(), after.fladub_cents.tolist(), strict=True):
        assert cents <= before[player]


@settings(max_examples=100, deadline=None)
@given(world=worlds(), month_offset=st.integers(0, 8))
def test_a_number_is_the_sum_of_at_most_twenty_listed_results(
    world: World, month_offset: int
) -> None:
    _, games, lists = world
    month = FIRST + month_offset
    published = as_published(lists)
    results = fladub.match_points(Sides.from_matches(games), published)
    ranking = fladub.compute_list(Sides.from_matches(games), month, published)
    for player, cents, counted in zip(
        ranking.player.tolist(),
        ranking.fladub_cents.tolist(),
        ranking.results_counted.tolist(),
        strict=True,
    ):
        breakdown = fladub.player_breakdown(results, player, month)
        assert len(breakdown.match_id) == counted
        assert int(breakdown.in_best.sum()) == min(counted, 20)
        assert breakdown.fladub_cents == cents
        best = breakdown.weighted[breakdown.in_best]
        assert (best[:, None] >= breakdown.weighted[~breakdown.in_best][None, :]).all()
