"""The replay report (RULES.md section 6.1) as dataclasses, and its JSON form.

In: what a variant computed for each game and for the session.
Out: ``Report.to_json()``, a dict with exactly the keys RULES.md 6.1 requires (plus a few
documented additions), ready for ``json.dumps``.
Guaranteed: scores are ``int``; money is ``Decimal`` here and a decimal string with at
least two places in JSON (``Decimal("10")`` -> ``"10.00"``, ``Decimal("0.125")`` ->
``"0.125"``): never a float. ``money`` and ``pool`` are always present, ``"0.00"`` for
games without stakes, so that tools can rely on the keys.

Per-move entries are plain dicts built by the helpers below (``placement``, ``draw``,
``passed``, ``event``): the replay hot path appends one per move, and a dict is the
cheapest thing to build and serialise.

Additions beyond 6.1: a move entry may carry ``"correction": true`` (FIDO 3.6) and a
variant's own keys; a game and the session carry ``"sides"`` (one entry per team, or per
player when there are no teams) with the side's players and totals; a game may carry
``"extra"`` keys a variant documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from matches.rules.tiles import TEXT, Tile

ZERO = Decimal("0")
CENT = Decimal("0.01")

#: How a game ended. "unfinished" only when replaying with ``partial=True``.
DOMINO, BLOCKED, UNFINISHED = "domino", "blocked", "unfinished"


def money(amount: Decimal) -> str:
    """Decimal -> JSON string with two decimal places, more only where needed; never rounded.

    ``Decimal("5.000")`` -> ``"5.00"``, ``Decimal("0.625")`` -> ``"0.625"``.
    """
    amount = amount.normalize() if amount else Decimal(0)  # no "-0.00"
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent > -2:
        amount = amount.quantize(CENT)
    return f"{amount:f}"


def placement(n: int, player: str, tile: Tile, count: int, points: int) -> dict[str, Any]:
    return {
        "n": n,
        "player": player,
        "tile": f"{tile[0]}-{tile[1]}",
        "count": count,
        "points": points,
    }


def draw(n: int, player: str, tile: Tile, *, correction: bool = False) -> dict[str, Any]:
    entry: dict[str, Any] = {"n": n, "player": player, "draw": TEXT[tile]}
    if correction:
        entry["correction"] = True
    return entry


def passed(n: int, player: str) -> dict[str, Any]:
    return {"n": n, "player": player, "pass": True}


def event(n: int, player: str | None, key: str, value: Any, **more: Any) -> dict[str, Any]:
    """A session event (stake, raise, bet) echoed into the report; Decimals become strings."""
    entry: dict[str, Any] = {
        "n": n,
        "player": player,
        key: money(value) if isinstance(value, Decimal) else value,
    }
    entry.update(more)
    return entry


@dataclass(slots=True)
class PlayerResult:
    """One player's game: points scored in play, pips left in hand, and the game's result."""

    points: int
    pips_left: int
    final: int
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "pips_left": self.pips_left,
            "final": self.final,
            **self.extra,
        }


@dataclass(slots=True)
class GameReport:
    """One game: its move entries, how it ended, each player's result and the winners.

    ``winners`` lists players (every member of a winning team), in seat order; empty
    when nobody won (e.g. a tie for fewest pips where the rules give no winner).
    ``sides`` holds (players, points, pips_left, final) per side.
    """

    moves: list[dict[str, Any]]
    end: str
    players: dict[str, PlayerResult]
    winners: list[str]
    sides: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "moves": self.moves,
            "end": self.end,
            "players": {name: p.to_json() for name, p in self.players.items()},
            "winners": self.winners,
            "sides": self.sides,
        }
        out.update(self.extra)
        return out


@dataclass(slots=True)
class SessionPlayer:
    total: int
    money: Decimal = ZERO
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "money": money(self.money), **self.extra}


@dataclass(slots=True)
class SessionReport:
    """The session's settlement: per player total and money, winners, what stays in the pool."""

    players: dict[str, SessionPlayer]
    winners: list[str]
    pool: Decimal = ZERO
    sides: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": {name: p.to_json() for name, p in self.players.items()},
            "winners": self.winners,
            "pool": money(self.pool),
            "sides": self.sides,
        }
        out.update(self.extra)
        return out


@dataclass(slots=True)
class Report:
    games: list[GameReport]
    session: SessionReport

    def to_json(self) -> dict[str, Any]:
        return {"games": [g.to_json() for g in self.games], "session": self.session.to_json()}


def side_rows(
    sides: tuple[tuple[str, ...], ...], players: dict[str, PlayerResult], winners: list[str]
) -> list[dict[str, Any]]:
    """Per side: members and the sums of their points, pips left and finals."""
    rows = []
    for members in sides:
        rows.append(
            {
                "players": list(members),
                "points": sum(players[m].points for m in members),
                "pips_left": sum(players[m].pips_left for m in members),
                "final": sum(players[m].final for m in members),
                "winner": members[0] in winners,
            }
        )
    return rows


def best_sides(
    sides: tuple[tuple[str, ...], ...], score: dict[str, int], *, highest: bool = True
) -> list[str]:
    """Members of every side whose summed score is best (ties share), in side order."""
    totals = [sum(score[m] for m in members) for members in sides]
    target = max(totals) if highest else min(totals)
    return [m for members, t in zip(sides, totals, strict=True) if t == target for m in members]
