"""The FIDO divisor game (RULES.md section 3): ``"game": "fido"``.

In: a loaded ``Record`` whose variant options are ``set`` (6, 9, 12, 15, 18 or 21;
required), ``divisor`` (3, 5, 7, 9, 11 or 13; default 2N/3 - 1) and ``hand_size``
(optional: a tournament's own hand size, else the federation's table of 3.1).
Out: one ``GameReport`` per game (each placement's count S and points) and the match
settled as the sum of each side's finals.

The layout is modelled exactly as the scorer sees it (3.2): E, the multiset of open-end
values, and X, the multiset of free cross sides. To check a placement's ``on`` the engine
also keeps, per placed tile, which of its ends and cross sides are still free; E and X
are the union of those. ``S = sum(E)`` is kept as a running integer.

Per placed tile (``v`` the value joined, ``y`` the tile's other end):
- opening double v-v: ends [v, v], cross sides [v, v];
- opening non-double a-b (nobody dealt a double): ends [a, b], no cross side;
- tile v-y on an end: that end is covered; the tile has end [y];
- tile v-y on a cross side: the cross side is used; the tile has end [y] (nothing covered);
- double v-v on an end or a cross side: ends [v, v] and one cross side [v] (its fourth
  side). On an end this is 3.2's "E loses v, gains v, v; X gains v"; on a cross side
  (RULES.md is silent) the same crossing applies, so S rises by 2v (see docs/rules.md).

Decisions where RULES.md is silent are listed in docs/rules.md; the main ones, as coded:
opening without doubles uses the heaviest tile, ties broken by the higher top end; two
players take the three-player hand size; a record that ends before the game does is
refused (unless replayed with ``partial``), as is one where a short-dealt player never
drew the tiles owed; a correction draw may come at any point, even after the last tile;
a short-dealt player who places their last tile while still owed tiles has not ended the
game (they must draw the missing tiles and play on).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from matches.rules.errors import IllegalMove, RecordError, must_play_message
from matches.rules.i18n import _, ngettext
from matches.rules.model import DRAW, PASS, PLAY, GameRecord, Move, Record, Scoresheet
from matches.rules.report import (
    BLOCKED,
    DOMINO,
    UNFINISHED,
    GameReport,
    PlayerResult,
    best_sides,
    draw,
    passed,
    placement,
    side_rows,
)
from matches.rules.tiles import MAX_PIPS, Tile, double_set, heaviest
from matches.rules.variants.base import SimulatedGame, SimulatedSession, Variant, option_int
from matches.rules.variants.hooks import Previous, Random, Seats, Teams
from matches.rules.variants.turns import stock_tile

SETS = (6, 9, 12, 15, 18, 21)
DIVISORS = (3, 5, 7, 9, 11, 13)

#: Tiles per player, from the federation's table (RULES.md 3.1): HAND_SIZES[set][players].
HAND_SIZES: dict[int, dict[int, int]] = {
    6: {3: 7, 4: 5, 5: 4, 6: 4, 7: 3, 8: 3, 9: 2},
    9: {3: 13, 4: 11, 5: 9, 6: 7, 7: 6, 8: 6, 9: 5},
    12: {3: 22, 4: 18, 5: 15, 6: 13, 7: 11, 8: 10, 9: 9},
    15: {3: 34, 4: 27, 5: 22, 6: 19, 7: 17, 8: 15, 9: 13},
    18: {3: 47, 4: 38, 5: 31, 6: 27, 7: 23, 8: 21, 9: 19},
    21: {3: 63, 4: 50, 5: 42, 6: 36, 7: 31, 8: 28, 9: 25},
}

_OPTIONS = frozenset({"set", "divisor", "hand_size"})


def default_divisor(n: int) -> int:
    return 2 * n // 3 - 1


def score(s: int, divisor: int) -> int:
    """Points for an open-end sum ``s``: s / d when s > 0 and d divides s, else 0."""
    return s // divisor if s > 0 and s % divisor == 0 else 0


class Fido(Variant):
    """The divisor game. See the module docstring."""

    game = "fido"
    seat_counts = range(2, 10)  # 3 to 9 at a table; 2 allowed for practice (3.1)

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        for key in options:
            if key not in _OPTIONS:
                raise RecordError(f"variant.{key}", _("not an option of the FIDO game"))
        if "set" not in options:
            raise RecordError("variant.set", _("required: the set played (6, 9, 12, 15, 18, 21)"))
        self.n = option_int(options, "set", None, SETS)
        self.divisor = option_int(options, "divisor", default_divisor(self.n), DIVISORS)
        self.hand_size: int | None = None
        if "hand_size" in options:
            self.hand_size = option_int(options, "hand_size", None, range(1, 127))
        self.tiles = double_set(self.n)
        self.set_name = f"double-{self.n} set"

    def check_record(self, record: Record) -> None:
        hand = self.expected_hand(len(record.seats))
        if hand * len(record.seats) > len(self.tiles):
            raise RecordError(
                "variant.hand_size",
                _("%(value)s hands of %(hand)s need more than the %(value2)s tiles")
                % {"value": len(record.seats), "hand": hand, "value2": len(self.tiles)},
            )
        for game in record.games:
            for i, move in enumerate(game.moves):
                if move.kind not in (PLAY, DRAW, PASS):
                    raise RecordError(
                        f"{game.prefix}moves[{i}]", _("FIDO games have no stakes or bets")
                    )
            if game.buy_backs:
                raise RecordError(f"{game.prefix}buy_backs", _("FIDO games have no buy-backs"))
            if game.result is not None and game.result.points is None:
                raise RecordError(
                    f"{game.prefix}result.points",
                    _("required: a FIDO scoresheet gives each player's points"),
                )

    def expected_hand(self, players: int) -> int:
        """The regular hand size: the record's ``hand_size``, else the table (two players,
        which the table does not cover, take the three-player size)."""
        if self.hand_size is not None:
            return self.hand_size
        return HAND_SIZES[self.n][max(players, 3)]

    def replay_game(
        self, record: Record, game: GameRecord, previous: Previous, *, partial: bool = False
    ) -> GameReport:
        return _Replay(self, record, game).run(partial)

    def score_sheet(
        self, record: Record, game: GameRecord, previous: Sequence[GameReport]
    ) -> GameReport:
        result = cast(Scoresheet, game.result)
        points = cast(dict[str, int], result.points)  # check_record made it required
        players = {
            seat: PlayerResult(points[seat], result.pips[seat], points[seat] - result.pips[seat])
            for seat in record.seats
        }
        return _game_report([], DOMINO if result.domino else BLOCKED, players, record)

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        return SimulatedSession([_simulate_game(self, rng, seats) for _unused in range(games)])


def _game_report(
    moves: list[dict[str, Any]], end: str, players: dict[str, PlayerResult], record: Record
) -> GameReport:
    sides = record.sides()
    finals = {seat: p.final for seat, p in players.items()}
    winners = [] if end == UNFINISHED else best_sides(sides, finals)
    return GameReport(moves, end, players, winners, side_rows(sides, players, winners))


class _Replay:
    """The state of one game being replayed. ``run`` walks the moves once."""

    __slots__ = (
        "cross_of",
        "d",
        "ends_of",
        "game",
        "hands",
        "in_play",
        "listed",
        "listed_pos",
        "open_count",
        "owed",
        "placed",
        "record",
        "s",
        "stock_left",
        "variant",
    )

    def __init__(self, variant: Fido, record: Record, game: GameRecord) -> None:
        dealt_hands = cast(dict[str, tuple[Tile, ...]], game.hands)  # a full game has hands
        self.variant = variant
        self.record = record
        self.game = game
        self.d = variant.divisor
        self.hands: dict[str, set[Tile]] = {p: set(h) for p, h in dealt_hands.items()}
        dealt = sum(len(h) for h in dealt_hands.values())
        self.in_play: set[Tile] = set().union(*self.hands.values())
        self.listed = game.stock or ()
        self.listed_pos = 0
        # The stock is every tile not dealt; a listed stock gives the order of its top part.
        self.stock_left = len(variant.tiles) - dealt
        regular = variant.expected_hand(len(record.seats))
        self.owed = {p: max(0, regular - len(h)) for p, h in dealt_hands.items()}
        # Layout: free ends and cross sides per placed tile; open_count[v] = |E|_v + |X|_v.
        self.ends_of: dict[Tile, list[int]] = {}
        self.cross_of: dict[Tile, list[int]] = {}
        self.placed = self.ends_of  # every placed tile has an ends_of entry
        self.open_count = [0] * (MAX_PIPS + 1)
        self.s = 0

    def illegal(self, n: int, player: str | None, rule: str, message: str) -> IllegalMove:
        return IllegalMove(game=self.game.index, move=n, player=player, rule=rule, message=message)

    def opening(self) -> tuple[str, Tile] | None:
        """Who opens and with what (3.4): the highest double dealt, else the heaviest tile."""
        best: tuple[str, Tile] | None = None
        for seat in self.record.seats:
            for t in self.hands[seat]:
                if t[0] == t[1] and (best is None or t[0] > best[1][0]):
                    best = (seat, t)
        if best is not None:
            return best
        everything = [t for h in self.hands.values() for t in h]
        if not everything:
            return None
        top = heaviest(everything)
        return next((seat, top) for seat in self.record.seats if top in self.hands[seat])

    def playable(self, hand: set[Tile]) -> Tile | None:
        """The highest tile of ``hand`` that fits somewhere (named in must-play messages)."""
        counts = self.open_count
        fits = [t for t in hand if counts[t[0]] or counts[t[1]]]
        return max(fits) if fits else None

    def run(self, partial: bool, observe: Callable[[_Replay], None] | None = None) -> GameReport:
        """Replay every move; ``observe`` (tests, tools) sees the state after each one.

        Long on purpose: the replay's hot loop (its speed: bench/replay.py); its
        steps share a dozen local variables, and splitting it would cost a call per move.
        """
        record = self.record
        seats = record.seats
        n_seats = len(seats)
        hands = self.hands
        points = dict.fromkeys(seats, 0)
        entries: list[dict[str, Any]] = []
        opening = self.opening()
        turn = -1  # index in seats of the player to move; -1 until the opening
        placements = 0
        passes = 0
        end: str | None = None
        d = self.d
        for n, mv in enumerate(self.game.moves, 1):
            player = cast(str, mv.player)  # FIDO moves all name a seat (check_record)
            if mv.kind == DRAW and mv.correction:
                entries.append(self.correction(n, player, mv))
                if observe is not None:
                    observe(self)
                continue
            if end is not None:
                raise self.illegal(
                    n, player, "after-end", _("the game already ended (%(end)s)") % {"end": end}
                )
            turn = self.check_turn(n, player, mv, turn, opening)

            hand = hands[player]
            if mv.kind == PLAY:
                self.place(n, player, mv, hand, placements)
                placements += 1
                gained = score(self.s, d)
                points[player] += gained
                entries.append(placement(n, player, mv.tile, self.s, gained))  # type: ignore[arg-type]
                passes = 0
                if not hand and not self.owed[player]:
                    # A player still owed tiles (dealt too few, 3.6) has not really played
                    # out: the deficit is found now at the latest, and they must draw.
                    end = DOMINO
            elif mv.kind == DRAW:
                self.check_cannot_play(n, player, hand, "draw-while-playable")
                entries.append(draw(n, player, self.take(n, player, mv)))
                passes = 0
            else:
                self.check_cannot_play(n, player, hand, "pass-while-playable")
                if self.stock_left:
                    raise self.illegal(
                        n,
                        player,
                        "pass-with-stock",
                        _("the stock still holds %(stock_left)s tiles: draw one")
                        % {"stock_left": self.stock_left},
                    )
                entries.append(passed(n, player))
                passes += 1
                if passes == n_seats:
                    end = BLOCKED
            turn = (turn + 1) % n_seats
            if observe is not None:
                observe(self)

        end = self.check_end(end, partial, turn, opening)
        return _game_report(entries, end, self.results(points), record)

    def results(self, points: dict[str, int]) -> dict[str, PlayerResult]:
        """Each seat's points, pips left in hand and game result (points minus pips)."""
        players = {}
        for seat in self.record.seats:
            left = sum(t[0] + t[1] for t in self.hands[seat])
            players[seat] = PlayerResult(points[seat], left, points[seat] - left)
        return players

    def check_cannot_play(self, n: int, player: str, hand: set[Tile], rule: str) -> None:
        """A player who can place a tile must (RULES 3.4): ``rule`` names the refusal."""
        can = self.playable(hand)
        if can is not None:
            raise self.illegal(n, player, rule, must_play_message(player, can))

    def check_turn(
        self, n: int, player: str, mv: Move, turn: int, opening: tuple[str, Tile] | None
    ) -> int:
        """The index of the seat to move, checked against ``player`` (the first move must be
        the opening: RULES 3.2)."""
        seats = self.record.seats
        if turn >= 0:
            if player != seats[turn]:
                raise self.illegal(
                    n, player, "out-of-turn", _("it is %(value)s's turn") % {"value": seats[turn]}
                )
            return turn
        if opening is None:
            raise self.illegal(n, player, "no-tiles", _("nobody was dealt a tile"))
        opener, first = opening
        if player != opener:
            raise self.illegal(
                n,
                player,
                "out-of-turn",
                _("%(opener)s opens the game with %(first)s") % {"opener": opener, "first": first},
            )
        if mv.kind != PLAY or mv.tile != first:
            raise self.illegal(
                n,
                player,
                "wrong-opening",
                _("%(opener)s must open with %(first)s") % {"opener": opener, "first": first},
            )
        return seats.index(opener)

    def check_end(
        self, end: str | None, partial: bool, turn: int, opening: tuple[str, Tile] | None
    ) -> str:
        """How the game ended; an unfinished game or a missing correction draw is illegal
        unless ``partial``."""
        after = len(self.game.moves) + 1
        if end is None:
            if not partial:
                seats = self.record.seats
                who = seats[turn] if turn >= 0 else (opening[0] if opening else None)
                raise self.illegal(
                    after,
                    who,
                    "unfinished",
                    _("the record stops before the game ends (%(who)s to move)") % {"who": who},
                )
            return UNFINISHED
        if not partial:
            for seat, owed in self.owed.items():
                if owed:
                    raise self.illegal(
                        after,
                        seat,
                        "correction-missing",
                        ngettext(
                            "%(seat)s was dealt %(owed)s tile too few and never drew it",
                            "%(seat)s was dealt %(owed)s tiles too few and never drew them",
                            owed,
                        )
                        % {"seat": seat, "owed": owed},
                    )
        return end

    def place(self, n: int, player: str, mv: Move, hand: set[Tile], placements: int) -> None:
        tile = cast(Tile, mv.tile)  # a placement always names its tile
        if tile in self.placed:
            raise self.illegal(
                n, player, "already-played", _("%(tile)s is already on the table") % {"tile": tile}
            )
        if tile not in hand:
            raise self.illegal(
                n,
                player,
                "not-in-hand",
                _("%(player)s does not hold %(tile)s") % {"player": player, "tile": tile},
            )
        hi, lo = tile
        on = mv.on
        if placements == 0:
            if on is not None:
                raise self.illegal(
                    n, player, "lead-on", _("the opening tile is not attached to anything")
                )
            self.lead(tile)
            hand.remove(tile)
            return
        if on is None:
            raise self.illegal(
                n,
                player,
                "on-required",
                _("say which tile %(tile)s is placed on (`on`)") % {"tile": tile},
            )
        ends = self.ends_of.get(on)
        if ends is None:
            raise self.illegal(
                n, player, "on-not-in-layout", _("%(on)s is not on the table") % {"on": on}
            )
        v = self.join(n, player, tile, on, ends, cross=mv.facet == "cross", second=placements == 1)
        counts = self.open_count
        counts[v] -= 1
        if hi == lo:
            self.ends_of[tile] = [hi, hi]
            self.cross_of[tile] = [hi]
            counts[hi] += 3
            self.s += 2 * hi
        else:
            y = lo if hi == v else hi
            self.ends_of[tile] = [y]
            counts[y] += 1
            self.s += y
        hand.remove(tile)

    def lead(self, tile: Tile) -> None:
        """The opening tile: its open ends (a double's cross sides too) and S."""
        hi, lo = tile
        if hi == lo:
            self.ends_of[tile] = [hi, hi]
            self.cross_of[tile] = [hi, hi]
            self.open_count[hi] += 4
            self.s = 2 * hi
        else:
            self.ends_of[tile] = [hi, lo]
            self.open_count[hi] += 1
            self.open_count[lo] += 1
            self.s = hi + lo

    def join(
        self,
        n: int,
        player: str,
        tile: Tile,
        on: Tile,
        ends: list[int],
        *,
        cross: bool,
        second: bool,
    ) -> int:
        """Take the end (or cross side) of ``on`` that ``tile`` joins; the value joined.

        Long on purpose: the placement check on the replay's fast path, one rule after another
        in the order docs/rules.md states them; a call per rule would cost time on every move.
        """
        hi, lo = tile
        if second and on in self.cross_of and len(self.cross_of[on]) == 2 and not cross:
            # 3.2: the second tile goes on a cross side of the opening double, so that the
            # layout has three ends.
            raise self.illegal(
                n,
                player,
                "second-not-on-cross",
                _('the second tile goes on a cross side of %(on)s (facet "cross")') % {"on": on},
            )
        if cross:
            sides = self.cross_of.get(on)
            if sides is None:
                raise self.illegal(
                    n,
                    player,
                    "no-cross-side",
                    _("%(on)s is not a double: no cross side") % {"on": on},
                )
            if not sides:
                raise self.illegal(
                    n,
                    player,
                    "cross-side-taken",
                    # Only the opening double has two cross sides.
                    _("both cross sides of %(on)s are taken") % {"on": on}
                    if on == next(iter(self.ends_of))
                    else _("the cross side of %(on)s is taken") % {"on": on},
                )
            v = sides[0]
            if hi != v and lo != v:
                raise self.illegal(
                    n,
                    player,
                    "no-match",
                    _("%(tile)s does not match the %(v)s of %(on)s")
                    % {"tile": tile, "v": v, "on": on},
                )
            sides.pop()
        else:
            if not ends:
                raise self.illegal(
                    n, player, "no-open-end", _("%(on)s has no free end left") % {"on": on}
                )
            if hi in ends:
                v = hi
            elif lo in ends:
                v = lo
            else:
                free = " or ".join(str(e) for e in sorted(set(ends), reverse=True))
                raise self.illegal(
                    n,
                    player,
                    "no-match",
                    _("%(tile)s does not match the %(free)s of %(on)s")
                    % {"tile": tile, "free": free, "on": on},
                )
            ends.remove(v)
            self.s -= v
        return v

    def take(self, n: int, player: str, mv: Move) -> Tile:
        """Move the drawn tile from the stock to the player's hand, checking it may be drawn."""
        if not self.stock_left:
            raise self.illegal(n, player, "stock-empty", _("the stock is empty"))
        tile = stock_tile(self, n, player, mv.tile)
        self.hands[player].add(tile)
        self.stock_left -= 1
        return tile

    def correction(self, n: int, player: str, mv: Move) -> dict[str, Any]:
        """3.6: a short-dealt player draws a missing tile, outside the turn order."""
        if not self.owed[player]:
            raise self.illegal(
                n,
                player,
                "correction-not-owed",
                _("%(player)s was not dealt too few tiles") % {"player": player},
            )
        tile = self.take(n, player, mv)
        self.owed[player] -= 1
        return draw(n, player, tile, correction=True)


