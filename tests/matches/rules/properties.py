"""Invariants the property tests of several games check on a replayed simulation (not a
test module)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from matches.rules.tiles import Tile


def games_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = record.get("games", [record])
    return games


def assert_tiles_conserved(
    record: dict[str, Any], report: dict[str, Any], full: Iterable[Tile], *, may_draw: bool
) -> None:
    """Every game deals the whole set; each placed tile comes from its placer's hand, each
    drawn one from the top of the stock (``may_draw``: draws are allowed at all); no tile is
    placed twice; the table, the hands and the stock hold the whole set at the end; the
    report's pips left are what the hands hold."""
    full = sorted(full)
    for dealt, played in zip(games_of(record), report["games"], strict=True):
        hands = {p: Counter(Tile.parse(t) for t in h) for p, h in dealt["hands"].items()}
        stock = [Tile.parse(t) for t in dealt["stock"]]
        assert sorted([*(t for h in hands.values() for t in h), *stock]) == full
        table: list[Tile] = []
        for entry in played["moves"]:
            if "tile" in entry:
                tile = Tile.parse(entry["tile"])
                assert hands[entry["player"]][tile] == 1  # placed from the placer's hand
                hands[entry["player"]][tile] -= 1
                table.append(tile)
            elif "draw" in entry:
                assert may_draw
                tile = Tile.parse(entry["draw"])
                assert tile == stock.pop(0)  # drawn from the top of the stock
                hands[entry["player"]][tile] += 1
        left = {p: [t for t, k in h.items() for _ in range(k)] for p, h in hands.items()}
        assert len(table) == len(set(table))
        assert sorted([*table, *(t for h in left.values() for t in h), *stock]) == full
        for player, result in played["players"].items():
            assert result["pips_left"] == sum(t.pips for t in left[player])


def assert_replay_matches_simulation(sim: Any, report: dict[str, Any]) -> None:
    """The replay scores every game as the simulator did: each move's points, each
    player's final and how the game ended."""
    assert len(report["games"]) == len(sim.games)
    for expected, got in zip(sim.games, report["games"], strict=True):
        assert [m.get("points") for m in got["moves"]] == expected.move_points
        assert {p: r["final"] for p, r in got["players"].items()} == expected.finals
        assert got["end"] == expected.end
