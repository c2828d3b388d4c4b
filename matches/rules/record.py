"""Load and validate a game record (RULES.md sections 2 and 2.1).

In: the decoded JSON (a ``dict``) of a record, either one game (``hands``/``stock``/
``moves`` or ``result`` at the top level) or a session (a ``games`` list).
Out: a ``Record`` of plain dataclasses, tiles parsed and normalised, amounts as
``Decimal``, the single-game form normalised into a one-element ``games`` tuple.
Guaranteed: the shape is checked here, completely, before any rule is applied; every
problem raises ``RecordError`` whose ``path`` names the field in the submitted JSON
(``games[1].moves[3].tile``, ``hands.A[2]``, ``variant.divisor``). Checked here: types,
names (every player is a seat), every tile belongs to the variant's set, no tile is dealt
twice, amounts are non-negative decimal strings. Not checked here: whether moves are legal;
that is the variant's job during replay.

The variant's class is looked up first, so it can validate its own options and declare
the extra top-level and per-game keys it understands (anything else is refused, which
catches typos such as ``"tiel"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeGuard

from matches.rules.amounts import parse_amount
from matches.rules.errors import RecordError
from matches.rules.i18n import _
from matches.rules.model import (
    BET,
    DRAW,
    PASS,
    PLAY,
    RAISE,
    STAKE,
    TILE_MOVES,
    GameRecord,
    Move,
    Record,
    Scoresheet,
)
from matches.rules.registry import variant_class
from matches.rules.tiles import PARSED, Tile
from matches.rules.variants.base import Variant

__all__ = [
    "BET",
    "DRAW",
    "FORMAT",
    "MAX_RECORD_BYTES",
    "PASS",
    "PLAY",
    "RAISE",
    "STAKE",
    "TILE_MOVES",
    "GameRecord",
    "Move",
    "Record",
    "Scoresheet",
    "load",
]

FORMAT = "fido-game-record/1"
#: The largest record (its JSON text, in bytes) the service takes, in the viewer, the replay
#: API and a submitted match's ``records`` (all of them together). A double-21 game for nine
#: is about 30 KiB; replaying is linear in the record, and the largest record allowed
#: replays in about a tenth of a second (tests/matches/test_record_limits.py).
MAX_RECORD_BYTES = 512 * 1024

_TOP_KEYS = frozenset({"format", "variant", "seats", "teams", "banker", "games"})
_GAME_KEYS = frozenset({"hands", "stock", "moves", "result", "buy_backs"})
_RESULT_KEYS = frozenset({"domino", "blocked", "pips", "points", "play_points"})
_PLAY_KEYS = frozenset({"player", "tile", "on", "facet"})
_DRAW_KEYS = frozenset({"player", "draw", "correction"})
_PASS_KEYS = frozenset({"player", "pass"})
_STAKE_KEYS = frozenset({"player", "stake"})
_RAISE_KEYS = frozenset({"player", "raise", "accepted"})
_BET_KEYS = frozenset({"spectator", "on", "bet", "accepted"})
_FACETS = ("end", "cross")


def load(data: object) -> Record[Variant]:
    """Validate ``data`` (decoded JSON) and return the ``Record``; RecordError if it is not one.

    Long on purpose: the record's top-level fields checked one after another in the
    order the format defines them, each with its own message; read it beside docs/rules.md.
    """
    if not isinstance(data, Mapping):
        raise RecordError("", _("a game record is a JSON object"))
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError(
            "format",
            _("unknown format %(fmt)r; expected %(FORMAT)r") % {"fmt": fmt, "FORMAT": FORMAT},
        )

    raw_variant = data.get("variant")
    if not isinstance(raw_variant, Mapping):
        raise RecordError("variant", _('required: an object such as {"game": "fido", "set": 18}'))
    game_name = raw_variant.get("game")
    if not isinstance(game_name, str):
        raise RecordError("variant.game", _("required: the game's name as text"))
    cls = variant_class(game_name)
    options = {k: v for k, v in raw_variant.items() if k != "game"}
    variant = cls(options)

    single = "games" not in data
    allowed_top = _TOP_KEYS | cls.record_keys | (_GAME_KEYS | cls.game_keys if single else set())
    for key in data:
        if key not in allowed_top:
            raise RecordError(
                str(key), _("unknown field for a %(game_name)s record") % {"game_name": game_name}
            )

    seats = _seats(data.get("seats"))
    if len(seats) not in cls.seat_counts:
        counts = cls.seat_counts
        raise RecordError(
            "seats",
            _("%(game_name)s is played by %(value)s to %(value2)s players, not %(value3)s")
            % {
                "game_name": game_name,
                "value": counts[0],
                "value2": counts[-1],
                "value3": len(seats),
            },
        )
    teams = _teams(data.get("teams"), seats)
    banker = data.get("banker")
    if banker is not None and banker not in seats:
        raise RecordError("banker", _("%(banker)r is not one of the seats") % {"banker": banker})

    extra = {k: data[k] for k in cls.record_keys if k in data}
    if single:
        games: tuple[GameRecord, ...] = (_game(data, 0, "", seats, variant, cls.game_keys),)
    else:
        raw_games = data["games"]
        if not isinstance(raw_games, list) or not raw_games:
            raise RecordError("games", _("must be a non-empty list of games"))
        games = tuple(
            _game(g, i, f"games[{i}].", seats, variant, cls.game_keys)
            for i, g in enumerate(raw_games)
        )
    record: Record[Variant] = Record(variant, seats, teams, banker, games, single, extra)
    variant.check_record(record)
    return record


def _seats(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) < 2:
        raise RecordError("seats", _("required: a list of at least two player names"))
    for i, s in enumerate(raw):
        if not isinstance(s, str) or not s:
            raise RecordError(f"seats[{i}]", _("a player name is non-empty text"))
        if s in raw[:i]:
            raise RecordError(f"seats[{i}]", _("%(s)r sits twice") % {"s": s})
    return tuple(raw)


def _teams(raw: object, seats: tuple[str, ...]) -> tuple[tuple[str, ...], ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) < 2:
        raise RecordError("teams", _("a list of at least two teams, each a list of seats"))
    seen: set[str] = set()
    teams = []
    for i, team in enumerate(raw):
        if not isinstance(team, list) or not team:
            raise RecordError(f"teams[{i}]", _("a team is a non-empty list of seats"))
        for j, member in enumerate(team):
            if member not in seats:
                raise RecordError(
                    f"teams[{i}][{j}]", _("%(member)r is not one of the seats") % {"member": member}
                )
            if member in seen:
                raise RecordError(
                    f"teams[{i}][{j}]", _("%(member)r is in two teams") % {"member": member}
                )
            seen.add(member)
        teams.append(tuple(team))
    missing = [s for s in seats if s not in seen]
    if missing:
        raise RecordError(
            "teams",
            _("every seat plays in a team; missing %(value)s") % {"value": ", ".join(missing)},
        )
    return tuple(teams)


def _is_object(value: object) -> TypeGuard[Mapping[str, Any]]:
    # JSON objects decode to dict; the ABC check is the slow fallback for other mappings.
    return type(value) is dict or isinstance(value, Mapping)


def _tile(raw: object, path: str, variant: Variant) -> Tile:
    tile = PARSED.get(raw) if type(raw) is str else None  # the hot path: one dict lookup
    if tile is None:
        try:
            tile = Tile.parse(raw)  # type: ignore[arg-type]
        except ValueError as exc:
            raise RecordError(path, str(exc)) from None
    if tile not in variant.tiles:
        raise RecordError(
            path,
            _("%(tile)s is not in the %(set_name)s") % {"tile": tile, "set_name": variant.set_name},
        )
    return tile


def _amount(raw: object, path: str) -> Decimal:
    return parse_amount(raw, path, positive=False)


def _game(
    raw: object,
    index: int,
    prefix: str,
    seats: tuple[str, ...],
    variant: Variant,
    game_keys: frozenset[str],
) -> GameRecord:
    where = prefix[:-1] if prefix else ""
    if not isinstance(raw, Mapping):
        raise RecordError(where, _("a game is a JSON object"))
    if prefix:  # in a session each game is its own object; check its keys here
        for key in raw:
            if key not in _GAME_KEYS and key not in game_keys:
                raise RecordError(f"{prefix}{key}", _("unknown field for a game"))

    has_result = "result" in raw
    if has_result and ("hands" in raw or "stock" in raw):
        raise RecordError(
            f"{prefix}result", _("a game carries either hands and moves, or a scoresheet result")
        )
    if not has_result and "hands" not in raw:
        raise RecordError(f"{prefix}hands", _("required (or a scoresheet `result`)"))

    hands = None
    stock = None
    seen: dict[Tile, str] = {}
    if not has_result:
        hands = _hands(raw["hands"], prefix, seats, variant, seen)
        if raw.get("stock") is not None:
            stock = _tile_list(raw["stock"], f"{prefix}stock", variant, seen)

    moves, buy_backs = _moves(raw, prefix, seats, variant, has_result=has_result)
    result = (
        _result(raw["result"], f"{prefix}result", seats, partial_pips=variant.players_drop_out)
        if has_result
        else None
    )
    extra = {k: raw[k] for k in game_keys if k in raw}
    return GameRecord(index, prefix, hands, stock, tuple(moves), result, buy_backs, extra)


def _moves(
    raw: Mapping[str, Any],
    prefix: str,
    seats: tuple[str, ...],
    variant: Variant,
    *,
    has_result: bool,
) -> tuple[list[Move], tuple[str, ...]]:
    """A game's moves and its buy-backs (a game-level key, or the last entry of ``moves``)."""
    raw_moves = raw.get("moves", [] if has_result else None)
    if not isinstance(raw_moves, list):
        raise RecordError(f"{prefix}moves", _("required: a list of moves"))
    moves = []
    buy_backs: tuple[str, ...] = ()
    last = len(raw_moves) - 1
    for i, m in enumerate(raw_moves):
        path = f"{prefix}moves[{i}]" if type(m) is not dict or "tile" not in m else ""
        if _is_object(m) and "buy_backs" in m:
            # RULES 2.1 writes buy-backs "after a Pulle game": accepted as the last entry of
            # `moves` as well as a game-level key, and lifted into GameRecord.buy_backs.
            if i != last or len(m) != 1:
                raise RecordError(path, _("buy_backs stands alone, as the game's last entry"))
            buy_backs = _players(m["buy_backs"], f"{path}.buy_backs", seats)
            continue
        move = _fast_play(m, seats, variant.tiles) or _move(
            m, path or f"{prefix}moves[{i}]", seats, variant
        )
        if has_result and move.kind in TILE_MOVES:
            raise RecordError(path, _("a scoresheet game's moves hold only session events"))
        moves.append(move)
    if "buy_backs" in raw:
        if buy_backs:
            raise RecordError(f"{prefix}buy_backs", _("given twice (also in moves)"))
        buy_backs = _players(raw["buy_backs"], f"{prefix}buy_backs", seats)
    return moves, buy_backs


