"""Austrian double-eight games (RULES.md section 5): ``"game": "austrian"``, and the base of
Buki (``buki.py``) and Pulle (``pulle.py``), which this module imports so that the
registry's import of it registers all three.

In: a loaded ``Record``. ``austrian`` takes the options ``mode`` (``"draw"`` or
``"block"``, required) and ``max_draws`` (draw mode only); Buki and Pulle are block games
with no options.
Out: one ``GameReport`` per game (each placement's ``count``, the sum of the two open ends,
for information: Austrian games score nothing in play; ``final`` is 1 for the game's
winner and 0 otherwise) and the session settled by games won; Buki and Pulle settle money.
Guaranteed: the first illegal step raises ``IllegalMove``.

The layout (``LineLayout``) is a single line with two ends, each end the value showing and
the tile showing it (a row of bricks on the table is a drawing matter only). With no
doubles in the set a tile matches at most one end of the lead, so ``on`` always fixes the
place. The lead: the first game of a session goes to the holder of the heaviest tile
(``heaviest_key``: pip total, then the higher top end: 8-7, 8-6, 8-5, 7-6, ...), who must
lead it; later games to the previous winner with any tile, or after a game with no winner
to the player who placed its last tile. Decisions where RULES.md is silent are listed in
docs/rules.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from matches.rules.errors import IllegalMove, RecordError
from matches.rules.i18n import _
from matches.rules.model import (
    BET,
    DRAW,
    PLAY,
    RAISE,
    STAKE,
    GameRecord,
    Move,
    Record,
    Scoresheet,
)
from matches.rules.report import (
    BLOCKED,
    DOMINO,
    UNFINISHED,
    GameReport,
    PlayerResult,
    draw,
    passed,
    placement,
    side_rows,
)
from matches.rules.tiles import Tile, austrian_set
from matches.rules.variants.base import SimulatedGame, SimulatedSession, Variant
from matches.rules.variants.hooks import Previous, Random, Seats, Teams
from matches.rules.variants.turns import PlacementError, Table

TileT = tuple[int, int]

AUSTRIAN_TILES: tuple[TileT, ...] = tuple((a, b) for a in range(9) for b in range(a))


class LineError(PlacementError):
    """A placement the line does not allow; ``rule`` names the broken rule."""


def fmt(tile: TileT) -> str:
    return f"{tile[0]}-{tile[1]}"


def heaviest_key(tile: TileT) -> tuple[int, int]:
    """Sort key, larger is heavier: pip total, then the higher top end. 8-7 (15) and 8-6
    (14) come first because nothing else has as many pips."""
    return (tile[0] + tile[1], max(tile))


def first_leader(hands: Mapping[str, Sequence[TileT]]) -> tuple[str, TileT]:
    """Who leads the first game of a session, and with which tile."""
    holder, tile = max(
        ((p, t) for p, tiles in hands.items() for t in tiles), key=lambda pt: heaviest_key(pt[1])
    )
    return holder, tile


class LineLayout:
    """A line with two open ends, each the value showing and the tile showing it."""

    def __init__(self) -> None:
        self.tiles: list[TileT] = []
        self.ends: list[tuple[TileT, int]] = []

    @property
    def empty(self) -> bool:
        return not self.tiles

    def count(self) -> int:
        """The sum of the two open ends (reported for information; Austrian games score
        nothing during play)."""
        return sum(v for _unused, v in self.ends)

    def spots(self, tile: TileT) -> list[TileT]:
        """The end tiles ``tile`` may go on."""
        return [on for on, v in self.ends if v in tile]

    def playable(self, tile: TileT) -> bool:
        return self.empty or bool(self.spots(tile))

    def place(self, tile: TileT, on: TileT | None = None, facet: str = "end") -> int:
        if facet != "end":
            raise LineError("the Austrian set has no doubles: no cross ends", "not-a-spinner")
        if tile in self.tiles:
            raise LineError(f"{fmt(tile)} is already on the table", "already-played")
        if not self.tiles:
            if on is not None:
                raise LineError("the lead is not placed on another tile", "lead-on")
            self.tiles.append(tile)
            self.ends = [(tile, tile[0]), (tile, tile[1])]
            return self.count()
        if on is None:
            raise LineError(f"{fmt(tile)} must name the tile it goes on", "on-required")
        if on not in self.tiles:
            raise LineError(f"{fmt(on)} is not on the table", "on-not-in-layout")
        for i, (end_tile, v) in enumerate(self.ends):
            # No doubles in the set, so a tile matches at most one end of the lead.
            if end_tile == on and v in tile:
                other = tile[1] if tile[0] == v else tile[0]
                self.ends[i] = (tile, other)
                self.tiles.append(tile)
                return self.count()
        raise LineError(f"{fmt(tile)} has no free matching end on {fmt(on)}", "no-match")


def game_winner(pips: Mapping[str, int], domino: str | None) -> str | None:
    """The domino player, else the single player with fewest pips, else None (a tie)."""
    if domino is not None:
        return domino
    low = min(pips.values())
    lowest = [p for p, v in pips.items() if v == low]
    return lowest[0] if len(lowest) == 1 else None


# -- the variants ---------------------------------------------------------------------------

SET_SIZE = 36
#: Tiles per player by mode and number of players (RULES.md 5).
DRAW_HANDS: dict[int, tuple[int, ...]] = {2: (8, 9), 3: (7,)}
BLOCK_HANDS: dict[int, tuple[int, ...]] = {2: (11, 12), 3: (8, 9), 4: (7, 8)}
_EVENTS = (STAKE, RAISE, BET)


def _check_lead(table: Table, n: int, mv: Move, leader: str | None, lead_tile: Tile) -> None:
    """The session's first game is led with the heaviest tile (RULES.md section 5)."""
    if mv.player == leader and mv.kind == PLAY and mv.tile != lead_tile:
        raise table.illegal(
            n,
            leader,
            "wrong-lead",
            _("the session's first game is led with the heaviest tile, %(lead_tile)s")
            % {"lead_tile": lead_tile},
        )


