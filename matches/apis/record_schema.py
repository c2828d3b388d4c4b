"""The OpenAPI schema of a game record (RULES.md section 2; docs/rules.md), as a plain dict.

In: nothing; the game names, sets, divisors and table sizes come from the rules engine.
Out: :data:`RECORD_SCHEMA`, the request body of ``POST /api/records/replay``: a ``oneOf``
with one branch per known game (Muggins and Five Up share one), told apart by the enum of
``variant.game``. OpenAPI's ``discriminator`` cannot name a nested property, so none is
declared; the branches are disjoint all the same.
Guaranteed: the schema is never narrower than the loader (``matches.rules.record``): every
record the server accepts validates, and every constraint written here (types, required
fields, enums, item counts, unknown fields) is one the loader refuses with a 400 naming the
field, so a request outside the schema is a 400. What only the game decides (a tile of
the set played, a seat's name in a move, a legal move) is left to the 400s of the replay.
There is no item limit on moves or games: the whole body's 512 KiB is the parser's bound.
"""

from __future__ import annotations

from typing import Any

from matches.rules.record import FORMAT, MAX_RECORD_BYTES
from matches.rules.registry import REGISTRY
from matches.rules.tiles import austrian_set, double_set
from matches.rules.variants.fido import DIVISORS, SETS

__all__ = ["RECORD_SCHEMA", "record_schema"]

_TILE = {
    "type": "string",
    "pattern": r"^\s*[0-9]+\s*-\s*[0-9]+\s*$",
    "description": 'A tile, its two ends joined by a hyphen: "18-12" (either order)',
    "example": "6-3",
}
_NAME = {"type": "string", "minLength": 1, "description": "A seat (player) of the record"}
_AMOUNT = {
    "type": "string",
    "minLength": 1,
    "description": 'A money amount as a decimal string, never a number: "4.50"',
    "example": "2.00",
}
_BOOL = {"type": "boolean"}


def _null(schema: dict[str, Any]) -> dict[str, Any]:
    """The loader reads null as absent here."""
    return {**schema, "nullable": True}


def _obj(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "additionalProperties": False, **extra}
    if required:  # OpenAPI 3.0 refuses an empty list
        schema["required"] = required
    return schema


def _moves(*, money: bool) -> dict[str, Any]:
    """A game's moves: placements, draws, passes, buy-backs (a Pulle game's last entry; an
    empty list anywhere); Buki's stakes, raises and bets with ``money``."""
    kinds = [
        _obj(
            {
                "player": _NAME,
                "tile": _TILE,
                "on": _null(_TILE),
                "facet": _null({"type": "string", "enum": ["end", "cross"]}),
            },
            ["player", "tile"],
            title="Placement",
        ),
        _obj(
            {
                "player": _NAME,
                "draw": {"oneOf": [_TILE, {"type": "boolean", "enum": [True]}]},
                "correction": _null(_BOOL),
            },
            ["player", "draw"],
            title="Draw",
        ),
        _obj({"player": _NAME, "pass": {"type": "boolean", "enum": [True]}}, ["player", "pass"]),
        _obj(
            {"buy_backs": {"type": "array", "items": _NAME}},
            ["buy_backs"],
            title="Buy-backs (a Pulle game's last entry)",
        ),
    ]
    if money:
        kinds += [
            _obj({"player": _NAME, "stake": _AMOUNT}, ["player", "stake"], title="Stake"),
            _obj(
                {"player": _NAME, "raise": _AMOUNT, "accepted": _BOOL},
                ["player", "raise", "accepted"],
                title="Raise",
            ),
            _obj(
                {"spectator": _NAME, "on": _NAME, "bet": _AMOUNT, "accepted": _BOOL},
                ["spectator", "on", "bet", "accepted"],
                title="Spectator bet",
            ),
        ]
    return {"type": "array", "items": {"oneOf": kinds}}


def _result(*, drop_out: bool) -> dict[str, Any]:
    """A scoresheet game's result; in Pulle a player already out has no pips (absent/null)."""
    whole: dict[str, Any] = {"type": "integer", "minimum": 0}
    per_seat = {
        "type": "object",
        "additionalProperties": whole,
        "description": "Each seat's whole number",
    }
    pips = per_seat
    if drop_out:
        pips = {**per_seat, "additionalProperties": {**whole, "nullable": True}}
    return _obj(
        {
            "domino": _null({**_NAME, "description": "The seat who played out (or blocked: true)"}),
            "blocked": _BOOL,
            "pips": pips,
            "points": _null(per_seat),
            "play_points": _null(per_seat),
        },
        ["pips"],
        title="Scoresheet result",
    )