def _hands(
    raw: object, prefix: str, seats: tuple[str, ...], variant: Variant, seen: dict[Tile, str]
) -> dict[str, tuple[Tile, ...]]:
    path = f"{prefix}hands"
    if not isinstance(raw, Mapping):
        raise RecordError(path, _("an object mapping each seat to its list of tiles"))
    for name in raw:
        if name not in seats:
            raise RecordError(
                f"{path}.{name}", _("%(name)r is not one of the seats") % {"name": name}
            )
    hands = {}
    for name in seats:
        if name not in raw:
            raise RecordError(f"{path}.{name}", _("every seat's hand is required (may be [])"))
        hands[name] = _tile_list(raw[name], f"{path}.{name}", variant, seen)
    return hands


def _tile_list(raw: object, path: str, variant: Variant, seen: dict[Tile, str]) -> tuple[Tile, ...]:
    if not isinstance(raw, list):
        raise RecordError(path, _('a list of tiles such as ["18-12", "5-0"]'))
    tiles = []
    in_set = variant.tiles
    for i, text in enumerate(raw):
        tile = PARSED.get(text) if type(text) is str else None
        if tile is None or tile not in in_set:
            tile = _tile(text, f"{path}[{i}]", variant)  # raises with the precise reason
        if tile in seen:
            raise RecordError(
                f"{path}[{i}]",
                _("%(tile)s is dealt twice (also in %(value)s)")
                % {"tile": tile, "value": seen[tile]},
            )
        # Store the list's path, not the item's: formatting one string per tile would
        # cost more than the rest of this loop; the index is recovered on error.
        seen[tile] = path
        tiles.append(tile)
    return tuple(tiles)


