"""What the first close after the result packs' upgrade does with its 12 million rows, held
to what the plain code computes: the rows read put in canonical order column by column
(``rankings.loader._fresh_sides``), and the missing points scored on views of one run of
rows or on a copy of scattered ones (``rankings.result_packs.Assembled.score_missing``),
in canonical order or not. No database."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankings import fladub, loader, result_packs
from rankings.fladub import Sides
from tests.rankings.test_fladub_properties import World, as_published, worlds


def _columns(sides: Sides) -> dict[str, np.ndarray]:
    return {name: getattr(sides, name) for name in loader._SIDE_OUT}


def _match_permutation(sides: Sides, rng: np.random.Generator) -> np.ndarray:
    """A permutation of the rows that shuffles whole matches and the rows inside each."""
    matches = np.unique(sides.match_id)
    rank = np.empty(len(matches), dtype=np.int64)
    rank[rng.permutation(len(matches))] = np.arange(len(matches))
    of_row = rank[np.searchsorted(matches, sides.match_id)]
    return np.lexsort((rng.random(len(sides)), of_row))


@settings(max_examples=80, deadline=None)
@given(world=worlds(), seed=st.integers(0, 2**32 - 1))
def test_the_rows_read_come_out_in_canonical_order_with_their_void_months(
    world: World, seed: int
) -> None:
    _, games, _ = world
    sides = Sides.from_matches(games)
    rng = np.random.default_rng(seed)
    shuffled = sides.take(rng.permutation(len(sides)))
    void = rng.integers(0, 3, len(sides)).astype(np.int32) + shuffled.counting_month
    out = {**_columns(shuffled), "void_month": void.copy()}
    got, got_void = loader._fresh_sides(out)

    order = np.lexsort((shuffled.player, shuffled.side_no, shuffled.match_id))
    expected_void = np.where(void == shuffled.counting_month, loader.NO_VOID, void)[order]
    assert got.is_canonical()
    for name, column in _columns(shuffled.take(order)).items():
        assert getattr(got, name).dtype == column.dtype, name
        assert np.array_equal(getattr(got, name), column), name
    assert np.array_equal(got_void, expected_void)


@settings(max_examples=120, deadline=None)
@given(
    world=worlds(),
    seed=st.integers(0, 2**32 - 1),
    missing=st.sampled_from(["none", "all", "run", "scattered"]),
    shuffle=st.booleans(),
)
def test_the_missing_points_are_those_match_points_computes(
    world: World, seed: int, missing: str, shuffle: bool
) -> None:
    _, games, lists = world
    published = as_published(lists)
    rng = np.random.default_rng(seed)
    sides = Sides.from_matches(games)
    if shuffle:  # whole matches out of order, and their rows too (pieces of packs)
        sides = sides.take(_match_permutation(sides, rng))
    points = np.empty(len(sides))
    if len(sides):
        order = np.lexsort((sides.player, sides.side_no, sides.match_id))
        points[order] = fladub.match_points(sides, published).points
    window = result_packs.Assembled.of_rows(sides, np.full(len(sides), result_packs.NO_VOID))
    window.points[:] = points

    matches = np.unique(sides.match_id)
    if missing == "all":
        unknown = np.ones(len(sides), dtype=bool)
    elif missing == "run" and len(sides):  # from a match's first row on: whole matches,
        # since a match's rows stand together, shuffled or not
        first_match = sides.match_id[int(rng.integers(0, len(sides)))]
        first = int(np.flatnonzero(sides.match_id == first_match)[0])
        unknown = np.arange(len(sides)) >= first
    elif missing == "scattered":
        unknown = np.isin(sides.match_id, matches[rng.random(len(matches)) < 0.4])
    else:
        unknown = np.zeros(len(sides), dtype=bool)
    window.points[unknown] = np.nan

    assert window.score_missing(published) == int(unknown.sum())
    assert window.points.tobytes() == points.tobytes()


def test_a_run_of_rows_is_scored_on_views_of_the_window() -> None:
    sides = Sides.from_matches(
        fladub.Match(m, 24_300, 24_300, 10, [(m % 3, [2 * m]), (1, [2 * m + 1])]) for m in range(50)
    )
    window = result_packs.Assembled.of_rows(sides, np.full(len(sides), result_packs.NO_VOID))
    seen: list[Sides] = []
    real = fladub.match_points

    def spy(sides: Sides, published: object) -> fladub.Results:
        seen.append(sides)
        return real(sides, published)  # type: ignore[arg-type]

    with mock.patch.object(fladub, "match_points", spy):
        assert window.score_missing({}) == len(sides)
    assert np.shares_memory(seen[0].player, window.player)
    assert np.shares_memory(seen[0].match_id, window.match_id)
    assert not np.isnan(window.points).any()
