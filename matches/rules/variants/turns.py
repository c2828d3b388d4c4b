"""Turns, draws and passes of one game, shared by the All Fives and Austrian variants.

In: a game's deal (``GameRecord.hands`` / ``stock``), the seats taking part in turn order,
a layout (anything with ``empty``, ``playable(tile)`` and ``place(tile, on, facet) ->
count`` that raises ``PlacementError``), and the drawing rule of the game.
Out: ``Table``, whose ``play`` / ``draw`` / ``pass_`` apply one tile move each, raising
``IllegalMove`` (with the game's index, the move number, the player and a rule code) at the
first illegal step and otherwise updating hands, stock, turn and the game's end.
Guaranteed: tiles are conserved (hands + layout + undrawn stock = the deal); the game ends
on a domino or when every player in turn has passed with nothing drawn in between
(blocked); after the end every move is refused.

The stock is every tile of the set not dealt; a listed ``stock`` gives the order of its
top part (``"draw": true`` takes the next listed tile), and past it draws name their tile
(as in the FIDO game). Drawing games: a player who cannot play draws until a drawn tile
plays, and must then place that very tile at once (``must_play``); ``keep`` tiles of the
stock may never be drawn (All Fives' ``keep_in_stock``); ``max_draws`` caps the draws of
one turn (Austrian option). Block games: no draws at all, a player who cannot play passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

from matches.rules.errors import IllegalMove, must_play_message
from matches.rules.i18n import _, ngettext
from matches.rules.model import GameRecord, Move
from matches.rules.report import BLOCKED, DOMINO
from matches.rules.tiles import Tile


class PlacementError(ValueError):
    """A placement the layout refuses; ``rule`` is the report's rule code."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class Layout(Protocol):
    @property
    def empty(self) -> bool: ...

    def playable(self, tile: Tile) -> bool: ...

    def place(self, tile: Tile, on: Tile | None, facet: str) -> int: ...


class StockState(Protocol):
    """What a draw needs of a game in progress (FIDO's state and :class:`Table` both have it)."""

    listed: tuple[Tile, ...]
    listed_pos: int
    in_play: set[Tile]

    def illegal(self, n: int, player: str | None, rule: str, message: str) -> IllegalMove: ...


def stock_tile(state: StockState, n: int, player: str, named: Tile | None) -> Tile:
    """The tile move ``n`` draws, checked and marked in play (RULES.md section 2).

    With a listed stock the draw takes its next tile (a named tile must be that one);
    without, the draw names its tile, which must not be in play or listed.
    """
    if state.listed_pos < len(state.listed):
        top = state.listed[state.listed_pos]
        if named is not None and named != top:
            raise state.illegal(
                n,
                player,
                "stock-order",
                _("the next tile of the stock is %(top)s, not %(named)s")
                % {"top": top, "named": named},
            )
        state.listed_pos += 1
        tile = top
    else:
        if named is None:
            raise state.illegal(
                n, player, "draw-unnamed", _("name the drawn tile (no stock listed)")
            )
        if named in state.in_play or named in state.listed:
            raise state.illegal(
                n, player, "tile-in-play", _("%(named)s is already in play") % {"named": named}
            )
        tile = named
    state.in_play.add(tile)
    return tile