def _branch(
    games: list[str],
    variant: dict[str, Any],
    required_options: list[str],
    seats: range,
    tiles: int,
    **top: Any,
) -> dict[str, Any]:
    """One game's record: the variant object, seats, and the game (single form) or games.
    ``top`` holds the game's own top-level keys (Buki's banker and stakes, Pulle's stake)."""
    hand = {"type": "array", "items": _TILE, "maxItems": tiles, "uniqueItems": True}
    game = {
        "hands": {
            "type": "object",
            "additionalProperties": hand,
            "description": "Each seat's hand, by seat name (every seat, [] allowed)",
        },
        "stock": _null(hand),
        "moves": _moves(money="buki" in games),
        "result": _result(drop_out="pulle" in games),
        "buy_backs": {"type": "array", "items": _NAME},
    }
    variant_schema = _obj(
        {"game": {"type": "string", "enum": games}, **variant}, ["game", *required_options]
    )
    required = ["variant", "seats", *(k for k in ("banker", "stakes", "stake") if k in top)]
    return _obj(
        {
            "format": {"type": "string", "enum": [FORMAT]},
            "variant": variant_schema,
            "seats": {
                "type": "array",
                "items": _NAME,
                "minItems": seats.start,
                "maxItems": seats.stop - 1,
                "uniqueItems": True,
            },
            "teams": _null(
                {
                    "type": "array",
                    "minItems": 2,
                    "items": {"type": "array", "items": _NAME, "minItems": 1},
                }
            ),
            "banker": _null(_NAME),
            **top,
            **game,
            "games": {"type": "array", "minItems": 1, "items": _obj(game, [])},
        },
        required,
        title=" / ".join(games),
        description="One game (hands and moves, or a result) at the top level, or `games`",
    )


#: Each game's ``variant`` options (the variant classes' ``__init__`` read the same).
_FIDO_OPTIONS = {
    "set": {"type": "integer", "enum": list(SETS)},
    "divisor": {"type": "integer", "enum": list(DIVISORS)},
    "hand_size": {"type": "integer", "minimum": 1, "maximum": 126},
}
_ALL_FIVES_OPTIONS = {
    "target": _null({"type": "integer", "minimum": 1}),
    "unit": {"type": "string", "enum": ["points", "fives"]},
    "exact_target": _BOOL,
    "keep_in_stock": {"type": "integer", "enum": [0, 1, 2]},
    "hand_end": {"type": "string", "enum": ["winner_scores", "losers_subtract"]},
}
_AUSTRIAN_OPTIONS = {
    "mode": {"type": "string", "enum": ["draw", "block"]},
    "max_draws": _null({"type": "integer", "minimum": 1}),
}


def record_schema() -> dict[str, Any]:
    """The request body's schema, built from the registry (a game missing here fails a test)."""
    austrian_tiles = len(austrian_set())
    branches = [
        _branch(
            ["fido"],
            _FIDO_OPTIONS,
            ["set"],
            REGISTRY["fido"].seat_counts,
            len(double_set(max(SETS))),
        ),
        _branch(
            ["muggins", "fiveup"],
            _ALL_FIVES_OPTIONS,
            [],
            REGISTRY["muggins"].seat_counts,
            len(double_set(6)),
        ),
        _branch(
            ["austrian"],
            _AUSTRIAN_OPTIONS,
            ["mode"],
            REGISTRY["austrian"].seat_counts,
            austrian_tiles,
        ),
        _branch(
            ["buki"],
            {},
            [],
            REGISTRY["buki"].seat_counts,
            austrian_tiles,
            banker=_NAME,
            stakes=_obj({"min": _AMOUNT, "max": _AMOUNT}, ["min", "max"]),
        ),
        _branch(
            ["pulle"],
            {},
            [],
            REGISTRY["pulle"].seat_counts,
            austrian_tiles,
            stake=_AMOUNT,
            per_game=_null(_AMOUNT),
        ),
    ]
    return {
        "oneOf": branches,
        "description": "A game record (RULES.md section 2): one branch per game, chosen by "
        f"variant.game. The whole body is at most {MAX_RECORD_BYTES // 1024} KiB.",
    }


RECORD_SCHEMA = record_schema()
