"""Why did I move: a player's change of FLADUB between two lists, in named parts that add up
exactly. Pure (no Django, no I/O); the reader is :mod:`rankings.selectors.ledger`.

In: the player's counting results in L(R - 1) and in L(R) (:class:`Held`: each result's
quantised weighted points in that list, in units of 2**-39 point as :mod:`rankings.fladub`
sums them, and whether it is among the best 20), the keys of the results that left the
window (played in R - 12), and the two published numbers in cents (``from``: L(R - 1),
0 if not listed; ``to``: L(R), 0 if not listed). Out: :class:`Ledger`.

The identity. With A the best 20 of L(R - 1) and B those of L(R), weights w' (in R - 1)
and w (in R), every result of A either left the window (set Lw), was voided or corrected
away (V: in L(R - 1), gone from L(R) and not by age; a correction's new revision counts
here too, with its own value, rather than among the new results), or still counts (K,
split into K_in, still among the best 20, and K_out, pushed out); B is K_in, new results
N_in and results of L(R - 1) outside A pushed back in (P). Then exactly::

    F(R) - F(R - 1) = -sum_Lw w' - sum_V w' + sum_K (w - w') - sum_K_out w
                      + sum_P w + sum_N_in w

Each sum is a part (``left``, ``voided``, ``aged``, ``pushed_out``, ``pushed_in``,
``new``), computed on integer units (exact). A part is turned into cents by rounding the
running total: part k is ``cents(U_A + parts 1..k) - cents(U_A + parts 1..k-1)``, so the
cents of the parts add up to ``cents(U_B) - cents(U_A)`` to the last cent whatever the
rounding. What the stored results no longer explain (a merge of two player records after
a list was published, anything changed retroactively) is the part ``merged``:
``(cents(U_A) - from) + (to - cents(U_B))``. So the parts always sum to ``to - from``.

Opponent strength needs no part of its own in FLADUB v1: a result's match points read the
list of the month before it was played, which never changes, so a result is worth the same
in every list but for its weight (the ageing part); it is part of each new result's amount.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

import numpy as np

from . import fladub

K = TypeVar("K")

KINDS = ("merged", "voided", "left", "aged", "pushed_out", "pushed_in", "new")
"""The kinds of part, in the order they are applied (and listed)."""


class Held(NamedTuple):
    """A result as a list holds it: its quantised weighted points and whether it is summed.
    A named tuple, not a frozen data class: a busy player's ledger makes 1,300 of them a
    list, and a tuple is made in half the time (0.56 -> 0.28 ms a list)."""

    units: int
    in_best: bool


@dataclass(frozen=True)
class Part(Generic[K]):
    kind: str
    cents: int
    units: int
    """The exact amount in units of 2**-39 point (0 for ``merged``, which is in cents)."""
    results: tuple[K, ...] = ()


@dataclass(frozen=True)
class Ledger(Generic[K]):
    from_cents: int
    to_cents: int
    parts: tuple[Part[K], ...] = field(default=())

    @property
    def change_cents(self) -> int:
        return self.to_cents - self.from_cents

    def part(self, kind: str) -> Part[K] | None:
        return next((p for p in self.parts if p.kind == kind), None)


def _cents(units: int) -> int:
    return int(fladub.cents_from_units(np.array([units], dtype=np.int64))[0])


def _best_units(held: Mapping[K, Held]) -> int:
    return sum(h.units for h in held.values() if h.in_best)


def decompose(
    before: Mapping[K, Held],
    after: Mapping[K, Held],
    *,
    left: Iterable[K],
    from_cents: int,
    to_cents: int,
    corrections: Iterable[K] = (),
) -> Ledger[K]:
    """The parts of ``to_cents - from_cents`` (see the module docstring). Parts that are
    zero and name no result are left out; ``merged`` appears only when non-zero.

    ``corrections``: results of L(R) that are corrected revisions of a result of
    L(R - 1); they count in ``voided`` ("voided or corrected"), not in ``new``."""
    revised = set(corrections)
    left_window = set(left)
    sums: dict[str, int] = dict.fromkeys(KINDS, 0)
    named: dict[str, list[K]] = {kind: [] for kind in KINDS}

    def add(kind: str, key: K, units: int) -> None:
        sums[kind] += units
        named[kind].append(key)

    for key, was in before.items():
        now = after.get(key)
        if now is None:
            if was.in_best:
                add("left" if key in left_window else "voided", key, -was.units)
            continue
        if was.in_best:
            add("aged", key, now.units - was.units)
            if not now.in_best:
                add("pushed_out", key, -now.units)
        elif now.in_best:
            add("pushed_in", key, now.units)
    for key, now in after.items():
        if key not in before and now.in_best:
            add("voided" if key in revised else "new", key, now.units)

    # By construction start + the parts == end (the identity above), whatever the input.
    return _assembled(sums, named, _best_units(before), _best_units(after), from_cents, to_cents)


class HeldArrays(NamedTuple):
    """A list's results of one player as arrays, row for row (what :class:`Held` holds, by
    key): unique keys, quantised weighted points, whether among the best 20."""

    keys: np.ndarray
    units: np.ndarray
    in_best: np.ndarray


def held_arrays(breakdown: fladub.Breakdown) -> HeldArrays:
    """:func:`held_from_breakdown` as arrays, keyed by match id in the breakdown's order."""
    units = np.rint(breakdown.weighted * fladub.UNITS_PER_POINT).astype(np.int64)
    return HeldArrays(breakdown.match_id, units, np.asarray(breakdown.in_best, dtype=bool))


