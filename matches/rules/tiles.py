"""Domino tiles and the sets they come in (RULES.md section 1).

In: two pip values, or the text ``"a-b"`` in either order.
Out: a ``Tile``, normalised high end first, so ``Tile(12, 18) == Tile(18, 12)`` and
``str(Tile(12, 18)) == "18-12"``.
Guaranteed: every tile is a pair 0 <= low <= high <= ``MAX_PIPS``; parsing the same text
twice returns the same (interned) object, which keeps the replay hot path cheap.

``Tile`` is a tuple subclass rather than a dataclass on purpose: tiles are dictionary and
set keys on every move, and a tuple hashes and compares in C.
"""

from __future__ import annotations

from functools import cache

#: The largest pip value of any set the federation plays (double-21).
MAX_PIPS = 21


class Tile(tuple[int, int]):
    """One domino, high end first. ``Tile(a, b)`` accepts the ends in either order."""

    __slots__ = ()

    def __new__(cls, a: int, b: int) -> Tile:
        if type(a) is not int or type(b) is not int:
            raise TypeError(f"tile ends must be integers, got {a!r} and {b!r}")
        if not (0 <= a <= MAX_PIPS and 0 <= b <= MAX_PIPS):
            raise ValueError(f"tile ends must be between 0 and {MAX_PIPS}, got {a}-{b}")
        return tuple.__new__(cls, (a, b) if a >= b else (b, a))

    def __getnewargs__(self) -> tuple[int, int]:  # type: ignore[override]
        # Lets copy and pickle rebuild a Tile through __new__.
        return (self[0], self[1])

    @property
    def high(self) -> int:
        return self[0]

    @property
    def low(self) -> int:
        return self[1]

    @property
    def pips(self) -> int:
        return self[0] + self[1]

    @property
    def is_double(self) -> bool:
        return self[0] == self[1]

    @property
    def difference(self) -> int:
        return self[0] - self[1]

    def has(self, value: int) -> bool:
        return self[0] == value or self[1] == value

    def other(self, value: int) -> int:
        """The end opposite ``value`` (``value`` itself for a double)."""
        if self[0] == value:
            return self[1]
        if self[1] == value:
            return self[0]
        raise ValueError(f"{self} has no end {value}")

    def __str__(self) -> str:
        return f"{self[0]}-{self[1]}"

    def __repr__(self) -> str:
        return f"Tile({self[0]}, {self[1]})"

    @staticmethod
    def parse(text: str) -> Tile:
        """``"18-12"`` or ``"12-18"`` -> ``Tile(18, 12)``; ValueError on anything else."""
        found = PARSED.get(text) if isinstance(text, str) else None
        if found is not None:
            return found
        return _parse_slow(text)


def _parse_slow(text: object) -> Tile:
    if not isinstance(text, str):
        raise ValueError(f"a tile is written as text 'a-b', got {text!r}")
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"a tile is written 'a-b' with two whole numbers, got {text!r}")
    a, b = (int(p) for p in parts)
    if a > MAX_PIPS or b > MAX_PIPS:
        raise ValueError(f"tile ends go up to {MAX_PIPS}, got {text!r}")
    return _INTERNED[(a, b) if a >= b else (b, a)]


_INTERNED: dict[tuple[int, int], Tile] = {
    (a, b): Tile(a, b) for a in range(MAX_PIPS + 1) for b in range(a + 1)
}
#: The canonical text of every tile ("18-12"), so reports need not format it again.
TEXT: dict[Tile, str] = {t: f"{t[0]}-{t[1]}" for t in _INTERNED.values()}
#: Every spelling of every tile, both orders ("18-12" and "12-18"), for one-lookup parsing.
PARSED: dict[str, Tile] = {}
for _t in _INTERNED.values():
    PARSED[f"{_t[0]}-{_t[1]}"] = _t
    PARSED[f"{_t[1]}-{_t[0]}"] = _t


@cache
def double_set(n: int) -> frozenset[Tile]:
    """The double-N set: every pair 0 <= b <= a <= n, (n+1)(n+2)/2 tiles."""
    if type(n) is not int or not 0 <= n <= MAX_PIPS:
        raise ValueError(f"a double-N set needs 0 <= N <= {MAX_PIPS}, got {n!r}")
    return frozenset(_INTERNED[(a, b)] for a in range(n + 1) for b in range(a + 1))


@cache
def austrian_set() -> frozenset[Tile]:
    """The 36 tiles of the Austrian games: double-8 without its nine doubles."""
    return frozenset(t for t in double_set(8) if not t.is_double)


def heaviest(tiles: frozenset[Tile] | set[Tile] | list[Tile]) -> Tile:
    """The heaviest tile: most pips, ties broken by the higher top end (8-5 before 7-6)."""
    return max(tiles, key=lambda t: (t[0] + t[1], t[0]))