def _simulate_game(variant: Fido, rng: random.Random, seats: tuple[str, ...]) -> SimulatedGame:
    """Deal and play one random legal FIDO game.

    Deliberately written apart from ``_Replay``: the layout is a flat list of open slots
    ``(tile, value, is_cross)`` and S is recomputed from it, so that replaying the output
    checks the engine against a second implementation rather than against itself (its
    helpers below are the simulator's own).
    """
    deck = sorted(variant.tiles)
    rng.shuffle(deck)
    size = variant.expected_hand(len(seats))
    hands = {seat: deck[i * size : (i + 1) * size] for i, seat in enumerate(seats)}
    stock = deck[len(seats) * size :]
    held = {seat: list(h) for seat, h in hands.items()}

    first, opener, slots = _sim_opening(held, seats)
    held[opener].remove(first)
    moves: list[dict[str, Any]] = [{"player": opener, "tile": str(first)}]
    points = dict.fromkeys(seats, 0)
    gained = _sim_score(variant, slots)
    points[opener] += gained
    move_points: list[int | None] = [gained]
    turn = (seats.index(opener) + 1) % len(seats)
    passes = 0
    end = DOMINO if not held[opener] else ""
    second = first.is_double
    while not end:
        seat = seats[turn]
        usable = [sl for sl in slots if sl[2]] if second else slots
        options = [(t, sl) for t in held[seat] for sl in usable if sl[1] in t]
        if options:
            # Favour a scoring placement now and then, like a player would.
            scoring = [o for o in options if _sim_gain(variant, slots, *o)]
            tile, slot = rng.choice(scoring if scoring and rng.random() < 0.6 else options)
            held[seat].remove(tile)
            moves.append(_sim_place(slots, seat, tile, slot))
            gained = _sim_score(variant, slots)
            points[seat] += gained
            move_points.append(gained)
            passes = 0
            second = False
            if not held[seat]:
                end = DOMINO
        elif stock:
            tile = stock.pop(0)
            held[seat].append(tile)
            moves.append({"player": seat, "draw": str(tile)})
            move_points.append(None)
            passes = 0
        else:
            moves.append({"player": seat, "pass": True})
            move_points.append(None)
            passes += 1
            if passes == len(seats):
                end = BLOCKED
        turn = (turn + 1) % len(seats)
    finals = {seat: points[seat] - sum(t[0] + t[1] for t in held[seat]) for seat in seats}
    game = {"hands": _sim_texts(hands), "stock": [str(t) for t in deck[len(seats) * size :]]}
    return SimulatedGame({**game, "moves": moves}, move_points, finals, end)


