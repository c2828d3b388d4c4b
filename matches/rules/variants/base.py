"""The base class every game variant derives from. See ``matches.rules.variants`` for the
protocol in prose; this module is its code form.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from matches.rules.errors import RecordError
from matches.rules.i18n import _
from matches.rules.model import GameRecord, Record
from matches.rules.report import (
    ZERO,
    GameReport,
    SessionPlayer,
    SessionReport,
    best_sides,
)
from matches.rules.tiles import Tile
from matches.rules.variants.hooks import Previous, Random, Seats, Teams


@dataclass(slots=True)
class SimulatedGame:
    """One simulated game: the record's game object and the simulator's own scores.

    ``game`` is what goes into the record's ``games`` list (``hands``, ``stock``,
    ``moves``, plus any game keys the variant declares). ``move_points`` has one item per
    entry of ``game["moves"]``: the points that move scored, None for a move that places
    no tile. ``finals`` is each player's game result (``final`` in the report).
    """

    game: dict[str, Any]
    move_points: list[int | None]
    finals: dict[str, int]
    end: str


@dataclass(slots=True)
class SimulatedSession:
    """What a variant's ``simulate`` hook returns. ``record_extra`` holds top-level record
    keys the variant needs (stakes, banker...); ``money`` the expected ledger, if any."""

    games: list[SimulatedGame]
    record_extra: dict[str, Any] = field(default_factory=dict)
    money: dict[str, Decimal] | None = None


class Variant(ABC):
    """A game the engine can replay. One instance per record, built from its options."""

    #: The name under which the variant is registered (``variant.game`` in a record).
    game: ClassVar[str]
    #: Top-level record keys this game understands besides the generic ones.
    record_keys: ClassVar[frozenset[str]] = frozenset()
    #: Per-game keys this game understands besides hands/stock/moves/result/buy_backs.
    game_keys: ClassVar[frozenset[str]] = frozenset()
    #: Whether players drop out during a session (Pulle): a scoresheet then gives the pips
    #: of the players still in only; those out may be absent, null or 0.
    players_drop_out: ClassVar[bool] = False
    #: How many seats a table may have (checked before anything else in the record).
    seat_counts: ClassVar[range] = range(2, 10)

    #: The tiles of the set in play; the record loader refuses any other tile.
    tiles: frozenset[Tile]
    #: How messages name the set, e.g. "double-18 set".
    set_name: str

    def __init__(self, options: Mapping[str, Any]) -> None:
        """Validate ``options`` (the record's ``variant`` object minus ``game``) and set
        ``tiles`` and ``set_name``. Raise ``RecordError("variant.<key>", ...)``."""
        self.options = dict(options)

    def check_record(self, record: Record) -> None:  # noqa: B027 - optional hook
        """Table-level checks once the whole record is parsed: number of seats, teams,
        banker, the variant's extra keys. Raise ``RecordError``. Default: nothing."""

    def replay_session(self, record: Record, *, partial: bool = False) -> list[GameReport]:
        """Replay or score every game in order. Override when games depend on each other
        in ways ``previous`` cannot express."""
        reports: list[GameReport] = []
        for game in record.games:
            if game.result is not None:
                reports.append(self.score_sheet(record, game, reports))
            else:
                reports.append(self.replay_game(record, game, reports, partial=partial))
        return reports

    @abstractmethod
    def replay_game(
        self, record: Record, game: GameRecord, previous: Previous, *, partial: bool = False
    ) -> GameReport:
        """Replay one game from its deal and moves. Raise ``IllegalMove`` at the first
        illegal step. With ``partial``, a record that stops before the game's end is
        reported with ``end = "unfinished"`` instead of being refused."""

    @abstractmethod
    def score_sheet(
        self, record: Record, game: GameRecord, previous: Sequence[GameReport]
    ) -> GameReport:
        """Turn a scoresheet game (``game.result``) into a GameReport with no tile moves
        (session events in ``game.moves`` may still produce entries)."""

    def settle(self, record: Record, games: Sequence[GameReport]) -> SessionReport:
        """Settle the session. Default, for games scored in points: each player's total is
        the sum of their finals; the side(s) with the highest total win; no money."""
        totals = {seat: sum(g.players[seat].final for g in games) for seat in record.seats}
        sides = record.sides()
        winners = best_sides(sides, totals)
        return SessionReport(
            players={seat: SessionPlayer(totals[seat], ZERO) for seat in record.seats},
            winners=winners,
            pool=ZERO,
            sides=[
                {"players": list(m), "total": sum(totals[p] for p in m), "winner": m[0] in winners}
                for m in sides
            ],
        )

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        """Play ``games`` random legal games with ``rng`` (the simulator's per-variant
        hook). Must only use ``rng`` for randomness, so a seed fixes the output."""
        raise NotImplementedError(f"no simulator for {self.game!r} yet")


def option_int(
    options: Mapping[str, Any], key: str, default: int | None, allowed: Sequence[int] | range
) -> int:
    """Read an integer option, refusing anything outside ``allowed``."""
    value = options.get(key, default)
    if type(value) is not int or value not in allowed:
        shown = (
            f"{allowed.start}..{allowed.stop - 1}"
            if isinstance(allowed, range)
            else (", ".join(str(a) for a in allowed))
        )
        raise RecordError(
            f"variant.{key}",
            _("must be one of %(shown)s, got %(value)r") % {"shown": shown, "value": value},
        )
    return value
