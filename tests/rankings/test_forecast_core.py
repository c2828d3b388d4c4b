"""The drop-out calendar's numbers (``rankings.selectors.forecast._totals_cents``): its one
call of the core over shifted copies of the results equals the core called month by month,
the way a close computes each of those lists, for any results (Hypothesis), busy players
with more than 20 scoring results among them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.months import Month
from rankings import fladub
from rankings.selectors.forecast import MONTHS_AHEAD, _totals_cents

START = Month(2026, 4)


def _month_by_month(now: Any, start: Month, count: int) -> list[int]:
    """The core once per list, on the results as they are (player 0)."""
    core = fladub.Results(
        match_id=now.match_id,
        month_played=now.month_played,
        counting_month=now.counting_month,
        player=np.zeros(len(now.match_id), dtype=np.int64),
        points=now.points,
    )
    numbers = []
    for ahead in range(count):
        totals = fladub.player_totals(core, (start + ahead).index)
        numbers.append(int(totals.fladub_cents[0]) if len(totals.player) else 0)
    return numbers


result = st.tuples(
    st.integers(min_value=-11, max_value=0),  # played, months before the start
    st.integers(min_value=0, max_value=3),  # counting this many months after it was played
    st.one_of(
        st.just(0.0),
        st.floats(min_value=0, max_value=fladub.MAX_POINTS, allow_nan=False),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(result, max_size=60))
def test_one_call_equals_a_call_per_month(rows: list[tuple[int, int, float]]) -> None:
    played = np.array([START.index + p for p, _, _ in rows], dtype=np.int32)
    now = SimpleNamespace(
        match_id=np.arange(1, len(rows) + 1, dtype=np.int64),
        month_played=played,
        counting_month=played + np.array([c for _, c, _ in rows], dtype=np.int32),
        points=np.array([x for _, _, x in rows], dtype=np.float64),
    )
    expected = _month_by_month(now, START, MONTHS_AHEAD)
    assert _totals_cents(now, START, MONTHS_AHEAD) == expected  # type: ignore[arg-type]


def test_a_busy_player_leaving_month_by_month() -> None:
    """Forty results a month for twelve months: the best 20 change as months leave."""
    rng = np.random.default_rng(7)
    played = np.repeat(np.arange(START.index - 11, START.index + 1, dtype=np.int32), 40)
    now = SimpleNamespace(
        match_id=np.arange(1, len(played) + 1, dtype=np.int64),
        month_played=played,
        counting_month=played.copy(),
        points=rng.uniform(0, fladub.MAX_POINTS, len(played)),
    )
    numbers = _totals_cents(now, START, MONTHS_AHEAD)  # type: ignore[arg-type]
    assert numbers == _month_by_month(now, START, MONTHS_AHEAD)
    assert numbers[0] > numbers[6] > numbers[-1] > 0
    assert _totals_cents(now, START + 12, 3) == [0, 0, 0]  # type: ignore[arg-type]
