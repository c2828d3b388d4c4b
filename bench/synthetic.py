"""The synthetic federation the close benchmarks compute: tables and who sat at them.

:func:`synthetic_tables` draws, from a NumPy generator, matches with 2 to 9 sides (table
sizes roughly as a club evening looks: four players most often), some of them teams of
two, and a skewed activity (a few players play several tables a week, many play rarely),
a player sitting at most once at a table. Out: :class:`Tables`, one row per result in
(match, side, player) order, as the rows of a match are inserted. Both the database
generator (``bench/close_data.py``) and the core-only benchmark (``bench/fladub_core.py``)
draw their tables here, so they time the same federation; each goes on drawing the rest
(months, scores, bases) from the same generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_SIZES = np.array([2, 3, 4, 5, 6, 7, 8, 9])
_SIZE_WEIGHTS = np.array([0.22, 0.15, 0.45, 0.06, 0.05, 0.03, 0.02, 0.02])


@dataclass(frozen=True)
class Tables:
    n_matches: int
    sides: np.ndarray
    """Sides per match."""
    match_of_row: np.ndarray
    side: np.ndarray
    """The row's side, from 0."""
    player: np.ndarray


def synthetic_tables(
    rng: np.random.Generator, *, n_players: int, n_rows: int, player_bits: int
) -> Tables:
    """About ``n_rows`` results of ``n_players`` players; player ids are packed into
    ``player_bits`` bits while sorting (so ``n_players`` must fit)."""
    n_matches = int(n_rows / 3.9) + 1000
    k = rng.choice(_SIZES, size=n_matches, p=_SIZE_WEIGHTS)
    team = np.where((k <= 4) & (rng.random(n_matches) < 0.1), 2, 1)
    members = k * team
    n_matches = int(np.searchsorted(np.cumsum(members), n_rows, side="right"))
    k, members = k[:n_matches], members[:n_matches]
    n = int(members.sum())

    activity = rng.lognormal(0.0, 1.1, n_players)
    cdf = np.cumsum(activity / activity.sum())
    match_of_row = np.repeat(np.arange(n_matches, dtype=np.int64), members)
    player = np.minimum(np.searchsorted(cdf, rng.random(n)), n_players - 1).astype(np.int64)
    mask = (1 << player_bits) - 1
    while True:  # redraw repeats until nobody sits twice at a table
        key = np.sort(match_of_row << player_bits | player)
        repeated = np.flatnonzero(np.diff(key) == 0) + 1
        if not len(repeated):
            break
        player = key & mask
        player[repeated] = rng.integers(0, n_players, len(repeated))
        match_of_row = key >> player_bits
    position = np.arange(n) - np.repeat(np.cumsum(members) - members, members)
    side = position % np.repeat(k, members)
    key = np.sort(match_of_row << (player_bits + 4) | side << player_bits | player)
    return Tables(
        n_matches=n_matches,
        sides=k,
        match_of_row=key >> (player_bits + 4),
        side=(key >> player_bits) & 15,
        player=key & mask,
    )
