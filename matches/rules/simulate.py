"""Seeded simulator of random legal games, for any registered variant.

In: a game name, a seed, the number of players and games, optional variant options.
Out: a ``Simulation``: ``record`` (a dict that ``engine.replay`` accepts) and the
simulator's own per-game scores (``games``: ``variants.SimulatedGame``).
Guaranteed: the same arguments give the same record (only ``random.Random(seed)`` is
used). The game-specific play lives in each variant's ``simulate`` hook; this driver
names the seats, pairs the teams and assembles the record.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from matches.rules.registry import variant_class
from matches.rules.variants.base import SimulatedGame

SEAT_NAMES = "ABCDEFGHI"

#: Options used when the caller gives none, so every game simulates out of the box.
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {"fido": {"set": 12}, "austrian": {"mode": "block"}}


@dataclass(slots=True)
class Simulation:
    record: dict[str, Any]
    games: list[SimulatedGame]
    money: dict[str, Decimal] | None


def simulate(
    game: str,
    *,
    seed: int,
    players: int = 4,
    games: int = 1,
    teams: bool = False,
    options: dict[str, Any] | None = None,
) -> Simulation:
    """Simulate ``games`` games of ``game``; ``teams`` pairs seats facing each other
    (A+C, B+D at four; A+D, B+E, C+F at six)."""
    if not 2 <= players <= len(SEAT_NAMES):
        raise ValueError(f"between 2 and {len(SEAT_NAMES)} players, not {players}")
    opts = dict(DEFAULT_OPTIONS.get(game, {}) if options is None else options)
    variant = variant_class(game)(opts)
    seats = tuple(SEAT_NAMES[:players])
    team_list = None
    if teams:
        if players % 2 or players < 4:
            raise ValueError("teams of two need an even number of players, at least four")
        half = players // 2
        team_list = tuple(seats[i::half] for i in range(half))
    rng = random.Random(seed)  # noqa: S311 - reproducible play, not security
    session = variant.simulate(rng, seats, team_list, games)
    record: dict[str, Any] = {
        "format": "fido-game-record/1",
        "variant": {"game": game, **opts},
        "seats": list(seats),
    }
    if team_list is not None:
        record["teams"] = [list(t) for t in team_list]
    record.update(session.record_extra)
    if games == 1 and not session.record_extra:
        record.update(session.games[0].game)
    else:
        record["games"] = [g.game for g in session.games]
    return Simulation(record, session.games, session.money)