def _players(raw: object, path: str, seats: tuple[str, ...]) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise RecordError(path, _("a list of seats"))
    for i, name in enumerate(raw):
        if name not in seats:
            raise RecordError(
                f"{path}[{i}]", _("%(name)r is not one of the seats") % {"name": name}
            )
    return tuple(raw)


def _player(m: Mapping[str, Any], path: str, seats: tuple[str, ...]) -> str:
    player = m.get("player")
    if player not in seats:
        if player is None:
            raise RecordError(f"{path}.player", _("required: the seat that made the move"))
        raise RecordError(
            f"{path}.player", _("%(player)r is not one of the seats") % {"player": player}
        )
    return player  # type: ignore[return-value]


def _check_keys(m: Mapping[str, Any], allowed: frozenset[str], path: str, what: str) -> None:
    if m.keys() <= allowed:  # one C-level comparison on the hot path
        return
    for key in m:
        if key not in allowed:
            raise RecordError(f"{path}.{key}", _("not a field of a %(what)s move") % {"what": what})


def _bool(m: Mapping[str, Any], key: str, path: str, *, required: bool) -> bool | None:
    value = m.get(key)
    if value is None:
        if required:
            raise RecordError(f"{path}.{key}", _("required: true or false"))
        return None
    if not isinstance(value, bool):
        raise RecordError(
            f"{path}.{key}", _("must be true or false, got %(value)r") % {"value": value}
        )
    return value


