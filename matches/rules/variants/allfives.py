"""All Fives: Muggins and Five Up (RULES.md section 4): ``"game": "muggins"`` / ``"fiveup"``.

In: a loaded ``Record`` whose variant options are ``target`` (default 250 with two
players, 200 with three or four, 61 in fives), ``unit`` (``"points"`` or ``"fives"``),
``exact_target``, ``keep_in_stock`` (0, 1, 2) and ``hand_end`` (``"winner_scores"`` or
``"losers_subtract"``).
Out: one ``GameReport`` per hand (each placement's ``count`` and ``points``, the hand-end
score in each player's ``final`` and ``hand_end``) and the match settled by side totals.
Guaranteed: the first illegal step raises ``IllegalMove``; the match ends the moment a side
reaches the target, and any later move or game is refused.

The layout (``FivesLayout``) is a dict of placed tiles, each knowing its free attachment
points: a plain tile its free end(s); a double, laid crosswise, its free long sides (2 for a
lead double, else 1) and, if it is a spinner, two cross ends that open once both sides are
covered. The count of 4.2 is the sum over placed tiles: a plain tile counts its free ends;
a double counts 2v while one of its sides is free, else 0 (a covered spinner, whose
unused cross ends count 0 and whose started cross arms count through their own end tiles).

The hand-end arithmetic (``round_to_five``, ``round_share_to_five``, ``hand_end_points``,
``losers_subtract_points``) is pure and in raw points; ``to_unit`` divides by 5 for the
fives unit. Decisions where RULES.md is silent are listed in docs/rules.md.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, TypeVar, cast

from matches.rules.errors import IllegalMove, RecordError
from matches.rules.i18n import _
from matches.rules.model import DRAW, PLAY, TILE_MOVES, GameRecord, Record, Scoresheet
from matches.rules.report import (
    BLOCKED,
    DOMINO,
    UNFINISHED,
    GameReport,
    PlayerResult,
    SessionReport,
    draw,
    passed,
    placement,
    side_rows,
)
from matches.rules.tiles import Tile, double_set
from matches.rules.variants.base import SimulatedGame, SimulatedSession, Variant
from matches.rules.variants.hooks import Previous, Random, Seats, Teams
from matches.rules.variants.turns import PlacementError, Table

TileT = tuple[int, int]
SideT = TypeVar("SideT", bound=Hashable)

#: A hand that ends because a side reached the target in mid-hand.
TARGET = "target"


class LayoutError(PlacementError):
    """A placement the All Fives layout does not allow; ``rule`` names the broken rule."""


def fmt(tile: TileT) -> str:
    return f"{tile[0]}-{tile[1]}"


@dataclass
class _Placed:
    """One tile on the table and its free attachment points.

    A plain tile keeps the values of its free ends (two for a plain lead, else one).
    A double is laid crosswise: ``free_sides`` are its long sides still open along the line
    (2 for a lead double, else 1), and a spinner also has two cross ends, usable only once
    both sides are covered.
    """

    tile: TileT
    spinner: bool = False
    free_ends: list[int] = field(default_factory=list)
    free_sides: int = 0
    free_cross: int = 0

    @property
    def is_double(self) -> bool:
        return self.tile[0] == self.tile[1]

    def count(self) -> int:
        if not self.is_double:
            return sum(self.free_ends)
        # A double counts both halves while the line can still grow from one of its sides
        # (an arm end, or a lead double alone); once both sides are covered it is just a
        # tile inside the line, and its unused cross ends count nothing.
        return 2 * self.tile[0] if self.free_sides > 0 else 0


class FivesLayout:
    """The All Fives table. ``every_double_spins``: Five Up (True) or Muggins (False)."""

    def __init__(self, *, every_double_spins: bool) -> None:
        self.every_double_spins = every_double_spins
        self._placed: dict[TileT, _Placed] = {}

    # -- queries ---------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        return not self._placed

    def __contains__(self, tile: object) -> bool:
        return tile in self._placed

    def tiles(self) -> list[TileT]:
        return list(self._placed)

    def count(self) -> int:
        """The count of RULES.md 4.2: what a placement just made would score if a multiple
        of five."""
        return sum(p.count() for p in self._placed.values())

    def spinners(self) -> list[TileT]:
        return [t for t, p in self._placed.items() if p.spinner]

    def spots(self, tile: TileT) -> list[tuple[TileT, str]]:
        """Every ``(on, facet)`` where ``tile`` may legally go (empty list: not playable).
        On an empty table any tile leads, which this reports as an empty list too: callers
        ask ``empty`` first."""
        out: list[tuple[TileT, str]] = []
        for on, p in self._placed.items():
            if p.is_double:
                v = on[0]
                if v not in tile:
                    continue
                if p.free_sides > 0:
                    out.append((on, "end"))
                elif p.spinner and p.free_cross > 0:
                    out.append((on, "cross"))
            elif any(v in tile for v in p.free_ends):
                out.append((on, "end"))
        return out

    def playable(self, tile: TileT) -> bool:
        return self.empty or bool(self.spots(tile))

    # -- the one mutation -----------------------------------------------------------------
    def place(self, tile: TileT, on: TileT | None = None, facet: str = "end") -> int:
        """Put ``tile`` on the table and return the new count."""
        if tile in self._placed:
            raise LayoutError(f"{fmt(tile)} is already on the table", "already-played")
        is_double = tile[0] == tile[1]
        if not self._placed:
            if on is not None:
                raise LayoutError("the lead is not placed on another tile", "lead-on")
            if is_double:
                # The first double of a hand always spins, in Muggins as in Five Up.
                self._placed[tile] = _Placed(tile, spinner=True, free_sides=2, free_cross=2)
            else:
                self._placed[tile] = _Placed(tile, free_ends=[tile[0], tile[1]])
            return self.count()
        if on is None:
            raise LayoutError(f"{fmt(tile)} must name the tile it goes on", "on-required")
        target = self._placed.get(on)
        if target is None:
            raise LayoutError(f"{fmt(on)} is not on the table", "on-not-in-layout")
        value = self._attach(target, tile, facet)
        if is_double:
            spins = self.every_double_spins or not self.spinners()
            self._placed[tile] = _Placed(
                tile, spinner=spins, free_sides=1, free_cross=2 if spins else 0
            )
        else:
            other = tile[1] if tile[0] == value else tile[0]
            self._placed[tile] = _Placed(tile, free_ends=[other])
        return self.count()

    def _attach(self, target: _Placed, tile: TileT, facet: str) -> int:
        """Cover the attachment point of ``target`` that ``tile`` joins; return its value."""
        on = target.tile
        if target.is_double:
            v = on[0]
            if v not in tile:
                raise LayoutError(f"{fmt(tile)} does not match {fmt(on)}", "no-match")
            if facet == "cross":
                if not target.spinner:
                    raise LayoutError(
                        f"{fmt(on)} is not a spinner: it has no cross ends", "not-a-spinner"
                    )
                if target.free_sides > 0:
                    raise LayoutError(
                        f"the cross ends of {fmt(on)} open only after both its sides are covered",
                        "cross-before-sides",
                    )
                if target.free_cross == 0:
                    raise LayoutError(f"both cross ends of {fmt(on)} are used", "no-free-end")
                target.free_cross -= 1
                return v
            if target.free_sides == 0:
                hint = " (its cross ends take facet 'cross')" if target.free_cross else ""
                raise LayoutError(f"both sides of {fmt(on)} are covered{hint}", "no-free-end")
            target.free_sides -= 1
            return v
        if facet == "cross":
            raise LayoutError(f"{fmt(on)} is not a double: it has no cross ends", "not-a-spinner")
        for i, v in enumerate(target.free_ends):
            if v in tile:
                del target.free_ends[i]
                return v
        raise LayoutError(f"{fmt(tile)} has no free matching end on {fmt(on)}", "no-match")


# -- hand-end arithmetic -------------------------------------------------------------------


def round_to_five(pips: int) -> int:
    """Nearest multiple of 5; remainders 1, 2 go down, 3, 4 go up (RULES.md 4.5)."""
    return round_share_to_five(Fraction(pips))


def round_share_to_five(value: Fraction) -> int:
    """Nearest multiple of 5, an exact half (x2.5, x7.5) rounding up."""
    return int((value + Fraction(5, 2)) // 5) * 5


def hand_end_points(pips: Mapping[SideT, int], domino: SideT | None) -> dict[SideT, int]:
    """Raw points each side wins at the end of a hand under ``winner_scores``.

    ``pips`` holds each side's pips left (a team's is its members' total); ``domino`` is the
    side that played out, or None when the hand is blocked. Only the winning side(s) appear
    in the result; an empty dict means nobody scores.
    """
    if domino is not None:
        return {domino: round_to_five(sum(v for s, v in pips.items() if s != domino))}
    low = min(pips.values())
    lowest = [s for s, v in pips.items() if v == low]
    if len(lowest) == 1:
        (winner,) = lowest
        return {winner: round_to_five(sum(v for s, v in pips.items() if s != winner))}
    if len(pips) == 3 and len(lowest) == 2:
        (third,) = [s for s in pips if s not in lowest]
        share = round_share_to_five(Fraction(round_to_five(pips[third]), 2))
        return dict.fromkeys(lowest, share)
    return {}


def losers_subtract_points(pips: Mapping[SideT, int]) -> dict[SideT, int]:
    """``losers_subtract``: each player loses their own pips rounded to the nearest 5."""
    return {p: -round_to_five(v) for p, v in pips.items()}


def to_unit(points: int, unit: str) -> int:
    """Raw points in the match's unit: ``"points"`` unchanged, ``"fives"`` divided by 5
    (every All Fives score is a multiple of 5, so this is exact)."""
    if unit == "fives":
        if points % 5:
            raise ValueError(f"{points} is not a multiple of 5")
        return points // 5
    return points


def sum_pips(tiles: Iterable[TileT]) -> int:
    return sum(a + b for a, b in tiles)


# -- the variants ---------------------------------------------------------------------------

_OPTIONS = frozenset({"target", "unit", "exact_target", "keep_in_stock", "hand_end"})
#: Tiles per player the seed allows (RULES.md 4.1 and its variants), by number of players.
HAND_SIZES: dict[int, tuple[int, ...]] = {2: (9, 7), 3: (7, 5, 9), 4: (5, 7)}
SET_SIZE = 28


class AllFives(Variant):
    """Muggins and Five Up differ only in which doubles spin (``every_double_spins``)."""

    every_double_spins: ClassVar[bool]
    seat_counts = range(2, 5)

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        for key in options:
            if key not in _OPTIONS:
                raise RecordError(
                    f"variant.{key}", _("not an option of %(game)s") % {"game": self.game}
                )
        self.unit = options.get("unit", "points")
        if self.unit not in ("points", "fives"):
            raise RecordError(
                "variant.unit", _('"points" or "fives", got %(unit)r') % {"unit": self.unit}
            )
        target = options.get("target")
        if target is not None and (type(target) is not int or target <= 0):
            raise RecordError(
                "variant.target", _("a positive whole number, got %(target)r") % {"target": target}
            )
        self._target: int | None = target
        self.exact_target = options.get("exact_target", False)
        if type(self.exact_target) is not bool:
            raise RecordError("variant.exact_target", _("must be true or false"))
        self.keep = options.get("keep_in_stock", 0)
        if type(self.keep) is not int or self.keep not in (0, 1, 2):
            raise RecordError(
                "variant.keep_in_stock", _("0, 1 or 2, got %(keep)r") % {"keep": self.keep}
            )
        self.hand_end = options.get("hand_end", "winner_scores")
        if self.hand_end not in ("winner_scores", "losers_subtract"):
            raise RecordError(
                "variant.hand_end",
                _('"winner_scores" or "losers_subtract", got %(hand_end)r')
                % {"hand_end": self.hand_end},
            )
        self.tiles = double_set(6)
        self.set_name = "double-6 set"

    def target(self, players: int) -> int:
        if self._target is not None:
            return self._target
        if self.unit == "fives":
            return 61
        return 250 if players == 2 else 200

    def check_record(self, record: Record) -> None:
        n = len(record.seats)
        if not 2 <= n <= 4:
            raise RecordError(
                "seats",
                _("%(game)s is played by 2, 3 or 4 players, not %(n)s")
                % {"game": self.game, "n": n},
            )
        if record.teams is not None and len({len(t) for t in record.teams}) != 1:
            raise RecordError("teams", _("partnerships are teams of equal size"))
        if record.banker is not None:
            raise RecordError("banker", _("%(game)s has no banker") % {"game": self.game})
        for game in record.games:
            for i, move in enumerate(game.moves):
                if move.kind not in TILE_MOVES:
                    raise RecordError(
                        f"{game.prefix}moves[{i}]",
                        _("%(game)s has no stakes or bets") % {"game": self.game},
                    )
            if game.buy_backs:
                raise RecordError(
                    f"{game.prefix}buy_backs", _("%(game)s has no buy-backs") % {"game": self.game}
                )
            if game.hands is not None:
                sizes = {len(h) for h in game.hands.values()}
                allowed = HAND_SIZES[n]
                if len(sizes) != 1 or not sizes <= set(allowed):
                    shown = " or ".join(str(a) for a in sorted(allowed))
                    raise RecordError(
                        f"{game.prefix}hands",
                        _("%(n)s players each take %(shown)s tiles, got %(value)s")
                        % {"n": n, "shown": shown, "value": sorted(sizes)},
                    )
            if game.result is not None:
                sheet = game.result
                if sheet.play_points is None:
                    raise RecordError(
                        f"{game.prefix}result.play_points",
                        _("required: the points each player scored in play"),
                    )
                if self.unit == "points":
                    for seat, pts in sheet.play_points.items():
                        if pts % 5:
                            raise RecordError(
                                f"{game.prefix}result.play_points.{seat}",
                                _("points scored in play are multiples of 5, got %(pts)s")
                                % {"pts": pts},
                            )

    def replay_session(self, record: Record, *, partial: bool = False) -> list[GameReport]:
        match = _Match(self, record)
        reports: list[GameReport] = []
        for game in record.games:
            if match.over:
                raise IllegalMove(
                    game=game.index,
                    move=1,
                    player=None,
                    rule="after-match-end",
                    message=_("the match already ended: a side reached the target"),
                )
            if game.result is not None:
                reports.append(self.score_sheet_in(match, record, game))
            else:
                reports.append(_HandReplay(self, match, record, game).run(partial))
        return reports

    def replay_game(
        self, record: Record, game: GameRecord, previous: Previous, *, partial: bool = False
    ) -> GameReport:
        # A hand depends on the match so far (target, leader): replay the games before it.
        match = _Match(self, record)
        for report in previous:
            match.absorb(report)
        return _HandReplay(self, match, record, game).run(partial)

    def score_sheet(
        self, record: Record, game: GameRecord, previous: Sequence[GameReport]
    ) -> GameReport:
        match = _Match(self, record)
        for report in previous:
            match.absorb(report)
        return self.score_sheet_in(match, record, game)

    def score_sheet_in(self, match: _Match, record: Record, game: GameRecord) -> GameReport:
        sheet = game.result
        sheet = cast(Scoresheet, sheet)
        play_points = cast(dict[str, int], sheet.play_points)  # check_record made it required
        points = dict.fromkeys(record.seats, 0)
        for i, members in enumerate(match.sides):
            scored = sum(play_points[m] for m in members)
            if match.award(i, scored) != scored:
                raise IllegalMove(
                    game=game.index,
                    move=1,
                    player=members[0],
                    rule="over-target",
                    message=_("%(scored)s points in play would pass the exact target")
                    % {"scored": scored},
                )
            for m in members:
                points[m] = play_points[m]
        return match.hand_end(
            game, [], points, dict(sheet.pips), sheet.domino, BLOCKED if sheet.blocked else DOMINO
        )

    def settle(self, record: Record, games: Sequence[GameReport]) -> SessionReport:
        report = super().settle(record, games)
        report.extra["target"] = self.target(len(record.seats))
        report.extra["target_reached"] = any(g.extra.get("match_over") for g in games)
        return report

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        return SimulatedSession(_simulate_match(self, rng, seats, teams, games))


class Muggins(AllFives):
    game = "muggins"
    every_double_spins = False


class FiveUp(AllFives):
    game = "fiveup"
    every_double_spins = True


class _Match:
    """The match so far: side totals, whether a side reached the target, who leads next."""

    def __init__(self, variant: AllFives, record: Record) -> None:
        self.variant = variant
        self.record = record
        self.sides = record.sides()
        self.side_of = {m: i for i, members in enumerate(self.sides) for m in members}
        self.totals = [0] * len(self.sides)
        self.target = variant.target(len(record.seats))
        self.over = False
        self.leader: str | None = None  # who must lead the next hand (None: drawn by lot)

    def absorb(self, report: GameReport) -> None:
        """Fold in a hand already reported (for ``replay_game`` called on its own)."""
        for seat, result in report.players.items():
            self.totals[self.side_of[seat]] += result.final
        self.over = bool(report.extra.get("match_over"))
        self.leader = report.extra.get("next_leader")

    def award(self, side: int, points: int) -> int:
        """Add ``points`` to a side unless exact_target refuses them; return what was added.
        Reaching the target (exactly, with exact_target) ends the match."""
        if points <= 0:
            self.totals[side] += points  # losers_subtract: never refused, never ends
            return points
        total = self.totals[side] + points
        if self.variant.exact_target and total > self.target:
            return 0
        self.totals[side] = total
        if total >= self.target:
            self.over = True
        return points

    def score_hand_end(
        self, won: dict[int, int], pips: dict[str, int], domino: str | None, extra: dict[str, int]
    ) -> None:
        """Add the hand-end scores of 4.5 (or 4.1's losers_subtract) into ``extra``."""
        seats, unit = self.record.seats, self.variant.unit
        if self.variant.hand_end == "losers_subtract":
            for seat in seats:
                lost = to_unit(-round_to_five(pips[seat]), unit)
                extra[seat] = self.award(self.side_of[seat], lost)
            return
        for i, raw in won.items():
            # The side's score is credited to the player who dominoed or, on a block, to
            # the side's member with the fewest pips (the earlier seat on a tie).
            taker = domino
            if taker is None:
                taker = min(self.sides[i], key=lambda m: (pips[m], seats.index(m)))
            extra[taker] += self.award(i, to_unit(raw, unit))

    def hand_end(
        self,
        game: GameRecord,
        entries: list[dict[str, Any]],
        points: dict[str, int],
        pips: dict[str, int],
        domino: str | None,
        end: str,
    ) -> GameReport:
        """Score the end of a hand (4.5) unless the match ended in it, and build its report."""
        seats = self.record.seats
        extra: dict[str, int] = dict.fromkeys(seats, 0)
        winners: list[str] = []
        if end in (DOMINO, BLOCKED):
            side_pips = {i: sum(pips[m] for m in members) for i, members in enumerate(self.sides)}
            won = hand_end_points(side_pips, None if domino is None else self.side_of[domino])
            winners = [m for m in seats if self.side_of[m] in won]
            # Once the target was reached during play the match is won: the hand end is not
            # scored.
            if not self.over:
                self.score_hand_end(won, pips, domino, extra)
        if end == TARGET:
            # The hand was cut short: its winners are the side(s) that reached the target.
            best = max(self.totals)
            winners = [m for m in seats if self.totals[self.side_of[m]] == best]
        players = {
            seat: PlayerResult(
                points[seat], pips[seat], points[seat] + extra[seat], {"hand_end": extra[seat]}
            )
            for seat in seats
        }
        report = GameReport(entries, end, players, winners, side_rows(self.sides, players, winners))
        if self.over:
            report.extra["match_over"] = True
        self.leader = domino if end == DOMINO and not self.over else None
        report.extra["next_leader"] = self.leader
        return report


class _HandReplay:
    def __init__(self, variant: AllFives, match: _Match, record: Record, game: GameRecord):
        self.variant = variant
        self.match = match
        self.record = record
        self.game = game

    def run(self, partial: bool) -> GameReport:
        match, game = self.match, self.game
        seats = self.record.seats
        table = Table(
            game=game,
            order=seats,
            set_size=SET_SIZE,
            layout=FivesLayout(every_double_spins=self.variant.every_double_spins),
            draws=True,
            keep=self.variant.keep,
        )
        points = dict.fromkeys(seats, 0)
        entries: list[dict[str, Any]] = []
        leader = match.leader
        for n, mv in enumerate(game.moves, 1):
            if match.over:
                raise table.illegal(
                    n,
                    mv.player,
                    "after-match-end",
                    _("the match already ended: a side reached the target"),
                )
            table.check_turn(n, mv, leader, "wrong-lead")
            player = cast(str, mv.player)  # tile moves always name a seat
            if mv.kind == PLAY:
                count = table.play(n, mv)
                raw = count if count > 0 and count % 5 == 0 else 0
                scored = to_unit(raw, self.variant.unit)
                got = match.award(match.side_of[player], scored) if scored else 0
                points[player] += got
                entry = placement(n, player, mv.tile, count, got)  # type: ignore[arg-type]
                if got != scored:
                    entry["over_target"] = True
                entries.append(entry)
            elif mv.kind == DRAW:
                entries.append(draw(n, player, table.draw(n, mv)))
            else:  # PASS: check_record let only tile moves through
                table.pass_(n, mv)
                entries.append(passed(n, player))
        if table.end is not None:
            end = table.end
        elif match.over:
            end = TARGET
        elif partial:
            end = UNFINISHED
        else:
            who = table.to_move or leader
            raise table.illegal(
                len(game.moves) + 1,
                who,
                "unfinished",
                _("the record stops before the hand ends (%(who)s to move)") % {"who": who}
                if who is not None
                else _("the record stops before the hand ends"),
            )
        domino = table.last_placer if end == DOMINO else None
        pips = {seat: table.pips(seat) for seat in seats}
        return match.hand_end(game, entries, points, pips, domino, end)


# -- simulator -----------------------------------------------------------------------------


def _simulate_match(
    variant: AllFives,
    rng: random.Random,
    seats: tuple[str, ...],
    teams: tuple[tuple[str, ...], ...] | None,
    games: int,
) -> list[SimulatedGame]:
    """Play up to ``games`` random legal hands, stopping when a side reaches the target."""
    sim = _SimMatch(variant, rng, seats, teams)
    out: list[SimulatedGame] = []
    for _unused in range(games):
        if sim.over:
            break
        out.append(sim.hand())
    return out


class _SimMatch:
    """The simulator's match. Written apart from ``FivesLayout`` and ``_Match`` on purpose:
    the table is a flat list of open slots ``[tile, value, kind]`` (kind ``"end"`` for a
    plain tile's end, ``"side"`` for a double's long side, ``"cross"`` for a spinner's cross
    end) and the count is recomputed from it, so that replaying the output checks the
    engine against a second implementation."""

    def __init__(
        self,
        variant: AllFives,
        rng: random.Random,
        seats: tuple[str, ...],
        teams: tuple[tuple[str, ...], ...] | None,
    ) -> None:
        self.variant = variant
        self.rng = rng
        self.seats = seats
        self.sides = teams if teams is not None else tuple((s,) for s in seats)
        self.side_of = {m: i for i, members in enumerate(self.sides) for m in members}
        self.totals = [0] * len(self.sides)
        self.target = variant.target(len(seats))
        self.fives = variant.unit == "fives"
        self.leader: str | None = None
        self.over = False

    def award(self, side: int, pts: int) -> int:
        if pts > 0 and self.variant.exact_target and self.totals[side] + pts > self.target:
            return 0
        self.totals[side] += pts
        if pts > 0 and self.totals[side] >= self.target:
            self.over = True
        return pts

    def unit(self, raw: int) -> int:
        return raw // 5 if self.fives else raw

    def hand(self) -> SimulatedGame:
        """Deal and play one random legal hand."""
        rng, seats = self.rng, self.seats
        deck = sorted(self.variant.tiles)
        rng.shuffle(deck)
        size = rng.choice(HAND_SIZES[len(seats)])
        hands = {seat: deck[i * size : (i + 1) * size] for i, seat in enumerate(seats)}
        stock = deck[len(seats) * size :]
        self.held = {seat: list(h) for seat, h in hands.items()}
        self.slots: list[list[Any]] = []
        self.spinners: set[Tile] = set()
        self.moves: list[dict[str, Any]] = []
        self.move_points: list[int | None] = []
        self.points = dict.fromkeys(seats, 0)

        turn = seats.index(self.leader) if self.leader else rng.randrange(len(seats))
        self.put(seats[turn], rng.choice(self.held[seats[turn]]), None)
        end = DOMINO if not self.held[seats[turn]] else ""
        passes = 0
        while not end and not self.over:
            turn = (turn + 1) % len(seats)
            seat = seats[turn]
            choices = [(t, sl) for t in self.held[seat] for sl in self.options(t)]
            if not choices and len(stock) > self.variant.keep:
                choices = self.draw_until_playable(seat, stock)
                passes = 0
            if choices:
                # Favour a scoring placement now and then, like a player would.
                scoring = [c for c in choices if _sim_count(self.after(*c)) % 5 == 0]
                tile, slot = rng.choice(scoring if scoring and rng.random() < 0.6 else choices)
                self.put(seat, tile, slot)
                passes = 0
                if not self.held[seat]:
                    end = DOMINO
            else:
                self.moves.append({"player": seat, "pass": True})
                self.move_points.append(None)
                passes += 1
                if passes == len(seats):
                    end = BLOCKED

        hand_end = dict.fromkeys(seats, 0)
        pips = {seat: sum(t[0] + t[1] for t in self.held[seat]) for seat in seats}
        domino = seats[turn] if end == DOMINO else None
        if end and not self.over:
            self.score_hand_end(pips, domino, hand_end)
        if self.over and not end:
            end = TARGET
        self.leader = domino if end == DOMINO and not self.over else None
        finals = {seat: self.points[seat] + hand_end[seat] for seat in seats}
        game: dict[str, Any] = {"hands": {seat: [str(t) for t in h] for seat, h in hands.items()}}
        game["stock"] = [str(t) for t in deck[len(seats) * size :]]
        return SimulatedGame({**game, "moves": self.moves}, self.move_points, finals, end)

    def draw_until_playable(self, seat: str, stock: list[Tile]) -> list[tuple[Tile, Any]]:
        """Draw from the top of ``stock`` (down to the kept tiles) until a tile fits; the
        places the last drawn tile fits (none: the stock ran out)."""
        choices: list[tuple[Tile, Any]] = []
        while not choices and len(stock) > self.variant.keep:
            tile = stock.pop(0)
            self.held[seat].append(tile)
            # Both spellings of a draw: the next listed tile, or the tile named.
            self.moves.append(
                {"player": seat, "draw": True if self.rng.random() < 0.5 else str(tile)}
            )
            self.move_points.append(None)
            choices = [(tile, sl) for sl in self.options(tile)]
        return choices

    def score_hand_end(self, pips: dict[str, int], domino: str | None, out: dict[str, int]) -> None:
        sides, seats = self.sides, self.seats
        side_pips = [sum(pips[m] for m in members) for members in sides]

        def nearest5(p: int) -> int:
            return (p + 2) // 5 * 5

        won: dict[int, int] = {}
        if domino is not None:
            w = self.side_of[domino]
            won[w] = nearest5(sum(p for i, p in enumerate(side_pips) if i != w))
        else:
            low = min(side_pips)
            lows = [i for i, p in enumerate(side_pips) if p == low]
            if len(lows) == 1:
                won[lows[0]] = nearest5(sum(side_pips) - low)
            elif len(sides) == 3 and len(lows) == 2:
                k = nearest5(sum(side_pips) - 2 * low) // 5
                for i in lows:
                    won[i] = 5 * ((k + 1) // 2)  # half of 5k, an exact half rounding up
        if self.variant.hand_end == "losers_subtract":
            for seat in seats:
                out[seat] = self.award(self.side_of[seat], self.unit(-nearest5(pips[seat])))
            return
        for i, raw in won.items():
            taker = domino or min(sides[i], key=lambda m: (pips[m], seats.index(m)))
            out[taker] += self.award(i, self.unit(raw))

    def options(self, tile: Tile) -> list[list[Any]]:
        found, seen = [], set()
        for slot in self.slots:
            on, v, kind = slot
            if v not in tile or (on, kind) in seen:
                continue
            if kind == "cross" and any(s[0] == on and s[2] == "side" for s in self.slots):
                continue  # a spinner's cross ends wait for both its sides
            seen.add((on, kind))
            found.append(slot)
        return found

    def after(self, tile: Tile, slot: list[Any] | None) -> list[list[Any]]:
        """The open slots after ``tile`` goes on ``slot`` (None: the lead)."""
        if slot is None:
            v = tile[0]
            if tile.is_double:
                return [
                    [tile, v, "side"],
                    [tile, v, "side"],
                    [tile, v, "cross"],
                    [tile, v, "cross"],
                ]
            return [[tile, tile[0], "end"], [tile, tile[1], "end"]]
        after = list(self.slots)
        after.remove(slot)
        v = slot[1]
        if tile.is_double:
            after.append([tile, v, "side"])
            if self.variant.every_double_spins or not self.spinners:
                after += [[tile, v, "cross"], [tile, v, "cross"]]
        else:
            after.append([tile, tile[1] if tile[0] == v else tile[0], "end"])
        return after

    def put(self, seat: str, tile: Tile, slot: list[Any] | None) -> None:
        move: dict[str, Any] = {"player": seat, "tile": str(tile)}
        if slot is not None:
            move["on"] = str(slot[0])
            if slot[0].is_double:
                move["facet"] = "cross" if slot[2] == "cross" else "end"
        self.slots = self.after(tile, slot)
        if tile.is_double and any(s[0] == tile and s[2] == "cross" for s in self.slots):
            self.spinners.add(tile)
        self.held[seat].remove(tile)
        self.moves.append(move)
        c = _sim_count(self.slots)
        got = self.award(self.side_of[seat], self.unit(c if c > 0 and c % 5 == 0 else 0))
        self.points[seat] += got
        self.move_points.append(got)


def _sim_count(slots: list[list[Any]]) -> int:
    """Plain free ends count their value; a double with a free long side counts 2v."""
    plain = sum(v for _unused, v, kind in slots if kind == "end")
    return plain + sum(2 * t[0] for t in {t for t, _unused, kind in slots if kind == "side"})
