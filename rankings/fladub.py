"""FLADUB, definition v1 (SPEC.md section 4), computed on column arrays: no Django, no I/O.

This module is the ranking job's core. A thin loader (PostgreSQL ``COPY`` into NumPy arrays)
feeds it; it hands back the list to publish. Nothing here touches a database, so it runs
the same in a test, a Celery worker or a notebook, and every step is vectorised NumPy: no
Python loop runs over rows or players (the loops that remain run over blocks of a million
rows, table sizes 2..9 and their pairs of seats, the months of a window, and blocks of
65,536 players).

Entry points
    :func:`compute_list` (one process), :func:`compute_partial` + :func:`merge_totals` +
    :func:`rank_list` (several workers), :func:`player_breakdown` (a player's page); the
    steps :func:`match_points`, :func:`opponent_strength`, :func:`player_totals`; and
    :func:`close_months`, :func:`round_half_away_cents`, :func:`month_index`.

Months
    An integer month index ``year * 12 + month - 1`` (:func:`month_index`), in the
    federation's time zone. ``month_played`` comes from the match date; ``counting_month`` is
    the month the result counts in (SPEC section 3: the played month when on time, the month
    received when late, never a closed month). The loader decides both; this module trusts
    them.

Players
    Non-negative ``int64`` indices. Per-player work uses arrays of ``max(player) + 1``
    entries, so pass a dense index or a serial primary key, not a hash. Within a shared rank
    the list is ordered by ``player_order[player]`` (ascending) when given, else by the index
    itself: pass the rank of the federation id text (``P-000123``) among all players, or
    number players in federation-id order and pass nothing.

Input 1, :class:`Sides`: one row per (match, side member) of the results in the window.
    ==============  =======  ===================================================
    match_id        int64    the match (any unique integer)
    month_played    int32    month index of the match date
    counting_month  int32    month index of the list the result first counts in
    base            float64  category base B: 10, 20, 40, 80, 160
    side_no         int16    the side within the match
    score           float64  the side's final score, higher is better
    player          int64    the member
    ==============  =======  ===================================================
    Results voided before the close are left out by the loader. ``base``, ``month_played``
    and ``counting_month`` are equal on every row of a match, ``score`` on every row of a
    side; a match has 2..9 sides; a player appears at most once per match. Rows ordered by
    ``(match_id, side_no, player)`` (the loader's ``ORDER BY``) are used as they come;
    any other order costs one sort and gives the identical result.

Input 2, published lists: ``Mapping[int, PublishedList]``, month index -> that month's list
    (players and their published FLADUB in integer cents). Opponent strength for a match
    played in month M reads the list of M - 1; a month missing from the mapping means "no
    such list": every q is 0. The previous rank and movement read the list of R - 1. For a
    close of R the loader passes the lists R - 12 .. R - 1.

Output, :class:`RankingList`: the rows of L(R) in list order (FLADUB descending, then player
    order), with ``fladub_cents``, ``rank`` (1 + the number of players with a strictly larger
    published FLADUB), ``results_counted`` (every counting result, not only the best 20),
    ``previous_rank`` (0 = new) and ``movement`` (previous - current, positive = up).

Exactness guarantees
    A result's weighted points ``pts * (12 - a) / 12`` are computed in float64 and then
    quantised to integer units of 2**-39 point (1.8e-12); per-player sums are taken on those
    integers, so they are exact and do not depend on row order, on how players are split
    across workers, or on summation order. Publication rounds half away from zero to cents
    with integer arithmetic, treating a value less than ``ROUNDING_SLACK_UNITS`` units
    (8.7e-11 point) below a half cent as the half cent: float64 evaluation and quantisation
    together err by less than 17 units, so a value that is exactly on a half cent (0.125,
    9.165) is never rounded down by representation error.

Scale out (SPEC section 6)
    Split the players by ``player % n_workers`` (:func:`worker_of`, trivially expressed in
    SQL). Worker w loads the full matches that involve one of its players
    (:func:`sides_for_worker` does the same in memory) and returns
    :func:`compute_partial`; :func:`merge_totals` joins the parts and :func:`rank_list`
    builds the list. Because the per-player sums are exact integers, the result equals the
    single-worker :func:`compute_list` bit for bit.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bool = npt.NDArray[np.bool_]

# The version of the definition this module computes (SPEC.md section 4), stored with every
# list it computed (rankings.seal): bump it when weights, best 20, rounding or ranks change.
DEFINITION_VERSION = "1"
WINDOW_MONTHS = 12
"""A result of age a = 0..11 weighs (12 - a) / 12; at 12 it drops out."""
BEST_OF = 20
"""F is the sum of a player's 20 largest weighted results."""
MIN_SIDES = 2
MAX_SIDES = 9
CATEGORY_BASE: Mapping[str, int] = {
    "club": 10,
    "league": 20,
    "national": 40,
    "international": 80,
    "world": 160,
}
MAX_POINTS = 2 * max(CATEGORY_BASE.values())
"""The most one result can be worth: beating only sides of strength 1 doubles B."""