class Table:
    """One game in progress. ``order`` is the seats that play this game, in turn order."""

    def __init__(
        self,
        *,
        game: GameRecord,
        order: Sequence[str],
        set_size: int,
        layout: Layout,
        draws: bool,
        keep: int = 0,
        max_draws: int | None = None,
    ) -> None:
        dealt = cast(dict[str, tuple[Tile, ...]], game.hands)  # a full game has hands
        self.index = game.index
        self.order = tuple(order)
        self.layout = layout
        self.hands: dict[str, list[Tile]] = {p: list(h) for p, h in dealt.items()}
        self.in_play: set[Tile] = {t for h in dealt.values() for t in h}
        self.listed: tuple[Tile, ...] = game.stock or ()
        self.listed_pos = 0
        self.stock_left = set_size - len(self.in_play)
        self.draws = draws
        self.keep = keep
        self.max_draws = max_draws
        self.turn: int | None = None  # index in ``order``; None until the lead
        self.must_play: Tile | None = None
        self.drawn_this_turn = 0
        self.passes = 0  # passes in a row with nothing placed or drawn in between
        self.turns_taken = dict.fromkeys(self.order, 0)
        self.end: str | None = None
        self.last_placer: str | None = None

    # -- helpers ---------------------------------------------------------------------------
    def illegal(self, n: int, player: str | None, rule: str, message: str) -> IllegalMove:
        return IllegalMove(game=self.index, move=n, player=player, rule=rule, message=message)

    @property
    def to_move(self) -> str | None:
        return None if self.turn is None else self.order[self.turn]

    def pips(self, player: str) -> int:
        return sum(t[0] + t[1] for t in self.hands[player])

    def playable_in(self, player: str) -> Tile | None:
        layout = self.layout
        return next((t for t in self.hands[player] if layout.playable(t)), None)

    def can_draw(self) -> bool:
        if not self.draws or self.stock_left <= self.keep:
            return False
        return self.max_draws is None or self.drawn_this_turn < self.max_draws

    def _advance(self) -> None:
        turn = cast(int, self.turn)  # only called once the game has been led
        self.turns_taken[self.order[turn]] += 1
        self.turn = (turn + 1) % len(self.order)
        self.drawn_this_turn = 0

    # -- one move --------------------------------------------------------------------------
    def check_turn(self, n: int, mv: Move, leader: str | None, lead_rule: str) -> None:
        """Refuse a move after the end or out of turn. Before the lead, ``leader`` (None:
        anyone) must lead with a placement; ``lead_rule`` is the code when someone else does."""
        player = mv.player
        if self.end is not None:
            raise self.illegal(
                n, player, "after-end", _("the game already ended (%(end)s)") % {"end": self.end}
            )
        if player not in self.turns_taken:
            raise self.illegal(
                n,
                player,
                "not-in-game",
                _("%(player)s does not play this game") % {"player": player},
            )
        if self.turn is None:
            if leader is not None and player != leader:
                raise self.illegal(
                    n, player, lead_rule, _("%(leader)s leads this game") % {"leader": leader}
                )
            if mv.kind != "play":
                raise self.illegal(
                    n, player, "lead-expected", _("the game starts with a lead tile")
                )
            self.turn = self.order.index(player)  # type: ignore[arg-type]
        elif player != self.order[self.turn]:
            raise self.illegal(
                n, player, "out-of-turn", _("it is %(to_move)s's turn") % {"to_move": self.to_move}
            )

    def play(self, n: int, mv: Move) -> int:
        """Place ``mv.tile``; return the layout's count after it."""
        player = cast(str, mv.player)  # tile moves always name a seat (record loader)
        tile = cast(Tile, mv.tile)  # a placement always names its tile
        hand = self.hands[player]
        if tile not in hand:
            if tile in self.in_play and all(tile not in h for h in self.hands.values()):
                raise self.illegal(
                    n,
                    player,
                    "already-played",
                    _("%(tile)s is already on the table") % {"tile": tile},
                )
            raise self.illegal(
                n,
                player,
                "not-in-hand",
                _("%(player)s does not hold %(tile)s") % {"player": player, "tile": tile},
            )
        if self.must_play is not None and tile != self.must_play:
            raise self.illegal(
                n,
                player,
                "must-play-drawn",
                _("%(player)s must place the drawn %(must_play)s")
                % {"player": player, "must_play": self.must_play},
            )
        try:
            count = self.layout.place(tile, mv.on, mv.facet or "end")
        except PlacementError as exc:
            raise self.illegal(n, player, exc.rule, str(exc)) from None
        hand.remove(tile)
        self.last_placer = player
        self.must_play = None
        self.passes = 0
        if not hand:
            self.end = DOMINO
        self._advance()
        return count

    def draw(self, n: int, mv: Move) -> Tile:
        """Take a tile from the stock into the drawer's hand."""
        player = cast(str, mv.player)
        if mv.correction:
            raise self.illegal(
                n, player, "correction-not-allowed", _("correction draws are a FIDO-game rule")
            )
        if not self.draws:
            raise self.illegal(n, player, "no-draw", _("a block game has no drawing: pass"))
        self.check_must_play(n, player, "draw-while-playable")
        if self.stock_left <= self.keep:
            left = (
                _("the stock is empty: pass")
                if not self.stock_left
                else ngettext(
                    "the stock is down to the %(keep)d kept tile: pass",
                    "the stock is down to the %(keep)d kept tiles: pass",
                    self.keep,
                )
                % {"keep": self.keep}
            )
            raise self.illegal(n, player, "stock-empty", left)
        if self.max_draws is not None and self.drawn_this_turn >= self.max_draws:
            raise self.illegal(
                n,
                player,
                "max-draws",
                _("%(max_draws)s draws without a playable tile: pass")
                % {"max_draws": self.max_draws},
            )
        tile = stock_tile(self, n, player, mv.tile)
        self.hands[player].append(tile)
        self.stock_left -= 1
        self.drawn_this_turn += 1
        self.passes = 0
        if self.layout.playable(tile):
            self.must_play = tile
        return tile

    def check_must_play(self, n: int, player: str, rule: str) -> None:
        """A drawn playable tile must be placed; so must any playable tile (``rule`` names
        the refusal of drawing or passing instead)."""
        if self.must_play is not None:
            raise self.illegal(
                n,
                player,
                "must-play-drawn",
                _("%(player)s must place the drawn %(must_play)s")
                % {"player": player, "must_play": self.must_play},
            )
        can = self.playable_in(player)
        if can is not None:
            raise self.illegal(n, player, rule, must_play_message(player, can))

    def pass_(self, n: int, mv: Move) -> None:
        player = cast(str, mv.player)
        self.check_must_play(n, player, "pass-while-playable")
        if self.can_draw():
            raise self.illegal(
                n,
                player,
                "pass-with-stock",
                ngettext(
                    "the stock still holds %(stock_left)s drawable tile: draw",
                    "the stock still holds %(stock_left)s drawable tiles: draw",
                    self.stock_left,
                )
                % {"stock_left": self.stock_left},
            )
        self.passes += 1
        if self.passes == len(self.order):
            self.end = BLOCKED
        self._advance()