def _game_end(table: Table, n_after: int, leader: str | None, *, partial: bool) -> str:
    """How the game ended; a record that stops before the end is refused unless ``partial``."""
    if table.end is not None:
        return table.end
    if partial:
        return UNFINISHED
    who = table.to_move or leader
    raise table.illegal(
        n_after,
        who,
        "unfinished",
        _("the record stops before the game ends (%(who)s to move)") % {"who": who}
        if who
        else _("the record stops before the game ends"),
    )


class AustrianSession:
    """What one game of a session needs from the games before it (who leads), and the
    hooks through which Buki and Pulle add their money. The plain game has no money."""

    def __init__(self, variant: AustrianGames, record: Record) -> None:
        self.variant = variant
        self.record = record
        self.first = True
        self.previous_winner: str | None = None
        self.last_placer: str | None = None

    # -- hooks ---------------------------------------------------------------------------
    def players_in(self) -> tuple[str, ...]:
        """The seats that play the next game, in turn order."""
        return self.record.seats

    def check_open(self, game: GameRecord) -> None:
        """Refuse a game the session no longer allows (Pulle, once the pool is taken)."""

    def event(self, n: int, mv: Move, table: Table | None, game: GameRecord) -> dict[str, Any]:
        raise IllegalMove(  # check_record refuses events outside Buki; kept as a guard
            game=game.index,
            move=n,
            player=mv.player,
            rule="no-events",
            message=_("%(game)s has no stakes or bets") % {"game": self.variant.game},
        )

    def before_move(self, n: int, player: str, table: Table) -> None:
        """Called before each tile move, once the turn is checked (Buki's stake deadlines)."""

    def final(self, seat: str, winner: str | None, pips: Mapping[str, int]) -> int:
        """A player's ``final`` for the game: 1 for the winner, else 0 (Pulle: pips added)."""
        return 1 if seat == winner else 0

    def settle_game(
        self, game: GameRecord, report: GameReport, pips: Mapping[str, int], n_after: int
    ) -> None:
        """Money after a finished game (Buki, Pulle), written into ``report.extra``."""

    # -- the lead --------------------------------------------------------------------------
    def leader(self, hands: Mapping[str, Sequence[Tile]]) -> tuple[str | None, Tile | None]:
        """Who must lead (None: anyone) and with which tile (None: any)."""
        if self.first:
            holder, tile = first_leader({p: hands[p] for p in self.players_in()})
            return holder, cast(Tile, tile)
        who = self.previous_winner or self.last_placer
        if who is None:
            return None, None  # after a tied scoresheet game nobody knows the last tile
        order = self.players_in()
        seats = self.record.seats
        # A leader who is out of the game (Pulle) hands the lead to the next seat still in.
        i = seats.index(who)
        return next(
            seats[(i + k) % len(seats)]
            for k in range(len(seats))
            if seats[(i + k) % len(seats)] in order
        ), None

    def finish(
        self,
        game: GameRecord,
        entries: list[dict[str, Any]],
        end: str,
        pips: dict[str, int],
        winner: str | None,
        last_placer: str | None,
        n_after: int,
    ) -> GameReport:
        seats = self.record.seats
        players = {
            seat: PlayerResult(0, pips.get(seat, 0), self.final(seat, winner, pips))
            for seat in seats
        }
        for seat in seats:
            if seat not in pips:
                players[seat].extra["out"] = True
        winners = [winner] if winner is not None else []
        report = GameReport(
            entries, end, players, winners, side_rows(self.record.sides(), players, winners)
        )
        if end != UNFINISHED:
            self.settle_game(game, report, pips, n_after)
        self.first = False
        self.previous_winner = winner
        self.last_placer = last_placer
        return report