def _sim_texts(hands: dict[str, list[Tile]]) -> dict[str, list[str]]:
    return {seat: [str(t) for t in h] for seat, h in hands.items()}


def _sim_opening(
    held: dict[str, list[Tile]], seats: tuple[str, ...]
) -> tuple[Tile, str, list[tuple[Tile, int, bool]]]:
    """The opening tile (the highest double, else the heaviest tile), its holder, and the
    open slots it leaves: four (two ends, two cross sides) for a double, else two."""
    doubles = [(t, seat) for seat in seats for t in held[seat] if t.is_double]
    if doubles:
        first, opener = max(doubles)
    else:
        pool = [(t[0] + t[1], t[0], t, seat) for seat in seats for t in held[seat]]
        _unused, _unused, first, opener = max(pool)
    if first.is_double:
        v = first[0]
        return (
            first,
            opener,
            [(first, v, False), (first, v, False), (first, v, True), (first, v, True)],
        )
    return first, opener, [(first, first[0], False), (first, first[1], False)]


def _sim_place(
    slots: list[tuple[Tile, int, bool]], seat: str, tile: Tile, slot: tuple[Tile, int, bool]
) -> dict[str, Any]:
    """Place ``tile`` on ``slot`` (its slots replace that one); the record's move."""
    slots.remove(slot)
    on, val, is_cross = slot
    if tile.is_double:
        slots += [(tile, val, False), (tile, val, False), (tile, val, True)]
    else:
        slots.append((tile, tile.other(val), False))
    move: dict[str, Any] = {"player": seat, "tile": str(tile), "on": str(on)}
    if on.is_double:
        move["facet"] = "cross" if is_cross else "end"
    return move