def _fast_play(m: object, seats: tuple[str, ...], in_set: frozenset[Tile]) -> Move | None:
    """The common, well-formed placement, checked with a few lookups; None sends anything
    else (including every faulty placement) to ``_move``, which names the problem."""
    if type(m) is not dict or "tile" not in m or not m.keys() <= _PLAY_KEYS:
        return None
    player = m.get("player")
    raw = m["tile"]
    tile = PARSED.get(raw) if type(raw) is str else None
    if tile is None or tile not in in_set or player not in seats:
        return None
    raw_on = m.get("on")
    on = None
    if raw_on is not None:
        on = PARSED.get(raw_on) if type(raw_on) is str else None
        if on is None or on not in in_set:
            return None
    facet = m.get("facet")
    if facet is not None and facet not in _FACETS:
        return None
    return Move(PLAY, player, tile, on, facet)


def _move(m: object, path: str, seats: tuple[str, ...], variant: Variant) -> Move:
    """Long on purpose: the three kinds of move (placement, pass/draw, scoring call) checked
    field by field in the order of the format, each with its own message."""
    if not _is_object(m):
        raise RecordError(path, _("a move is a JSON object"))
    if "tile" in m:
        _check_keys(m, _PLAY_KEYS, path, "placement")
        player = _player(m, path, seats)
        tile = _tile(m["tile"], f"{path}.tile", variant)
        on = m.get("on")
        on_tile = None if on is None else _tile(on, f"{path}.on", variant)
        facet = m.get("facet")
        if facet is not None and facet not in _FACETS:
            raise RecordError(
                f"{path}.facet", _('"end" or "cross", got %(facet)r') % {"facet": facet}
            )
        return Move(PLAY, player, tile, on_tile, facet)
    if "draw" in m:
        _check_keys(m, _DRAW_KEYS, path, "draw")
        player = _player(m, path, seats)
        raw = m["draw"]
        drawn = None if raw is True else _tile(raw, f"{path}.draw", variant)
        correction = _bool(m, "correction", path, required=False) or False
        return Move(DRAW, player, drawn, correction=correction)
    if "pass" in m:
        _check_keys(m, _PASS_KEYS, path, "pass")
        if m["pass"] is not True:
            raise RecordError(f"{path}.pass", _('a pass is written "pass": true'))
        return Move(PASS, _player(m, path, seats))
    if "stake" in m:
        _check_keys(m, _STAKE_KEYS, path, "stake")
        player = _player(m, path, seats)
        return Move(STAKE, player, amount=_amount(m["stake"], f"{path}.stake"))
    if "raise" in m:
        _check_keys(m, _RAISE_KEYS, path, "raise")
        player = _player(m, path, seats)
        amount = _amount(m["raise"], f"{path}.raise")
        return Move(
            RAISE, player, amount=amount, accepted=_bool(m, "accepted", path, required=True)
        )
    if "spectator" in m or "bet" in m:
        _check_keys(m, _BET_KEYS, path, "spectator bet")
        spectator = m.get("spectator")
        if not isinstance(spectator, str) or not spectator:
            raise RecordError(f"{path}.spectator", _("required: the spectator's name"))
        if spectator in seats:
            raise RecordError(
                f"{path}.spectator",
                _("%(spectator)r plays at this table") % {"spectator": spectator},
            )
        target = m.get("on")
        if target not in seats:
            raise RecordError(
                f"{path}.on",
                _("the player bet on must be a seat, got %(target)r") % {"target": target},
            )
        if "bet" not in m:
            raise RecordError(f"{path}.bet", _("required: the amount as a decimal string"))
        return Move(
            BET,
            None,
            amount=_amount(m["bet"], f"{path}.bet"),
            accepted=_bool(m, "accepted", path, required=True),
            spectator=spectator,
            target=target,  # type: ignore[arg-type]
        )
    raise RecordError(path, _("a move needs one of: tile, draw, pass, stake, raise, bet"))