class AustrianGames(Variant):
    """The replay shared by the Austrian games. See the module docstring."""

    game = "austrian"
    seat_counts = range(2, 5)  # draw games 2 or 3, block games 2 to 4 (check_record)
    #: Buki and Pulle are block games for four with no variant options.
    fixed_block: ClassVar[bool] = False

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.tiles = austrian_set()
        self.set_name = "Austrian set (double-8 without doubles)"
        allowed = () if self.fixed_block else ("mode", "max_draws")
        for key in options:
            if key not in allowed:
                raise RecordError(
                    f"variant.{key}", _("not an option of %(game)s") % {"game": self.game}
                )
        self.mode = "block" if self.fixed_block else options.get("mode")
        if self.mode not in ("draw", "block"):
            raise RecordError(
                "variant.mode", _('required: "draw" or "block", got %(mode)r') % {"mode": self.mode}
            )
        self.max_draws: int | None = options.get("max_draws")
        if self.max_draws is not None:
            if self.mode != "draw":
                raise RecordError("variant.max_draws", _("only a draw game limits draws"))
            if type(self.max_draws) is not int or self.max_draws < 1:
                raise RecordError(
                    "variant.max_draws",
                    _("a positive whole number, got %(max_draws)r") % {"max_draws": self.max_draws},
                )

    def hand_sizes(self, players: int) -> tuple[int, ...]:
        table = DRAW_HANDS if self.mode == "draw" else BLOCK_HANDS
        return table.get(players, ())

    def mode_seat_counts(self) -> tuple[int, ...]:
        return tuple(DRAW_HANDS if self.mode == "draw" else BLOCK_HANDS)

    def new_session(self, record: Record) -> AustrianSession:
        return AustrianSession(self, record)

    # -- record checks ---------------------------------------------------------------------
    def check_record(self, record: Record) -> None:
        n = len(record.seats)
        if n not in self.mode_seat_counts():
            shown = " or ".join(str(c) for c in self.mode_seat_counts())
            raise RecordError(
                "seats",
                _("%(game)s (%(mode)s game) is for %(shown)s players")
                % {"game": self.game, "mode": self.mode, "shown": shown},
            )
        if record.teams is not None:
            raise RecordError("teams", _("Austrian games are played each for themselves"))
        self.check_money_keys(record)
        for game in record.games:
            for i, move in enumerate(game.moves):
                if move.kind in _EVENTS and not self.has_events():
                    raise RecordError(
                        f"{game.prefix}moves[{i}]",
                        _("%(game)s has no stakes or bets") % {"game": self.game},
                    )
            if game.buy_backs and self.game != "pulle":
                raise RecordError(
                    f"{game.prefix}buy_backs", _("%(game)s has no buy-backs") % {"game": self.game}
                )

    def check_money_keys(self, record: Record) -> None:
        if record.banker is not None:
            raise RecordError("banker", _("%(game)s has no banker") % {"game": self.game})

    def has_events(self) -> bool:
        return False

    def check_deal(self, game: GameRecord, order: Sequence[str]) -> dict[str, tuple[Tile, ...]]:
        hands = cast(dict[str, tuple[Tile, ...]], game.hands)  # a full game has hands
        sizes = self.hand_sizes(len(order))
        dealt = {len(hands[p]) for p in order}
        if len(dealt) != 1 or not dealt <= set(sizes):
            shown = " or ".join(str(s) for s in sizes)
            raise RecordError(
                f"{game.prefix}hands",
                _("%(value)s players each take %(shown)s tiles, got %(value2)s")
                % {"value": len(order), "shown": shown, "value2": sorted(dealt)},
            )
        for seat, hand in hands.items():
            if seat not in order and hand:
                raise RecordError(
                    f"{game.prefix}hands.{seat}",
                    _("%(seat)s is out of the game: []") % {"seat": seat},
                )
        return hands

    # -- replay ----------------------------------------------------------------------------
    def replay_session(self, record: Record, *, partial: bool = False) -> list[GameReport]:
        session = self.new_session(record)
        reports: list[GameReport] = []
        for game in record.games:
            reports.append(self.play_one(session, record, game, partial))
        return reports

    def play_one(
        self, session: AustrianSession, record: Record, game: GameRecord, partial: bool
    ) -> GameReport:
        session.check_open(game)
        if game.result is not None:
            return self.sheet(session, game)
        return self.replay(session, game, partial)

    def session_before(self, record: Record, index: int) -> AustrianSession:
        """The session as it stands before game ``index`` (replays the games before it)."""
        session = self.new_session(record)
        for game in record.games[:index]:
            self.play_one(session, record, game, False)
        return session

    def replay_game(
        self, record: Record, game: GameRecord, previous: Previous, *, partial: bool = False
    ) -> GameReport:
        session = self.session_before(record, game.index)
        session.check_open(game)
        return self.replay(session, game, partial)

    def score_sheet(
        self, record: Record, game: GameRecord, previous: Sequence[GameReport]
    ) -> GameReport:
        session = self.session_before(record, game.index)
        session.check_open(game)
        return self.sheet(session, game)

    def replay(self, session: AustrianSession, game: GameRecord, partial: bool) -> GameReport:
        """Replay one game of the session (draw or block game, Buki and Pulle included)."""
        order = session.players_in()
        hands = self.check_deal(game, order)
        leader, lead_tile = session.leader(hands)
        table = Table(
            game=game,
            order=order,
            set_size=SET_SIZE,
            layout=LineLayout(),
            draws=self.mode == "draw",
            max_draws=self.max_draws,
        )
        entries: list[dict[str, Any]] = []
        for n, mv in enumerate(game.moves, 1):
            if mv.kind in _EVENTS:
                if table.end is not None:
                    raise table.illegal(
                        n,
                        mv.player,
                        "after-end",
                        _("the game already ended (%(end)s)") % {"end": table.end},
                    )
                entries.append(session.event(n, mv, table, game))
                continue
            if lead_tile is not None and table.turn is None:
                _check_lead(table, n, mv, leader, lead_tile)
            table.check_turn(n, mv, leader, "wrong-lead")
            player = cast(str, mv.player)  # tile moves always name a seat
            session.before_move(n, player, table)
            if mv.kind == PLAY:
                count = table.play(n, mv)
                entries.append(placement(n, player, cast(Tile, mv.tile), count, 0))
            elif mv.kind == DRAW:
                entries.append(draw(n, player, table.draw(n, mv)))
            else:
                table.pass_(n, mv)
                entries.append(passed(n, player))
        n_after = len(game.moves) + 1
        end = _game_end(table, n_after, leader, partial=partial)
        pips = {seat: table.pips(seat) for seat in order}
        domino = table.last_placer if end == DOMINO else None
        winner = game_winner(pips, domino) if end != UNFINISHED else None
        return session.finish(game, entries, end, pips, winner, table.last_placer, n_after)

    def sheet(self, session: AustrianSession, game: GameRecord) -> GameReport:
        result = cast(Scoresheet, game.result)
        order = session.players_in()
        for seat, left in result.pips.items():
            if seat not in order and left:
                raise RecordError(
                    f"{game.prefix}result.pips.{seat}",
                    _("%(seat)s is out of the game: leave out their pips or write 0")
                    % {"seat": seat},
                )
        for seat in order:
            if seat not in result.pips:
                raise RecordError(
                    f"{game.prefix}result.pips.{seat}",
                    _("required: the pips %(seat)s, still in the game, has left") % {"seat": seat},
                )
        if result.domino is not None and result.domino not in order:
            raise RecordError(
                f"{game.prefix}result.domino",
                _("%(domino)s is out of the game") % {"domino": result.domino},
            )
        entries = [session.event(n, mv, None, game) for n, mv in enumerate(game.moves, 1)]
        pips = {seat: result.pips[seat] for seat in order}
        winner = game_winner(pips, result.domino)
        end = DOMINO if result.domino is not None else BLOCKED
        return session.finish(game, entries, end, pips, winner, result.domino, len(game.moves) + 1)

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        sim = SimAustrian(self, rng, seats)
        return SimulatedSession([sim.game() for _unused in range(games)])


