"""Austrian double-eight games (RULES.md section 5): the layout, the lead and the winner.

Contract of the pure part:

- ``AUSTRIAN_TILES`` is the 36-tile set (double-8 without its doubles).
- ``heaviest_key`` orders tiles for the first lead of a session: 8-7, 8-6, then by pip
  total, higher top end first (8-5 before 7-6); ``first_leader`` finds who holds the
  heaviest dealt tile.
- ``LineLayout`` is the single line with two ends; ``place`` checks a placement and raises
  ``LineError`` without changing anything when it is illegal.
- ``game_winner`` is the winner of a finished game, or None for a tie for fewest pips.

Tiles are ``(high, low)`` tuples here; the variant converts at its boundary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TileT = tuple[int, int]

AUSTRIAN_TILES: tuple[TileT, ...] = tuple((a, b) for a in range(9) for b in range(a))


class LineError(ValueError):
    """A placement the line does not allow; ``rule`` names the broken rule."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


def fmt(tile: TileT) -> str:
    return f"{tile[0]}-{tile[1]}"


def heaviest_key(tile: TileT) -> tuple[int, int]:
    """Sort key, larger is heavier: pip total, then the higher top end. 8-7 (15) and 8-6
    (14) come first because nothing else has as many pips."""
    return (tile[0] + tile[1], max(tile))


def first_leader(hands: Mapping[str, Sequence[TileT]]) -> tuple[str, TileT]:
    """Who leads the first game of a session, and with which tile."""
    holder, tile = max(
        ((p, t) for p, tiles in hands.items() for t in tiles), key=lambda pt: heaviest_key(pt[1])
    )
    return holder, tile


class LineLayout:
    """A line with two open ends, each the value showing and the tile showing it."""

    def __init__(self) -> None:
        self.tiles: list[TileT] = []
        self.ends: list[tuple[TileT, int]] = []

    @property
    def empty(self) -> bool:
        return not self.tiles

    def count(self) -> int:
        """The sum of the two open ends (reported for information; Austrian games score
        nothing during play)."""
        return sum(v for _, v in self.ends)

    def spots(self, tile: TileT) -> list[TileT]:
        """The end tiles ``tile`` may go on."""
        return [on for on, v in self.ends if v in tile]

    def playable(self, tile: TileT) -> bool:
        return self.empty or bool(self.spots(tile))

    def place(self, tile: TileT, on: TileT | None = None) -> int:
        if tile in self.tiles:
            raise LineError(f"{fmt(tile)} is already on the table", "already_played")
        if not self.tiles:
            if on is not None:
                raise LineError("the lead is not placed on another tile", "lead_on")
            self.tiles.append(tile)
            self.ends = [(tile, tile[0]), (tile, tile[1])]
            return self.count()
        if on is None:
            raise LineError(f"{fmt(tile)} must name the tile it goes on", "missing_on")
        if on not in self.tiles:
            raise LineError(f"{fmt(on)} is not on the table", "on_not_in_layout")
        for i, (end_tile, v) in enumerate(self.ends):
            # No doubles in the set, so a tile matches at most one end of the lead.
            if end_tile == on and v in tile:
                other = tile[1] if tile[0] == v else tile[0]
                self.ends[i] = (tile, other)
                self.tiles.append(tile)
                return self.count()
        raise LineError(f"{fmt(tile)} has no free matching end on {fmt(on)}", "no_matching_end")


def game_winner(pips: Mapping[str, int], domino: str | None) -> str | None:
    """The domino player, else the single player with fewest pips, else None (a tie)."""
    if domino is not None:
        return domino
    low = min(pips.values())
    lowest = [p for p, v in pips.items() if v == low]
    return lowest[0] if len(lowest) == 1 else None
