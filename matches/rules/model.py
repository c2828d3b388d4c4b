"""The data model of a loaded game record: plain, read-only data classes, no behaviour.

:mod:`matches.rules.record` builds these from JSON (and checks their shape); the variants
(:mod:`matches.rules.variants`) replay them. This module imports nothing of either, so both
depend on it and not on each other. ``Record`` is generic in its variant's type so that it
need not import the variants' base class (which takes records): the loader returns a
``Record[Variant]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Generic, TypeVar

from matches.rules.tiles import Tile

V = TypeVar("V")

#: Move kinds. Tile moves: play, draw, pass. Session events: stake, raise, bet.
PLAY, DRAW, PASS, STAKE, RAISE, BET = "play", "draw", "pass", "stake", "raise", "bet"
TILE_MOVES = frozenset({PLAY, DRAW, PASS})


@dataclass(slots=True)
class Move:
    """One entry of a game's ``moves`` list. Treat as read-only.

    ``kind`` is one of play/draw/pass/stake/raise/bet. ``player`` is the seat (None for a
    spectator's bet). ``tile`` is the placed or drawn tile (None for ``"draw": true``,
    which takes the next tile of a listed stock). ``on``/``facet`` only for placements
    (``facet`` is None when the record leaves it out; the games read that as ``"end"``).
    ``amount`` for stake/raise/bet, ``accepted`` for raise/bet, ``spectator`` and
    ``target`` (the player bet on) for bets. Not a frozen dataclass because records are
    built on the replay hot path and frozen ``__init__`` is several times slower.
    """

    kind: str
    player: str | None
    tile: Tile | None = None
    on: Tile | None = None
    facet: str | None = None
    correction: bool = False
    amount: Decimal | None = None
    accepted: bool | None = None
    spectator: str | None = None
    target: str | None = None


@dataclass(slots=True)
class Scoresheet:
    """A game's outcome as written on paper: ``result`` of RULES.md 2.1."""

    domino: str | None
    blocked: bool
    pips: dict[str, int]
    points: dict[str, int] | None = None
    play_points: dict[str, int] | None = None


@dataclass(slots=True)
class GameRecord:
    """One game. Either ``hands`` + ``moves`` (a full replay) or ``result`` (a scoresheet,
    whose ``moves`` may only hold session events)."""

    index: int
    prefix: str  # "" for a single-game record, "games[i]." in a session: for error paths
    hands: dict[str, tuple[Tile, ...]] | None
    stock: tuple[Tile, ...] | None
    moves: tuple[Move, ...]
    result: Scoresheet | None = None
    buy_backs: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_scoresheet(self) -> bool:
        return self.result is not None


@dataclass(slots=True)
class Record(Generic[V]):
    """A validated record. ``extra`` holds the top-level keys the variant declared."""

    variant: V
    seats: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...] | None
    banker: str | None
    games: tuple[GameRecord, ...]
    single: bool
    extra: dict[str, Any] = field(default_factory=dict)

    def sides(self) -> tuple[tuple[str, ...], ...]:
        """The sides that score together: the teams, else one side per seat."""
        return self.teams if self.teams is not None else tuple((s,) for s in self.seats)
