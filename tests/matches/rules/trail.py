"""The Austrian games' worked trail, shared by the Austrian, Buki and Pulle tests (not a
test module)."""

from __future__ import annotations

from typing import Any

from .moves import play

# A trail of 25 tiles, each placed on the one before at the growing end; the other end
# keeps the 8 of the lead 8-7. Four players in turn lay it down, A placing every fourth.
TRAIL = [
    "8-7", "7-6", "8-6", "8-5", "7-5", "7-4", "8-4", "8-3", "7-3", "7-2", "8-2", "8-1", "7-1",
    "7-0", "6-0", "6-5", "5-4", "6-4", "6-3", "5-3", "5-2", "6-2", "6-1", "5-1", "5-0",
]  # fmt: skip
# The tile each of B, C, D keeps when A plays out: 4-3 (7 pips), 2-1 (3), 4-0 (4).
EXTRA = {"B": "4-3", "C": "2-1", "D": "4-0"}


def trail_game(length: int = 25) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """The deal and moves of a four-player game along TRAIL[:length]; A plays out."""
    seats = "ABCD"
    hands: dict[str, list[str]] = {s: [] for s in seats}
    moves = []
    for i, tile in enumerate(TRAIL[:length]):
        hands[seats[i % 4]].append(tile)
        moves.append(play(seats[i % 4], tile, TRAIL[i - 1] if i else None))
    for seat, tile in EXTRA.items():
        hands[seat].append(tile)
    return hands, moves
