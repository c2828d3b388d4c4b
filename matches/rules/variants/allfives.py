"""All Fives: Muggins and Five Up (RULES.md section 4).

Contract of the pure part (no record, no engine):

- ``FivesLayout`` models the table as a list of placed tiles, each knowing which of its
  attachment points are still free. ``place`` checks one placement and returns the count of
  RULES.md 4.2 after it; an illegal placement raises ``LayoutError`` with the reason and
  leaves the layout untouched.
- ``round_to_five``, ``round_share_to_five``, ``hand_end_points`` and
  ``losers_subtract_points`` are the hand-end arithmetic of RULES.md 4.5 / 4.1, in raw
  points (the fives unit divides by 5 afterwards, see ``to_unit``).

Tiles are ``(high, low)`` tuples here; the variant converts at its boundary.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, TypeVar

TileT = tuple[int, int]
Facet = Literal["end", "cross"]
SideT = TypeVar("SideT", bound=Hashable)


class LayoutError(ValueError):
    """A placement the layout does not allow; ``rule`` names the broken rule."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


def fmt(tile: TileT) -> str:
    return f"{tile[0]}-{tile[1]}"


@dataclass
class _Placed:
    """One tile on the table and its free attachment points.

    A plain tile keeps the values of its free ends (two for a plain lead, else one).
    A double is laid crosswise: ``free_sides`` are its long sides still open along the line
    (2 for a lead double, else 1), and a spinner also has two cross ends, usable only once
    both sides are covered.
    """

    tile: TileT
    spinner: bool = False
    free_ends: list[int] = field(default_factory=list)
    free_sides: int = 0
    free_cross: int = 0

    @property
    def is_double(self) -> bool:
        return self.tile[0] == self.tile[1]

    def count(self) -> int:
        if not self.is_double:
            return sum(self.free_ends)
        # A double counts both halves while the line can still grow from one of its sides
        # (an arm end, or a lead double alone); once both sides are covered it is just a
        # tile inside the line, and its unused cross ends count nothing.
        return 2 * self.tile[0] if self.free_sides > 0 else 0


class FivesLayout:
    """The All Fives table. ``every_double_spins``: Five Up (True) or Muggins (False)."""

    def __init__(self, *, every_double_spins: bool) -> None:
        self.every_double_spins = every_double_spins
        self._placed: dict[TileT, _Placed] = {}

    # -- queries ---------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        return not self._placed

    def __contains__(self, tile: object) -> bool:
        return tile in self._placed

    def tiles(self) -> list[TileT]:
        return list(self._placed)

    def count(self) -> int:
        """The count of RULES.md 4.2: what a placement just made would score if a multiple
        of five."""
        return sum(p.count() for p in self._placed.values())

    def spinners(self) -> list[TileT]:
        return [t for t, p in self._placed.items() if p.spinner]

    def spots(self, tile: TileT) -> list[tuple[TileT, Facet]]:
        """Every ``(on, facet)`` where ``tile`` may legally go (empty list: not playable).
        On an empty table any tile leads, which this reports as an empty list too: callers
        ask ``empty`` first."""
        out: list[tuple[TileT, Facet]] = []
        for on, p in self._placed.items():
            if p.is_double:
                v = on[0]
                if v not in tile:
                    continue
                if p.free_sides > 0:
                    out.append((on, "end"))
                elif p.spinner and p.free_cross > 0:
                    out.append((on, "cross"))
            elif any(v in tile for v in p.free_ends):
                out.append((on, "end"))
        return out

    def playable(self, tile: TileT) -> bool:
        return self.empty or bool(self.spots(tile))

    # -- the one mutation -----------------------------------------------------------------
    def place(self, tile: TileT, on: TileT | None = None, facet: Facet = "end") -> int:
        """Put ``tile`` on the table and return the new count."""
        if tile in self._placed:
            raise LayoutError(f"{fmt(tile)} is already on the table", "already_played")
        is_double = tile[0] == tile[1]
        if not self._placed:
            if on is not None:
                raise LayoutError("the lead is not placed on another tile", "lead_on")
            if is_double:
                # The first double of a hand always spins, in Muggins as in Five Up.
                self._placed[tile] = _Placed(tile, spinner=True, free_sides=2, free_cross=2)
            else:
                self._placed[tile] = _Placed(tile, free_ends=[tile[0], tile[1]])
            return self.count()
        if on is None:
            raise LayoutError(f"{fmt(tile)} must name the tile it goes on", "missing_on")
        target = self._placed.get(on)
        if target is None:
            raise LayoutError(f"{fmt(on)} is not on the table", "on_not_in_layout")
        value = self._attach(target, tile, facet)
        if is_double:
            spins = self.every_double_spins or not self.spinners()
            self._placed[tile] = _Placed(
                tile, spinner=spins, free_sides=1, free_cross=2 if spins else 0
            )
        else:
            other = tile[1] if tile[0] == value else tile[0]
            self._placed[tile] = _Placed(tile, free_ends=[other])
        return self.count()

    def _attach(self, target: _Placed, tile: TileT, facet: Facet) -> int:
        """Cover the attachment point of ``target`` that ``tile`` joins; return its value."""
        on = target.tile
        if target.is_double:
            v = on[0]
            if v not in tile:
                raise LayoutError(f"{fmt(tile)} does not match {fmt(on)}", "no_matching_end")
            if facet == "cross":
                if not target.spinner:
                    raise LayoutError(
                        f"{fmt(on)} is not a spinner: it has no cross ends", "not_a_spinner"
                    )
                if target.free_sides > 0:
                    raise LayoutError(
                        f"the cross ends of {fmt(on)} open only after both its sides are covered",
                        "cross_before_sides",
                    )
                if target.free_cross == 0:
                    raise LayoutError(f"both cross ends of {fmt(on)} are used", "no_free_end")
                target.free_cross -= 1
                return v
            if target.free_sides == 0:
                hint = " (its cross ends take facet 'cross')" if target.free_cross else ""
                raise LayoutError(f"both sides of {fmt(on)} are covered{hint}", "no_free_end")
            target.free_sides -= 1
            return v
        if facet == "cross":
            raise LayoutError(f"{fmt(on)} is not a double: it has no cross ends", "not_a_spinner")
        for i, v in enumerate(target.free_ends):
            if v in tile:
                del target.free_ends[i]
                return v
        raise LayoutError(f"{fmt(tile)} has no free matching end on {fmt(on)}", "no_matching_end")