def _sim_score(variant: Fido, slots: list[tuple[Tile, int, bool]]) -> int:
    """The points of the placement that left these slots: S (the open ends, cross sides
    not counted) divided by the divisor when it divides S."""
    s = sum(val for _unused, val, is_cross in slots if not is_cross)
    return s // variant.divisor if s > 0 and s % variant.divisor == 0 else 0


def _sim_gain(variant: Fido, slots: list[tuple[Tile, int, bool]], tile: Tile, slot: Any) -> int:
    s = sum(val for _unused, val, c in slots if not c)
    _unused, val, is_cross = slot
    if not is_cross:
        s -= val
    s += 2 * val if tile.is_double else tile.other(val)
    return s // variant.divisor if s > 0 and s % variant.divisor == 0 else 0


def layout(record: Record, *, game: int = 0) -> tuple[list[int], list[int]]:
    """E and X (each sorted high to low) after the moves of one game of a loaded FIDO record
    (:func:`matches.rules.record.load`; this module does not import the loader, which
    imports the registry, which imports this module).

    For tests and tools that want the scorer's view rather than the sum S; the game is
    replayed with ``partial`` so a record may stop anywhere.
    """
    if not isinstance(record.variant, Fido):
        raise RecordError("variant.game", _("layout() reads FIDO records only"))
    state = _Replay(record.variant, record, record.games[game])
    state.run(partial=True)
    ends = sorted((v for vs in state.ends_of.values() for v in vs), reverse=True)
    cross = sorted((v for vs in state.cross_of.values() for v in vs), reverse=True)
    return ends, cross


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The tiles' whereabouts after one move: hands, the table, the listed stock not yet
    drawn, how many tiles the stock holds, and S."""

    hands: dict[str, frozenset[Tile]]
    table: frozenset[Tile]
    listed_stock: tuple[Tile, ...]
    stock_left: int
    count: int


def snapshots(record: Record, *, game: int = 0) -> list[Snapshot]:
    """One ``Snapshot`` per move of one game of a loaded FIDO record (replayed with
    ``partial``)."""
    if not isinstance(record.variant, Fido):
        raise RecordError("variant.game", _("snapshots() reads FIDO records only"))
    seen: list[Snapshot] = []

    def observe(state: _Replay) -> None:
        seen.append(
            Snapshot(
                {p: frozenset(h) for p, h in state.hands.items()},
                frozenset(state.ends_of),
                tuple(state.listed[state.listed_pos :]),
                state.stock_left,
                state.s,
            )
        )

    _Replay(record.variant, record, record.games[game]).run(True, observe)
    return seen