def decompose_arrays(
    before: HeldArrays,
    after: HeldArrays,
    *,
    left: np.ndarray,
    from_cents: int,
    to_cents: int,
    corrections: Iterable[int] = (),
) -> Ledger[int]:
    """:func:`decompose` of integer keys given as arrays: the same ledger (the same parts,
    results named in the same order), each result classified by array operations rather
    than a loop turn and a :class:`Held` per result (a busy player's 1,354 results, twice a
    ledger). ``left``: the keys that left the window."""
    before_keys, after_keys = np.asarray(before.keys), np.asarray(after.keys)
    order = np.argsort(after_keys, kind="stable")
    at = np.searchsorted(after_keys[order], before_keys)
    inside = at < len(after_keys)
    found = np.zeros(len(before_keys), dtype=bool)
    found[inside] = after_keys[order[at[inside]]] == before_keys[inside]
    row = order[at[found]]  # the row in ``after`` of each result found there
    now_units = np.zeros(len(before_keys), dtype=np.int64)
    now_units[found] = after.units[row]
    now_best = np.zeros(len(before_keys), dtype=bool)
    now_best[found] = after.in_best[row]
    was_best = np.asarray(before.in_best, dtype=bool)
    gone = ~found & was_best
    in_left = np.isin(before_keys, np.asarray(left, dtype=before_keys.dtype))
    kept = found & was_best
    matched = np.zeros(len(after_keys), dtype=bool)  # the rows of ``after`` found above
    matched[row] = True
    arrived = ~matched & after.in_best
    revised = np.isin(after_keys, np.fromiter(corrections, dtype=np.int64))
    chosen: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {
        "voided": [
            (gone & ~in_left, before_keys, -before.units),
            (arrived & revised, after_keys, after.units),
        ],
        "left": [(gone & in_left, before_keys, -before.units)],
        "aged": [(kept, before_keys, now_units - before.units)],
        "pushed_out": [(kept & ~now_best, before_keys, -now_units)],
        "pushed_in": [(found & ~was_best & now_best, before_keys, now_units)],
        "new": [(arrived & ~revised, after_keys, after.units)],
    }
    sums: dict[str, int] = dict.fromkeys(KINDS, 0)
    named: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for kind, pieces in chosen.items():
        for mask, keys, amounts in pieces:
            sums[kind] += int(amounts[mask].sum())
            named[kind] += keys[mask].tolist()
    start = int(before.units[was_best].sum())
    end = int(after.units[np.asarray(after.in_best, dtype=bool)].sum())
    return _assembled(sums, named, start, end, from_cents, to_cents)


def _assembled(
    sums: Mapping[str, int],
    named: Mapping[str, list[K]],
    start: int,
    end: int,
    from_cents: int,
    to_cents: int,
) -> Ledger[K]:
    """The ledger of the classified results: each kind's units and keys, the best 20's
    units in the two lists (``start``, ``end``) and the published numbers."""
    parts: list[Part[K]] = []
    merged = (_cents(start) - from_cents) + (to_cents - _cents(end))
    if merged:
        parts.append(Part(kind="merged", cents=merged, units=0))
    running = start
    for kind in KINDS[1:]:
        if not named[kind] and not sums[kind]:
            continue
        cents = _cents(running + sums[kind]) - _cents(running)
        running += sums[kind]
        parts.append(Part(kind=kind, cents=cents, units=sums[kind], results=tuple(named[kind])))
    return Ledger(from_cents=from_cents, to_cents=to_cents, parts=tuple(parts))


def held_from_breakdown(breakdown: fladub.Breakdown) -> dict[int, Held]:
    """A list's results of one player (:func:`rankings.fladub.player_breakdown`), by match
    id, quantised as the list sums them."""
    keys, units, in_best = held_arrays(breakdown)
    return {
        int(match): Held(units=int(u), in_best=bool(best))
        for match, u, best in zip(keys.tolist(), units.tolist(), in_best.tolist(), strict=True)
    }


@dataclass(frozen=True)
class RankChange:
    """Why the rank changed: the own number's change, and the others'.

    ``rank_to - rank_from == passed + new_above - overtaken - gone_above`` (ranks are 1 +
    the number of players strictly above)."""

    rank_from: int | None
    rank_to: int | None
    passed: int = 0
    """Players not above in L(R - 1) who are above in L(R)."""
    new_above: int = 0
    """Players new to the list who entered above."""
    overtaken: int = 0
    """Players above in L(R - 1), listed in L(R) but no longer above."""
    gone_above: int = 0
    """Players above in L(R - 1) who are not in L(R)."""
    explained: bool = False
    """Whether the four counts were taken (else they are 0 and only the ranks are known)."""