# -- hand-end arithmetic -------------------------------------------------------------------


def round_to_five(pips: int) -> int:
    """Nearest multiple of 5; remainders 1, 2 go down, 3, 4 go up (RULES.md 4.5)."""
    return round_share_to_five(Fraction(pips))


def round_share_to_five(value: Fraction) -> int:
    """Nearest multiple of 5, an exact half (x2.5, x7.5) rounding up."""
    return int((value + Fraction(5, 2)) // 5) * 5


def hand_end_points(pips: Mapping[SideT, int], domino: SideT | None) -> dict[SideT, int]:
    """Raw points each side wins at the end of a hand under ``winner_scores``.

    ``pips`` holds each side's pips left (a team's is its members' total); ``domino`` is the
    side that played out, or None when the hand is blocked. Only the winning side(s) appear
    in the result; an empty dict means nobody scores.
    """
    if domino is not None:
        return {domino: round_to_five(sum(v for s, v in pips.items() if s != domino))}
    low = min(pips.values())
    lowest = [s for s, v in pips.items() if v == low]
    if len(lowest) == 1:
        (winner,) = lowest
        return {winner: round_to_five(sum(v for s, v in pips.items() if s != winner))}
    if len(pips) == 3 and len(lowest) == 2:
        (third,) = [s for s in pips if s not in lowest]
        share = round_share_to_five(Fraction(round_to_five(pips[third]), 2))
        return dict.fromkeys(lowest, share)
    return {}


def losers_subtract_points(pips: Mapping[SideT, int]) -> dict[SideT, int]:
    """``losers_subtract``: each player loses their own pips rounded to the nearest 5."""
    return {p: -round_to_five(v) for p, v in pips.items()}


def to_unit(points: int, unit: str) -> int:
    """Raw points in the match's unit: ``"points"`` unchanged, ``"fives"`` divided by 5
    (every All Fives score is a multiple of 5, so this is exact)."""
    if unit == "fives":
        if points % 5:
            raise ValueError(f"{points} is not a multiple of 5")
        return points // 5
    return points


def sum_pips(tiles: Iterable[TileT]) -> int:
    return sum(a + b for a, b in tiles)
