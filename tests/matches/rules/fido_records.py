"""Builders of small FIDO records for the tests (not a test module)."""

from typing import Any

from .moves import draw, pass_, play

__all__ = [
    "BLOCKED_GAME",
    "DOMINO_GAME",
    "SECTION_2_EXAMPLE",
    "draw",
    "game_record",
    "pass_",
    "play",
    "record",
]

# RULES.md section 2, verbatim.
SECTION_2_EXAMPLE: dict[str, Any] = {
    "format": "fido-game-record/1",
    "variant": {"game": "fido", "set": 18, "divisor": 11},
    "seats": ["A", "B", "C", "D"],
    "teams": [["A", "C"], ["B", "D"]],
    "hands": {"A": ["18-18", "18-7"], "B": ["18-12"], "C": ["12-8"], "D": ["5-0"]},
    "stock": ["3-1", "9-9"],
    "moves": [
        {"player": "A", "tile": "18-18"},
        {"player": "B", "tile": "18-12", "on": "18-18", "facet": "cross"},
        {"player": "C", "tile": "12-8", "on": "18-12"},
        {"player": "D", "draw": "3-1"},
        {"player": "A", "pass": True},
    ],
}


def record(
    hands: dict[str, list[str]],
    moves: list[dict[str, Any]],
    *,
    set_: int = 18,
    divisor: int | None = None,
    hand_size: int | None = None,
    stock: list[str] | None = None,
    teams: list[list[str]] | None = None,
) -> dict[str, Any]:
    """A single-game FIDO record; ``hand_size`` defaults to the largest hand dealt, so
    that small hand-made deals are regular unless a test says otherwise."""
    variant: dict[str, Any] = {"game": "fido", "set": set_}
    if divisor is not None:
        variant["divisor"] = divisor
    variant["hand_size"] = hand_size if hand_size is not None else max(map(len, hands.values()))
    return game_record(variant, hands, moves, stock=stock, teams=teams)


def game_record(
    variant: dict[str, Any],
    hands: dict[str, list[str]],
    moves: list[dict[str, Any]],
    *,
    stock: list[str] | None = None,
    teams: list[list[str]] | None = None,
) -> dict[str, Any]:
    """A single-game record of any variant: the seats in the order of ``hands``."""
    data: dict[str, Any] = {
        "format": "fido-game-record/1",
        "variant": variant,
        "seats": list(hands),
        "hands": hands,
        "moves": moves,
    }
    if stock is not None:
        data["stock"] = stock
    if teams is not None:
        data["teams"] = teams
    return data


# A complete double-6 game for two players, all 28 tiles dealt, blocked after ten
# placements; every count checked by hand in test_fido_game.py.
BLOCKED_GAME: dict[str, Any] = {
    "format": "fido-game-record/1",
    "variant": {"game": "fido", "set": 6, "hand_size": 14},
    "seats": ["A", "B"],
    "hands": {
        "A": [
            "5-5",
            "3-3",
            "4-1",
            "6-3",
            "2-0",
            "3-2",
            "4-3",
            "3-0",
            "3-1",
            "4-2",
            "6-2",
            "4-0",
            "1-1",
            "6-0",
        ],
        "B": [
            "5-0",
            "2-2",
            "0-0",
            "6-5",
            "5-1",
            "2-1",
            "5-2",
            "6-1",
            "6-4",
            "4-4",
            "5-3",
            "1-0",
            "5-4",
            "6-6",
        ],
    },
    "stock": [],
    "moves": [
        {"player": "B", "tile": "6-6"},
        {"player": "A", "tile": "6-0", "on": "6-6", "facet": "cross"},
        {"player": "B", "tile": "6-5", "on": "6-6", "facet": "end"},
        {"player": "A", "tile": "3-0", "on": "6-0"},
        {"player": "B", "tile": "6-1", "on": "6-6", "facet": "end"},
        {"player": "A", "tile": "6-3", "on": "3-0"},
        {"player": "B", "tile": "5-2", "on": "6-5"},
        {"player": "A", "tile": "4-1", "on": "6-1"},
        {"player": "B", "tile": "6-4", "on": "4-1"},
        {"player": "A", "tile": "6-2", "on": "5-2"},
        {"player": "B", "pass": True},
        {"player": "A", "pass": True},
    ],
}

# A complete double-6 game for three players (divisor 3, two tiles each) won by A's
# domino; the stock is not listed, so draws name their tiles.
DOMINO_GAME: dict[str, Any] = record(
    {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"], "C": ["6-5", "4-0"]},
    [
        play("A", "6-6"),  # E 6,6 X 6,6: S 12 -> 4
        play("B", "6-3", "6-6", "cross"),  # E 6,6,3: S 15 -> 5
        play("C", "6-5", "6-6", "cross"),  # E 6,6,3,5: S 20 -> 0
        draw("A", "5-1"),
        draw("B", "3-2"),
        draw("C", "4-3"),
        play("A", "5-1", "6-5"),  # E 6,6,3,1: S 16 -> 0
        play("B", "3-2", "6-3"),  # E 6,6,2,1: S 15 -> 5
        draw("C", "2-0"),
        play("A", "1-0", "5-1"),  # E 6,6,2,0: S 14 -> 0, A is out
    ],
    set_=6,
)