UNIT_BITS = 39
UNITS_PER_POINT = 2**UNIT_BITS
# 20 results of at most 320 points are < 2**52 units: every partial sum is an integer that
# float64 holds exactly, so np.bincount's float accumulation is exact integer addition.
ROUNDING_SLACK_UNITS = 48
_HALF_CENT_X100 = 2 ** (UNIT_BITS - 1)  # half a cent, in units * 100
_SORT_VALUE_BITS = 48  # 320 * 2**39 < 2**48: a weighted result's units fit in 48 bits
_SORT_BLOCK_BITS = 64 - _SORT_VALUE_BITS  # so one sort block holds 65,536 players (or fewer)
_MAX_SORT_UNITS = (1 << _SORT_VALUE_BITS) - 1


def month_index(year: int, month: int) -> int:
    """The month index of a calendar month: ``year * 12 + month - 1``."""
    if not 1 <= month <= 12:
        raise ValueError(f"month {month} is not 1..12")
    return year * 12 + month - 1


def month_label(index: int) -> str:
    """``YYYY-MM`` of a month index."""
    year, month0 = divmod(int(index), 12)
    return f"{year:04d}-{month0 + 1:02d}"


def _column(values: Any, dtype: type[np.generic], name: str) -> Any:
    array = np.asarray(values, dtype=dtype)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def _same_length(owner: str, **columns: np.ndarray) -> None:
    lengths = {name: len(col) for name, col in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{owner} columns differ in length: {lengths}")


@dataclass(frozen=True, eq=False)
class Sides:
    """Input 1: one row per (match, side member). See the module docstring for the rules."""

    match_id: I64
    month_played: I32
    counting_month: I32
    base: F64
    side_no: I16
    score: F64
    player: I64

    def __post_init__(self) -> None:
        # Coerce once at the boundary; np.asarray copies nothing when the loader already
        # produced the documented dtypes.
        for name, dtype in (
            ("match_id", np.int64),
            ("month_played", np.int32),
            ("counting_month", np.int32),
            ("base", np.float64),
            ("side_no", np.int16),
            ("score", np.float64),
            ("player", np.int64),
        ):
            object.__setattr__(self, name, _column(getattr(self, name), dtype, name))
        _same_length("Sides", **self._columns())
        if len(self.player) and self.player.min() < 0:
            raise ValueError("player indices must be non-negative")

    def _columns(self) -> dict[str, np.ndarray]:
        return {
            "match_id": self.match_id,
            "month_played": self.month_played,
            "counting_month": self.counting_month,
            "base": self.base,
            "side_no": self.side_no,
            "score": self.score,
            "player": self.player,
        }

    @classmethod
    def empty(cls) -> Sides:
        """No rows (every column of its dtype, length 0)."""
        none: Any = np.zeros(0)
        return cls(none, none, none, none, none, none, none)

    def __len__(self) -> int:
        return len(self.player)

    def take(self, rows: I64 | Bool) -> Sides:
        """The sub-table of the given row indices or row mask."""
        return Sides(**{name: col[rows] for name, col in self._columns().items()})

    def in_window(self, month: int) -> Sides:
        """The rows that can count in L(month): counting month <= month, age 0..11.

        Whole matches are kept or dropped together because the months are per match.
        """
        age = month - self.month_played
        keep = (self.counting_month <= month) & (age >= 0) & (age < WINDOW_MONTHS)
        return self if keep.all() else self.take(keep)

    def is_canonical(self) -> bool:
        """True if rows are ordered by (match_id, side_no, player) with no repeated member.

        Checked once per instance (the columns never change; :meth:`take` makes a new one),
        in blocks of :data:`BLOCK_ROWS`, so that 12 million rows need no whole-column
        temporaries: the loader, the seal and :func:`match_points` all ask."""
        known = self.__dict__.get("_canonical")
        if known is None:
            known = _rows_canonical(self.match_id, self.side_no, self.player)
            object.__setattr__(self, "_canonical", known)
        return bool(known)

    def canonical(self) -> Sides:
        """The same rows ordered by (match_id, side_no, player): the order every sum uses."""
        if self.is_canonical():
            return self
        order = np.lexsort((self.player, self.side_no, self.match_id))
        return self.take(order)

    @classmethod
    def from_matches(cls, matches: Iterable[Match]) -> Sides:
        """Rows of a few matches given one by one (tests, demo data); loaders use arrays."""
        rows = [
            (m.match_id, m.month_played, m.counting_month, m.base, side_no, score, player)
            for m in matches
            for side_no, (score, players) in enumerate(m.sides)
            for player in players
        ]
        columns = list(zip(*rows, strict=True)) if rows else [()] * 7
        return cls(*(np.array(column) for column in columns))


def _rows_canonical(match_id: I64, side_no: I16, player: I64) -> bool:
    """Whether rows stand in strictly increasing (match_id, side_no, player) order."""
    n = len(match_id)
    for start in range(0, max(n - 1, 0), BLOCK_ROWS):
        this = slice(start, min(start + BLOCK_ROWS, n - 1))
        following = slice(this.start + 1, this.stop + 1)
        d_match = match_id[following] - match_id[this]
        if (d_match < 0).any():
            return False
        same_match = d_match == 0
        d_side = side_no[following].astype(np.int32) - side_no[this]
        if (same_match & (d_side < 0)).any():
            return False
        same_side = same_match & (d_side == 0)
        if (same_side & (player[following] <= player[this])).any():
            return False
    return True


@dataclass(frozen=True)
class Match:
    """One match for :meth:`Sides.from_matches`: its sides as (score, player indices)."""

    match_id: int
    month_played: int
    counting_month: int
    base: float
    sides: Sequence[tuple[float, Sequence[int]]]


@dataclass(frozen=True, eq=False)
class Results:
    """One row per (match, player): the match points ``pts(T)`` of the player's side."""

    match_id: I64
    month_played: I32
    counting_month: I32
    player: I64
    points: F64

    def __post_init__(self) -> None:
        for name, dtype in (
            ("match_id", np.int64),
            ("month_played", np.int32),
            ("counting_month", np.int32),
            ("player", np.int64),
            ("points", np.float64),
        ):
            object.__setattr__(self, name, _column(getattr(self, name), dtype, name))
        _same_length(
            "Results",
            match_id=self.match_id,
            month_played=self.month_played,
            counting_month=self.counting_month,
            player=self.player,
            points=self.points,
        )

    def __len__(self) -> int:
        return len(self.player)


@dataclass(frozen=True, eq=False)
class PublishedList:
    """Input 2: one published list L(M): its players and their FLADUB in integer cents.

    Players are unique and every ``fladub_cents`` is > 0 (only such players are listed).
    Integer cents make q_j = F_j / F_max one correctly rounded division, identical on every
    machine; use :meth:`from_fladub` when the loader reads ``numeric(.., 2)`` as float.
    """

    player: I64
    fladub_cents: I64

    def __post_init__(self) -> None:
        object.__setattr__(self, "player", _column(self.player, np.int64, "player"))
        object.__setattr__(
            self, "fladub_cents", _column(self.fladub_cents, np.int64, "fladub_cents")
        )
        _same_length("PublishedList", player=self.player, fladub_cents=self.fladub_cents)
        if len(self.fladub_cents) and self.fladub_cents.min() <= 0:
            raise ValueError("a published list holds only players with FLADUB > 0")

    @classmethod
    def from_fladub(cls, player: Any, fladub: Any) -> PublishedList:
        """From published 2-decimal numbers (``9.17``): cents are ``rint(fladub * 100)``."""
        cents = np.rint(np.asarray(fladub, dtype=np.float64) * 100).astype(np.int64)
        return cls(player=np.asarray(player, dtype=np.int64), fladub_cents=cents)

    def __len__(self) -> int:
        return len(self.player)

    def ranks(self) -> I64:
        """Each player's rank in this list (aligned with ``player``): 1 + strictly larger."""
        cents = self.fladub_cents
        if not len(cents) or cents.max() >= 1 << 24:
            ascending = np.sort(cents)
            larger = len(cents) - np.searchsorted(ascending, cents, side="right")
            return (larger + 1).astype(np.int64)
        # Cents are small integers: counting them beats sorting (and a binary search each).
        at_most = np.cumsum(np.bincount(cents))
        return (len(cents) - at_most[cents] + 1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class PlayerTotals:
    """Per player (ascending, unique): exact FLADUB in units and the number of counting results.

    ``units`` is the sum of the player's 20 largest quantised weighted results, in units of
    2**-39 point. Players with counting results but F = 0 are included (they are counted and
    simply not listed).
    """

    player: I64
    units: I64
    results_counted: I64

    @property
    def fladub_cents(self) -> I64:
        return cents_from_units(self.units)

    def equals(self, other: PlayerTotals) -> bool:
        return (
            np.array_equal(self.player, other.player)
            and np.array_equal(self.units, other.units)
            and np.array_equal(self.results_counted, other.results_counted)
        )


@dataclass(frozen=True, eq=False)
class RankingList:
    """L(month), in list order. ``previous_rank`` is 0 for a player new to the list."""

    month: int
    player: I64
    fladub_cents: I64
    rank: I64
    results_counted: I64
    previous_rank: I64

    def __len__(self) -> int:
        return len(self.player)

    @property
    def fladub(self) -> F64:
        """The published numbers as float (``917 -> 9.17``); store ``fladub_cents`` exactly."""
        return self.fladub_cents / 100.0

    @property
    def is_new(self) -> Bool:
        return self.previous_rank == 0

    @property
    def movement(self) -> I64:
        """previous_rank - rank (positive = moved up); 0 where ``is_new`` (shown as "new")."""
        return np.where(self.is_new, 0, self.previous_rank - self.rank).astype(np.int64)

    def to_published(self) -> PublishedList:
        """This list as the input of later closes."""
        return PublishedList(player=self.player, fladub_cents=self.fladub_cents)

    def to_frame(self) -> pd.DataFrame:
        """A pandas frame (e.g. for ``COPY FROM``); ``previous_rank`` and ``movement`` are
        nullable integers, missing for new players."""
        import pandas as pd

        new = self.is_new
        return pd.DataFrame(
            {
                "rank": self.rank,
                "player": self.player,
                "fladub_cents": self.fladub_cents,
                "results_counted": self.results_counted,
                "previous_rank": pd.Series(self.previous_rank, dtype="Int64").mask(new),
                "movement": pd.Series(self.movement, dtype="Int64").mask(new),
            }
        )

    def equals(self, other: RankingList) -> bool:
        return self.month == other.month and all(
            np.array_equal(getattr(self, name), getattr(other, name))
            for name in ("player", "fladub_cents", "rank", "results_counted", "previous_rank")
        )


@dataclass(frozen=True, eq=False)
class Breakdown:
    """One player's counting results in L(month), best first: what their number is made of.

    ``in_best`` marks the (at most) 20 results summed; among equal weighted values the lower
    match id is taken, which changes no sum.
    """

    month: int
    player: int
    match_id: I64
    month_played: I32
    counting_month: I32
    points: F64
    age: I64
    weight_twelfths: I64
    weighted: F64
    in_best: Bool

    @property
    def weight(self) -> F64:
        return self.weight_twelfths / float(WINDOW_MONTHS)

    @property
    def fladub_cents(self) -> int:
        """Equal to the player's ``fladub_cents`` in L(month) (same quantised sum)."""
        units = _quantise(self.weighted[self.in_best]).sum()
        return int(cents_from_units(np.array([units], dtype=np.int64))[0])


# --- rounding -------------------------------------------------------------------------------


def cents_from_units(units: Any) -> I64:
    """Round units (2**-39 point) to cents, half away from zero, in exact integer arithmetic.

    A value within ``ROUNDING_SLACK_UNITS`` below a half cent counts as the half cent: the
    float64 error of a quantised sum of 20 results stays below 17 units (see the module
    docstring), so an exact half cent such as 0.125 or 9.165 always rounds up.
    """
    units = np.asarray(units, dtype=np.int64)
    magnitude = np.abs(units)
    cents = (magnitude * 100 + (_HALF_CENT_X100 + 100 * ROUNDING_SLACK_UNITS)) >> UNIT_BITS
    return np.where(units < 0, -cents, cents).astype(np.int64)


def round_half_away_cents(value: Any) -> I64:
    """Cents of FLADUB-sized floats (|x| < 100,000), half away from zero: 0.125 -> 13."""
    x = np.asarray(value, dtype=np.float64)
    if x.size and not np.all(np.abs(x) < 100_000):
        raise ValueError("round_half_away_cents takes finite values below 100,000")
    return cents_from_units(np.rint(x * UNITS_PER_POINT).astype(np.int64))


def _quantise(weighted: F64) -> F64:
    """Weighted points as integral units, kept in float64 (exact below 2**53) for bincount.

    Works in place (it is called on fresh arrays only): at 12 million rows a new array
    costs about as much as the arithmetic.
    """
    weighted *= UNITS_PER_POINT
    return np.rint(weighted, out=weighted)


def _weighted(points: F64, twelfths: npt.NDArray[np.integer[Any]]) -> F64:
    # One expression shared by the list and the breakdown so both see the same float:
    # pts * (12 - a) / 12, in that order.
    weighted = points * twelfths
    weighted /= WINDOW_MONTHS
    return weighted


# --- match points ---------------------------------------------------------------------------

BLOCK_ROWS = 1 << 20
"""Match points are computed a block of about this many rows (whole matches) at a time:
temporaries of a few MB are reused from the heap and stay in cache, where whole-table
temporaries would cost a page fault per 4 KiB (as much time as the arithmetic)."""
_MAX_STRENGTH_TABLE = 1 << 27  # (months x players) entries: 1 GiB of float64


class _Strength:
    """q_j in L(M - 1) for every (player, month played) of a set of rows."""

    def __init__(
        self, player: I64, month_played: I32, published: Mapping[int, PublishedList]
    ) -> None:
        self.size = int(player.max()) + 1 if len(player) else 0
        self.first = int(month_played.min()) if len(player) else 0
        last = int(month_played.max()) if len(player) else -1
        self.months = [m for m in range(self.first, last + 1) if len(published.get(m - 1, ()))]
        self.by_month = {m: self._table(published[m - 1]) for m in self.months}
        self.stacked: F64 | None = None
        if self.months and (last - self.first + 1) * self.size <= _MAX_STRENGTH_TABLE:
            # A close's window spans 12 months: one gather through a (month, player) table
            # of 12 x players floats (96 MB at a million) beats a masked pass per month.
            stacked = np.zeros((last - self.first + 1, self.size), dtype=np.float64)
            for month, table in self.by_month.items():
                stacked[month - self.first] = table
            self.stacked = stacked.ravel()
            self.by_month = {}

    def _table(self, listed: PublishedList) -> F64:
        table = np.zeros(self.size, dtype=np.float64)
        inside = listed.player < self.size  # listed players absent from the rows need no q
        table[listed.player[inside]] = listed.fladub_cents[inside] / listed.fladub_cents.max()
        return table

    def lookup(self, player: I64, month_played: I32) -> F64:
        if self.stacked is not None:
            index = month_played.astype(np.int64)
            index -= self.first
            index *= self.size
            index += player
            return self.stacked.take(index)
        q = np.zeros(len(player), dtype=np.float64)
        for month, table in self.by_month.items():
            rows = np.flatnonzero(month_played == month)
            q[rows] = table[player[rows]]
        return q


def opponent_strength(
    player: I64, month_played: I32, published: Mapping[int, PublishedList]
) -> F64:
    """q of each row's player: F_j / F_max in L(month_played - 1), 0 if absent or no list."""
    player = np.asarray(player, dtype=np.int64)
    month_played = np.asarray(month_played, dtype=np.int32)
    return _Strength(player, month_played, published).lookup(player, month_played)


def match_points(sides: Sides, published: Mapping[int, PublishedList]) -> Results:
    """pts(T) for every row: B * sum over U != T of S_TU * (1 + q_U) / (k - 1).

    Rows come back in (match_id, side_no, player) order. Any set of complete matches may be
    passed: a match's points depend on that match and the published lists only.
    """
    sides = sides.canonical()
    n = len(sides)
    points = np.empty(n, dtype=np.float64)
    if n and (sides.base.min() < 0 or sides.base.max() > max(CATEGORY_BASE.values())):
        raise ValueError("base B must lie in 0..160")
    strength = _Strength(sides.player, sides.month_played, published)
    match_id = sides.match_id
    # Blocks end where a match begins, so that every block holds whole matches.
    cuts = np.searchsorted(match_id, match_id[BLOCK_ROWS:n:BLOCK_ROWS], side="left")
    edges = [0, *sorted(set(cuts.tolist()) - {0}), n] if n else [0]
    for lo, hi in itertools.pairwise(edges):
        block = slice(lo, hi)
        points[block] = _block_points(
            match_id[block],
            sides.side_no[block],
            sides.score[block],
            sides.base[block],
            strength.lookup(sides.player[block], sides.month_played[block]),
        )
    return Results(
        match_id=match_id,
        month_played=sides.month_played,
        counting_month=sides.counting_month,
        player=sides.player,
        points=points,
    )


def _block_points(match_id: I64, side_no: I16, score: F64, base: F64, q: F64) -> F64:
    """Match points of the rows of whole matches in canonical order (``q`` per row)."""
    n = len(match_id)
    new_side = np.empty(n, dtype=bool)
    new_side[0] = True
    np.not_equal(match_id[1:], match_id[:-1], out=new_side[1:])
    new_side[1:] |= side_no[1:] != side_no[:-1]
    members: I64 | None = None
    if new_side.all():
        # Every side is one player (most tables): sides are rows, no regrouping needed.
        one_plus_q, side_match = q, match_id
    else:
        side_start = np.flatnonzero(new_side)
        members = np.diff(side_start, append=n)
        # A team's strength is the mean of its members' q, summed in player order.
        one_plus_q = np.add.reduceat(q, side_start)
        one_plus_q /= members
        score, base, side_match = score[side_start], base[side_start], match_id[side_start]
    one_plus_q += 1.0

    n_sides = len(score)
    new_match = np.empty(n_sides, dtype=bool)
    new_match[0] = True
    np.not_equal(side_match[1:], side_match[:-1], out=new_match[1:])
    match_start = np.flatnonzero(new_match)
    k_match = np.diff(match_start, append=n_sides)
    if k_match.min() < MIN_SIDES or k_match.max() > MAX_SIDES:
        wrong = (k_match < MIN_SIDES) | (k_match > MAX_SIDES)
        bad = side_match[match_start[np.flatnonzero(wrong)[0]]]
        raise ValueError(f"match {bad} does not have {MIN_SIDES}..{MAX_SIDES} sides")

    # Matches of the same size k form a (k, matches) table; every unordered pair of seats
    # (a, b) is then one vectorised step over all those matches, both directions at once:
    # k(k-1)/2 steps per size, no work on pairs that do not exist.
    points = np.empty(n_sides, dtype=np.float64)
    for k in np.flatnonzero(np.bincount(k_match)).tolist():
        start = match_start[k_match == k]
        seat = np.arange(k)[:, None] + start  # (k, matches): seat a of every k-table
        seat_score, seat_q = score[seat], one_plus_q[seat]
        earned = np.zeros(seat.shape, dtype=np.float64)
        s = np.empty(len(start), dtype=np.float64)
        for a in range(k):
            for b in range(a + 1, k):
                # S = 1, 1/2, 0 as a's score is higher, equal, lower: sign(diff)/2 + 1/2.
                np.subtract(seat_score[a], seat_score[b], out=s)
                np.sign(s, out=s)
                s *= 0.5
                s += 0.5
                earned[a] += s * seat_q[b]
                np.subtract(1.0, s, out=s)
                earned[b] += s * seat_q[a]
        earned *= base[start]
        earned /= k - 1
        points[seat] = earned
    return points if members is None else np.repeat(points, members)


# --- the list -------------------------------------------------------------------------------


def _counting(results: Results, month: int) -> Bool:
    age = month - results.month_played
    return (results.counting_month <= month) & (age >= 0) & (age < WINDOW_MONTHS)


def _best_sums(player: I64, units: F64, size: int) -> tuple[I64, I64]:
    """Per player index: (number of rows, exact sum of the BEST_OF largest units)."""
    counts: I64 = np.bincount(player, minlength=size).astype(np.int64, copy=False)
    # A zero (a loss) never changes a top-20 sum, so only players with more than 20
    # positive results need their values sorted; for everyone else the sum of all their
    # values is the answer, and one bincount gives it exactly (at most 20 terms < 2**48).
    positive = units > 0
    scoring = np.bincount(player, weights=positive, minlength=size).astype(np.int64)
    many = scoring > BEST_OF
    summed = np.bincount(player, weights=units, minlength=size)
    summed[many] = 0.0  # replaced below; at scale such a sum could pass 2**63
    sums = summed.astype(np.int64)
    if not many.any():
        return counts, sums
    rows = many[player]
    rows &= positive
    del positive
    big_units = units[rows]
    dense = (np.cumsum(many) - 1)[player[rows]]  # rank among the big players
    del rows

    # Sort the big rows by (player, value descending) as one packed uint64 key: 16 bits of
    # player within a block of 65,536, 48 bits of inverted value. A plain SIMD np.sort of
    # keys is several times faster than an argsort or lexsort of the rows.
    key = (dense & ((1 << _SORT_BLOCK_BITS) - 1)).astype(np.uint64)
    key <<= np.uint64(_SORT_VALUE_BITS)
    key |= (float(_MAX_SORT_UNITS) - big_units).astype(np.uint64)  # exact: integers < 2**48
    del big_units
    block = dense >> _SORT_BLOCK_BITS
    del dense
    big_players = np.flatnonzero(many)
    big_counts = scoring[big_players]
    best = np.empty(len(big_players), dtype=np.int64)
    seat = np.arange(BEST_OF)
    n_blocks = ((len(big_players) - 1) >> _SORT_BLOCK_BITS) + 1
    for b in range(n_blocks):
        part = key if n_blocks == 1 else key[block == b]
        part.sort()
        # Groups come in dense order and each has more than 20 rows, so a player's best
        # 20 are the 20 keys from the start of its group.
        players = slice(b << _SORT_BLOCK_BITS, (b + 1) << _SORT_BLOCK_BITS)
        group_size = big_counts[players]
        group_start = np.cumsum(group_size) - group_size
        top = part[(group_start[:, None] + seat).ravel()]
        top &= np.uint64(_MAX_SORT_UNITS)
        inverted_sum = top.reshape(-1, BEST_OF).sum(axis=1, dtype=np.uint64).astype(np.int64)
        best[players] = BEST_OF * _MAX_SORT_UNITS - inverted_sum
    sums[big_players] = best
    return counts, sums


def player_totals(
    results: Results, month: int, *, worker: int | None = None, n_workers: int = 1
) -> PlayerTotals:
    """Exact F (in units) and results counted, per player, in L(month).

    With ``worker`` given, only the players with ``player % n_workers == worker``; their
    results must all be present in ``results``.
    """
    keep = _counting(results, month)
    if worker is not None:
        keep &= worker_of(results.player, n_workers) == worker
    if keep.all():
        # The loader selected exactly the window: use its arrays, no copy.
        player, points, played = results.player, results.points, results.month_played
    else:
        rows = np.flatnonzero(keep)
        player, points = results.player[rows], results.points[rows]
        played = results.month_played[rows]
    del keep
    if not len(player):
        empty = np.zeros(0, dtype=np.int64)
        return PlayerTotals(player=empty, units=empty, results_counted=empty)
    weighted = _weighted(points, played - (month - WINDOW_MONTHS))  # 12 - age
    if weighted.min() < 0 or weighted.max() > MAX_POINTS:
        raise ValueError(f"match points must lie in 0..{MAX_POINTS}")
    counts, sums = _best_sums(player, _quantise(weighted), int(player.max()) + 1)
    present = np.flatnonzero(counts)
    return PlayerTotals(
        player=present.astype(np.int64),
        units=sums[present],
        results_counted=counts[present].astype(np.int64),
    )


def merge_totals(parts: Sequence[PlayerTotals]) -> PlayerTotals:
    """Join the totals of disjoint player sets (one per worker) into one."""
    player = np.concatenate([p.player for p in parts]) if parts else np.zeros(0, np.int64)
    order = np.argsort(player, kind="stable")
    player = player[order]
    if len(player) > 1 and (np.diff(player) == 0).any():
        raise ValueError("the parts overlap: a player appears in two of them")
    return PlayerTotals(
        player=player.astype(np.int64),
        units=np.concatenate([p.units for p in parts])[order].astype(np.int64),
        results_counted=np.concatenate([p.results_counted for p in parts])[order].astype(np.int64),
    )


def rank_list(
    totals: PlayerTotals,
    month: int,
    *,
    previous: PublishedList | None = None,
    player_order: I64 | None = None,
) -> RankingList:
    """L(month) from the per-player totals: published F > 0, F descending, then player order.

    ``previous`` is L(month - 1) (None: everyone is new). ``player_order`` is indexed by
    player and holds distinct non-negative integers (e.g. the rank of the federation id).
    """
    cents_all = totals.fladub_cents
    listed = cents_all > 0
    player = totals.player[listed]
    cents = cents_all[listed]
    counted = totals.results_counted[listed]
    tiebreak = player if player_order is None else np.asarray(player_order, np.int64)[player]
    if len(cents) and cents.max() < 1 << 20 and tiebreak.min() >= 0 and tiebreak.max() < 1 << 43:
        # One int64 key (F descending in the high bits, player order below) sorts about
        # three times faster than a two-key lexsort; FLADUB stays below 6,400.00 anyway.
        order = np.argsort(((1 << 20) - 1 - cents) << 43 | tiebreak)
    else:
        order = np.lexsort((tiebreak, -cents))
    player, cents, counted = player[order], cents[order], counted[order]

    n = len(player)
    position = np.arange(n, dtype=np.int64)
    first_of_value = np.ones(n, dtype=bool)
    if n:
        np.not_equal(cents[1:], cents[:-1], out=first_of_value[1:])
    # In descending order, the players above the first of a value are exactly those with a
    # strictly larger F: its position + 1 is everyone's rank in that run (1, 2, 2, 4).
    rank = np.maximum.accumulate(np.where(first_of_value, position, 0)) + 1

    previous_rank = np.zeros(n, dtype=np.int64)
    if previous is not None and len(previous) and n:
        size = max(int(player.max()), int(previous.player.max())) + 1
        table = np.zeros(size, dtype=np.int64)
        table[previous.player] = previous.ranks()
        previous_rank = table[player]
    return RankingList(
        month=month,
        player=player.astype(np.int64),
        fladub_cents=cents.astype(np.int64),
        rank=rank.astype(np.int64),
        results_counted=counted.astype(np.int64),
        previous_rank=previous_rank,
    )


def compute_list(
    sides: Sides,
    month: int,
    published: Mapping[int, PublishedList],
    *,
    player_order: I64 | Callable[[], I64 | None] | None = None,
) -> RankingList:
    """L(month) in one process: match points, per-player totals, the ranked list.

    ``player_order`` may be a function returning it, called only once the totals are
    summed (the close reads the order from the database meanwhile)."""
    results = match_points(sides.in_window(month), published)
    return list_of_results(results, month, published, player_order=player_order)


def list_of_results(
    results: Results,
    month: int,
    published: Mapping[int, PublishedList],
    *,
    player_order: I64 | Callable[[], I64 | None] | None = None,
) -> RankingList:
    """L(month) from the match points of its window (:func:`compute_list` after
    :func:`match_points`)."""
    totals = player_totals(results, month)
    del results
    return rank_list(
        totals,
        month,
        previous=published.get(month - 1),
        player_order=player_order() if callable(player_order) else player_order,
    )


def close_months(
    sides: Sides,
    months: Sequence[int],
    published: Mapping[int, PublishedList] | None = None,
    *,
    player_order: I64 | None = None,
) -> dict[int, RankingList]:
    """Close consecutive months in turn, each list feeding the next one's opponent strength.

    For tests, demo data and rebuilding history; the service closes one month at a time.
    """
    lists: dict[int, PublishedList] = dict(published or {})
    closed: dict[int, RankingList] = {}
    for month in months:
        ranking = compute_list(sides, month, lists, player_order=player_order)
        closed[month] = ranking
        lists[month] = ranking.to_published()
    return closed


# --- scale out ------------------------------------------------------------------------------


def worker_of(player: Any, n_workers: int) -> I64:
    """The worker that owns each player: ``player % n_workers`` (in SQL: ``player_id % n``)."""
    if n_workers < 1:
        raise ValueError("n_workers must be >= 1")
    return np.asarray(player, dtype=np.int64) % n_workers


def sides_for_worker(sides: Sides, worker: int, n_workers: int) -> Sides:
    """The rows of every match in which at least one of the worker's players took part.

    A loader does the same in SQL: ``WHERE match_id IN (SELECT match_id FROM ... WHERE
    player_id % n = w)``; the matches are needed whole because a side's points depend on
    every other side of its table.
    """
    mine = worker_of(sides.player, n_workers) == worker
    return sides.take(np.isin(sides.match_id, np.unique(sides.match_id[mine])))


def compute_partial(
    sides: Sides,
    month: int,
    published: Mapping[int, PublishedList],
    *,
    worker: int,
    n_workers: int,
) -> PlayerTotals:
    """One worker's share: the totals of its players (``sides`` holds their whole matches)."""
    results = match_points(sides.in_window(month), published)
    return player_totals(results, month, worker=worker, n_workers=n_workers)


# --- one player's page ----------------------------------------------------------------------


def player_breakdown(results: Results, player: int, month: int) -> Breakdown:
    """Every result of ``player`` that counts in L(month), with its age and weight, best first."""
    rows = np.flatnonzero((results.player == player) & _counting(results, month))
    age = (month - results.month_played[rows]).astype(np.int64)
    points = results.points[rows]
    weighted = _weighted(points, WINDOW_MONTHS - age)
    match_id = results.match_id[rows]
    order = np.lexsort((match_id, -weighted))
    return Breakdown(
        month=month,
        player=player,
        match_id=match_id[order],
        month_played=results.month_played[rows][order],
        counting_month=results.counting_month[rows][order],
        points=points[order],
        age=age[order],
        weight_twelfths=(WINDOW_MONTHS - age[order]).astype(np.int64),
        weighted=weighted[order],
        in_best=np.arange(len(rows)) < BEST_OF,
    )