def _score_map(
    raw: object, path: str, seats: Sequence[str], *, signed: bool, partial: bool = False
) -> dict[str, int]:
    """Each seat's whole number; with ``partial`` a seat may be absent or null (left out of
    the map: the variant decides whose number it needs)."""
    if not isinstance(raw, Mapping):
        raise RecordError(path, _("an object mapping every seat to a whole number"))
    out = {}
    for name in raw:
        if name not in seats:
            raise RecordError(
                f"{path}.{name}", _("%(name)r is not one of the seats") % {"name": name}
            )
    for name in seats:
        value = raw.get(name)
        if partial and value is None:
            continue
        if type(value) is not int:
            raise RecordError(
                f"{path}.{name}", _("required: a whole number, got %(value)r") % {"value": value}
            )
        if value < 0 and not signed:
            raise RecordError(
                f"{path}.{name}", _("cannot be negative, got %(value)s") % {"value": value}
            )
        out[name] = value
    return out


def _result(
    raw: object, path: str, seats: tuple[str, ...], *, partial_pips: bool = False
) -> Scoresheet:
    if not isinstance(raw, Mapping):
        raise RecordError(path, _("a scoresheet result is a JSON object"))
    for key in raw:
        if key not in _RESULT_KEYS:
            raise RecordError(f"{path}.{key}", _("not a field of a scoresheet result"))
    domino = raw.get("domino")
    blocked = raw.get("blocked", False)
    if type(blocked) is not bool:  # not 1 or 0.0, which compare equal to True/False
        raise RecordError(f"{path}.blocked", _("must be true or false"))
    if (domino is None) == (not blocked):
        raise RecordError(path, _('give exactly one of "domino": seat or "blocked": true'))
    if domino is not None and domino not in seats:
        raise RecordError(
            f"{path}.domino", _("%(domino)r is not one of the seats") % {"domino": domino}
        )
    pips = _score_map(raw.get("pips"), f"{path}.pips", seats, signed=False, partial=partial_pips)
    if domino is not None and pips.get(domino, 0) != 0:
        raise RecordError(f"{path}.pips.{domino}", _("the player who dominoed holds no tiles"))
    points = raw.get("points")
    play_points = raw.get("play_points")
    return Scoresheet(
        domino,
        bool(blocked),
        pips,
        None if points is None else _score_map(points, f"{path}.points", seats, signed=False),
        None
        if play_points is None
        else _score_map(play_points, f"{path}.play_points", seats, signed=False),
    )