class Austrian(AustrianGames):
    game = "austrian"


# -- simulator -----------------------------------------------------------------------------


def _sim_lowest(pips: dict[str, int], order: Sequence[str]) -> str | None:
    """The one player with the fewest pips (None: a tie)."""
    low = min(pips.values())
    lows = [s for s in order if pips[s] == low]
    return lows[0] if len(lows) == 1 else None


class SimAustrian:
    """Random legal Austrian games, written apart from ``LineLayout`` and ``Table``: the
    line is just its two end values and the tiles showing them, so that a replay of the
    output checks the engine against a second implementation. Buki and Pulle extend it."""

    def __init__(self, variant: AustrianGames, rng: random.Random, seats: tuple[str, ...]):
        self.variant = variant
        self.rng = rng
        self.seats = seats
        self.winner: str | None = None
        self.last: str | None = None
        self.first = True

    def in_game(self) -> tuple[str, ...]:
        return self.seats

    def hand_size(self, players: int) -> int:
        return self.rng.choice(self.variant.hand_sizes(players))

    def deal(self) -> tuple[dict[str, list[Tile]], list[Tile]]:
        deck = sorted(self.variant.tiles)
        self.rng.shuffle(deck)
        order = self.in_game()
        size = self.hand_size(len(order))
        hands: dict[str, list[Tile]] = {seat: [] for seat in self.seats}
        for i, seat in enumerate(order):
            hands[seat] = deck[i * size : (i + 1) * size]
        return hands, deck[len(order) * size :]

    def lead(self, hands: dict[str, list[Tile]]) -> tuple[str, Tile | None]:
        order = self.in_game()
        if self.first:
            best = max((t[0] + t[1], t[0], seat, t) for seat in order for t in hands[seat])
            return best[2], best[3]
        who = self.winner or self.last
        if who is None:
            return self.rng.choice(order), None
        i = self.seats.index(who)
        ring = [self.seats[(i + k) % len(self.seats)] for k in range(len(self.seats))]
        return next(s for s in ring if s in order), None

    def hook_before_turn(self, seat: str, turns: int, moves: list[dict[str, Any]]) -> None:
        """Buki posts stakes and raises here."""

    def play(self) -> tuple[dict[str, Any], list[int | None], dict[str, int], str, str | None]:
        """One game: (record game, move points, pips left, end, winner)."""
        rng, order = self.rng, self.in_game()
        hands, stock = self.deal()
        held = {seat: list(hands[seat]) for seat in order}
        moves: list[dict[str, Any]] = []
        points: list[int | None] = []
        leader, tile = self.lead(hands)
        turn = order.index(leader)
        turns = dict.fromkeys(order, 0)
        self.hook_before_turn(leader, 0, moves)
        points.extend([None] * (len(moves) - len(points)))  # events score nothing
        tile = tile or rng.choice(held[leader])
        held[leader].remove(tile)
        ends = [(tile, tile[0]), (tile, tile[1])]
        moves.append({"player": leader, "tile": str(tile)})
        points.append(0)
        turns[leader] += 1
        last = leader
        passes, end = 0, ""
        pile = list(stock) if self.variant.mode == "draw" else []
        while not end:
            turn = (turn + 1) % len(order)
            seat = order[turn]
            self.hook_before_turn(seat, turns[seat], moves)
            points.extend([None] * (len(moves) - len(points)))
            fits = [(t, e) for t in held[seat] for e in ends if e[1] in t]
            if not fits and pile:
                fits = self.draw_until_fits(seat, pile, held[seat], ends, moves)
                points.extend([None] * (len(moves) - len(points)))  # draws score nothing
                passes = 0
            if fits:
                t, e = rng.choice(fits)
                ends[ends.index(e)] = (t, t[1] if t[0] == e[1] else t[0])
                held[seat].remove(t)
                moves.append({"player": seat, "tile": str(t), "on": str(e[0])})
                points.append(0)
                passes = 0
                last = seat
                if not held[seat]:
                    end = DOMINO
            else:
                moves.append({"player": seat, "pass": True})
                points.append(None)
                passes += 1
                if passes == len(order):
                    end = BLOCKED
            turns[seat] += 1
        pips = {seat: sum(t[0] + t[1] for t in held[seat]) for seat in order}
        winner = last if end == DOMINO else _sim_lowest(pips, order)
        self.first, self.winner, self.last = False, winner, last
        game = {
            "hands": {seat: [str(t) for t in hands[seat]] for seat in self.seats},
            "stock": [str(t) for t in stock],
            "moves": moves,
        }
        return game, points, pips, end, winner

    def draw_until_fits(
        self,
        seat: str,
        pile: list[Tile],
        held: list[Tile],
        ends: list[tuple[Tile, int]],
        moves: list[dict[str, Any]],
    ) -> list[tuple[Tile, tuple[Tile, int]]]:
        """Draw from the top of ``pile`` (at most ``max_draws``) until a tile fits an end;
        the places the last drawn tile fits (none: no more draws)."""
        fits: list[tuple[Tile, tuple[Tile, int]]] = []
        drawn = 0
        max_draws = self.variant.max_draws
        while not fits and pile and (max_draws is None or drawn < max_draws):
            t = pile.pop(0)
            drawn += 1
            held.append(t)
            moves.append({"player": seat, "draw": str(t)})
            fits = [(t, e) for e in ends if e[1] in t]
        return fits

    def game(self) -> SimulatedGame:
        game, points, _unused, end, winner = self.play()
        finals = {seat: 1 if seat == winner else 0 for seat in self.seats}
        return SimulatedGame(game, points, finals, end)


__all__ = [
    "AUSTRIAN_TILES",
    "Austrian",
    "AustrianGames",
    "AustrianSession",
    "LineLayout",
    "SimAustrian",
]
