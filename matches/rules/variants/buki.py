"""Buki (RULES.md 5.1): ``"game": "buki"``, a four-player Austrian block game with a banker.

The record names the ``banker`` (a seat) and the agreed ``stakes``: ``{"min": "2", "max":
"6"}``, decimal strings. Stakes, raises and spectator bets are events in a game's
``moves``; the replay is the Austrian one (``austrian.AustrianGames``) plus the deadlines
of 5.1: a non-banker stakes before their third turn (the winner of the previous game
before their first), may raise until their fourth, and every game that has a winner is
settled; a tie for fewest pips carries the stakes and bets to the next game. The session's
``money`` is the sum of the game ledgers (spectators in ``session.spectators``).

Contract of the pure part:

- ``BukiTable`` holds what lies on the table during one game: each non-banker's stake and
  the accepted spectator bets. ``post_stake``, ``raise_stake`` and ``accept_bet`` check the
  amounts (``StakeError`` with a reason) and change nothing when they refuse.
- ``settle`` turns the table and the game's winner into a ledger (name -> Decimal) that sums
  to zero: a winning non-banker keeps their stake and is paid 2.5 times it by the banker,
  the banker collects every other stake; a spectator's bet settles like the stake of the
  player it is on. With no winner (a tie for fewest pips) ``settle`` returns None: the table
  carries to the next game (``carry``) where stakes may rise but never fall.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

from matches.rules.amounts import parse_amount
from matches.rules.errors import IllegalMove, RecordError
from matches.rules.i18n import _
from matches.rules.model import RAISE, STAKE, GameRecord, Move, Record
from matches.rules.report import ZERO, GameReport, SessionReport, event, money
from matches.rules.variants.austrian import (
    AustrianGames,
    AustrianSession,
    SimAustrian,
)
from matches.rules.variants.base import SimulatedGame, SimulatedSession
from matches.rules.variants.hooks import Random, Seats, Teams
from matches.rules.variants.turns import Table

PAYOUT = Decimal("2.5")


class StakeError(ValueError):
    """An amount the table refuses; ``rule`` names the broken rule."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True)
class Bet:
    spectator: str
    on: str
    amount: Decimal


@dataclass
class BukiTable:
    banker: str
    minimum: Decimal
    maximum: Decimal
    stakes: dict[str, Decimal] = field(default_factory=dict)
    # Stakes left on the table by a tied game: they stand, may be raised, never lowered.
    carried: dict[str, Decimal] = field(default_factory=dict)
    bets: list[Bet] = field(default_factory=list)

    def _check_range(self, amount: Decimal) -> None:
        if not self.minimum <= amount <= self.maximum:
            raise StakeError(
                f"stake {amount} is outside [{self.minimum}, {self.maximum}]", "stake-range"
            )

    def post_stake(self, player: str, amount: Decimal) -> None:
        if player == self.banker:
            raise StakeError("the banker does not stake", "banker-stake")
        self._check_range(amount)
        floor = self.carried.get(player)
        if floor is not None and amount < floor:
            raise StakeError(
                f"stake {amount} is below the {floor} carried from the tied game", "stake-lowered"
            )
        if player in self.stakes and player not in self.carried:
            raise StakeError(f"{player} has already staked; ask to raise", "stake-twice")
        self.stakes[player] = amount
        # Once re-posted, the carried stake no longer binds this player to a second post.
        self.carried.pop(player, None)

    def raise_stake(self, player: str, amount: Decimal) -> None:
        """An accepted raise; ``amount`` is the new stake."""
        if player == self.banker:
            raise StakeError("the banker does not stake", "banker-stake")
        current = self.stakes.get(player)
        if current is None:
            raise StakeError(f"{player} has no stake to raise", "raise-without-stake")
        if amount <= current:
            raise StakeError(f"raise to {amount} is not above the stake {current}", "raise-lower")
        self._check_range(amount)
        self.stakes[player] = amount
        self.carried.pop(player, None)

    def accept_bet(self, spectator: str, on: str, amount: Decimal) -> None:
        if on == self.banker:
            raise StakeError("a spectator bets on a player against the banker", "bet-on-banker")
        if amount <= 0:
            raise StakeError(f"bet {amount} is not positive", "bet-amount")
        self.bets.append(Bet(spectator, on, amount))

    def carry(self) -> BukiTable:
        """The table of the next game after a tie: every stake and bet stays on it."""
        return BukiTable(
            banker=self.banker,
            minimum=self.minimum,
            maximum=self.maximum,
            stakes=dict(self.stakes),
            carried=dict(self.stakes),
            bets=list(self.bets),
        )

    def fresh(self) -> BukiTable:
        """The table of the next game after a settled one: nothing on it."""
        return BukiTable(banker=self.banker, minimum=self.minimum, maximum=self.maximum)


def settle(table: BukiTable, winner: str | None) -> dict[str, Decimal] | None:
    """One game's ledger (players and spectators), or None when nobody won."""
    if winner is None:
        return None
    ledger: dict[str, Decimal] = {table.banker: Decimal(0)}
    wagers = [(p, p, amount) for p, amount in table.stakes.items()]
    wagers += [(b.spectator, b.on, b.amount) for b in table.bets]
    for who, on, amount in wagers:
        delta = amount * PAYOUT if on == winner else -amount
        ledger[who] = ledger.get(who, Decimal(0)) + delta
        ledger[table.banker] -= delta
    return ledger


# -- the variant ----------------------------------------------------------------------------

#: Buki deals 6 tiles each (Stamm 12), or 7 (Stamm 8) in the variant.
HAND_SIZES = (6, 7)


def read_stakes(record: Record) -> tuple[Decimal, Decimal]:
    raw = record.extra.get("stakes")
    if not isinstance(raw, Mapping) or set(raw) != {"min", "max"}:
        raise RecordError("stakes", _('required: {"min": "2", "max": "6"} (decimal strings)'))
    low = parse_amount(raw["min"], "stakes.min")
    high = parse_amount(raw["max"], "stakes.max")
    if high < low:
        raise RecordError(
            "stakes.max",
            _("the maximum %(high)s is below the minimum %(low)s") % {"high": high, "low": low},
        )
    return low, high


class BukiSession(AustrianSession):
    def __init__(self, variant: AustrianGames, record: Record) -> None:
        super().__init__(variant, record)
        self.banker = cast(str, record.banker)  # check_money_keys made it required
        low, high = read_stakes(record)
        self.book = BukiTable(banker=self.banker, minimum=low, maximum=high)
        self.must_stake_first: str | None = None  # the previous game's non-banker winner

    def event(self, n: int, mv: Move, table: Table | None, game: GameRecord) -> dict[str, Any]:
        amount = cast(Decimal, mv.amount)  # the loader requires it on every event
        who = mv.player if mv.player is not None else mv.spectator
        try:
            if mv.kind == STAKE:
                player = cast(str, mv.player)
                self.book.post_stake(player, amount)
                return event(n, player, "stake", amount)
            if mv.kind == RAISE:
                player = cast(str, mv.player)
                if player == self.banker:
                    raise StakeError("the banker does not stake", "banker-stake")
                if table is not None and table.turns_taken.get(player, 0) >= 4:
                    raise IllegalMove(
                        game=game.index,
                        move=n,
                        player=player,
                        rule="raise-too-late",
                        message=_("%(player)s may ask to raise only until their fourth turn")
                        % {"player": player},
                    )
                if mv.accepted:
                    self.book.raise_stake(player, amount)
                return event(n, player, "raise", amount, accepted=mv.accepted)
            if mv.accepted:
                self.book.accept_bet(cast(str, mv.spectator), cast(str, mv.target), amount)
            return event(
                n, None, "bet", amount, spectator=mv.spectator, on=mv.target, accepted=mv.accepted
            )
        except StakeError as exc:
            raise IllegalMove(
                game=game.index, move=n, player=who, rule=exc.rule, message=str(exc)
            ) from None

    def before_move(self, n: int, player: str, table: Table) -> None:
        if player == self.banker or player in self.book.stakes:
            return
        if player == self.must_stake_first:
            raise table.illegal(
                n,
                player,
                "stake-missing",
                _("%(player)s won the previous game and stakes before their first tile")
                % {"player": player},
            )
        if table.turns_taken[player] >= 2:
            raise table.illegal(
                n,
                player,
                "stake-missing",
                _("%(player)s stakes before their third turn") % {"player": player},
            )

    def settle_game(
        self, game: GameRecord, report: GameReport, pips: Mapping[str, int], n_after: int
    ) -> None:
        for seat in self.record.seats:
            if seat != self.banker and seat not in self.book.stakes:
                raise IllegalMove(
                    game=game.index,
                    move=n_after,
                    player=seat,
                    rule="stake-missing",
                    message=_("the game ended without a stake from %(seat)s") % {"seat": seat},
                )
        winner = report.winners[0] if report.winners else None
        ledger = settle(self.book, winner)
        if ledger is None:
            report.extra["carried"] = {p: money(v) for p, v in self.book.stakes.items()}
            self.book = self.book.carry()
            self.must_stake_first = None
            return
        full = dict.fromkeys(self.record.seats, ZERO) | ledger
        report.extra["ledger"] = {name: money(v) for name, v in full.items()}
        self.book = self.book.fresh()
        self.must_stake_first = winner if winner != self.banker else None


class Buki(AustrianGames):
    game = "buki"
    fixed_block = True
    seat_counts = range(4, 5)
    record_keys = frozenset({"stakes"})

    def hand_sizes(self, players: int) -> tuple[int, ...]:
        return HAND_SIZES if players == 4 else ()

    def mode_seat_counts(self) -> tuple[int, ...]:
        return (4,)

    def has_events(self) -> bool:
        return True

    def check_money_keys(self, record: Record) -> None:
        if record.banker is None:
            raise RecordError("banker", _("required: the seat who banks the session"))
        read_stakes(record)

    def new_session(self, record: Record) -> AustrianSession:
        return BukiSession(self, record)

    def settle(self, record: Record, games: Sequence[GameReport]) -> SessionReport:
        report = super().settle(record, games)  # totals: games won
        ledger: dict[str, Decimal] = {}
        for g in games:
            for name, amount in g.extra.get("ledger", {}).items():
                ledger[name] = ledger.get(name, ZERO) + Decimal(amount)
        for seat in record.seats:
            report.players[seat].money = ledger.get(seat, ZERO)
        report.extra["spectators"] = {
            name: {"money": money(v)} for name, v in ledger.items() if name not in record.seats
        }
        # A money game is won on money: whoever is furthest ahead, if anyone is ahead.
        best = max((ledger.get(s, ZERO) for s in record.seats), default=ZERO)
        report.winners = [s for s in record.seats if best > 0 and ledger.get(s, ZERO) == best]
        for row in report.sides:
            row["winner"] = row["players"][0] in report.winners
        return report

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        sim = SimBuki(self, rng, seats)
        played = [sim.game() for _unused in range(games)]
        extra = {"banker": sim.banker, "stakes": {"min": money(sim.low), "max": money(sim.high)}}
        return SimulatedSession(played, extra, dict(sim.money))


class SimBuki(SimAustrian):
    """Random Buki games with stakes, raises and spectator bets, and the money they should
    settle to, computed here from the rule text (not with ``BukiTable``)."""

    def __init__(self, variant: AustrianGames, rng: random.Random, seats: tuple[str, ...]):
        super().__init__(variant, rng, seats)
        self.banker = seats[-1]
        self.low = Decimal(rng.choice(["1", "2", "0.50"]))
        self.high = self.low * 3
        self.money: dict[str, Decimal] = dict.fromkeys(seats, ZERO)
        self.stakes: dict[str, Decimal] = {}
        self.floor: dict[str, Decimal] = {}  # carried after a tie: may rise, never fall
        self.bets: list[tuple[str, str, Decimal]] = []
        self.first_staker: str | None = None

    def amount(self, at_least: Decimal) -> Decimal:
        steps = int((self.high - at_least) / Decimal("0.5"))
        return at_least + Decimal("0.5") * self.rng.randint(0, steps)

    def hook_before_turn(self, seat: str, turns: int, moves: list[dict[str, Any]]) -> None:
        rng = self.rng
        if rng.random() < 0.05:
            on = rng.choice([s for s in self.seats if s != self.banker])
            bet = Decimal(rng.choice(["1", "2.50", "0.10"]))
            accepted = rng.random() < 0.7
            if accepted:
                self.bets.append((f"S{rng.randint(1, 2)}", on, bet))
                moves.append(
                    {"spectator": self.bets[-1][0], "on": on, "bet": money(bet), "accepted": True}
                )
            else:
                moves.append({"spectator": "S3", "on": on, "bet": money(bet), "accepted": False})
        if seat == self.banker:
            return
        if seat in self.floor and rng.random() < 0.3:
            # A carried stake may be posted again, never lower (RULES.md 5.1).
            self.stakes[seat] = self.amount(self.floor.pop(seat))
            moves.append({"player": seat, "stake": money(self.stakes[seat])})
        elif seat not in self.stakes:
            if turns >= 2 or seat == self.first_staker or rng.random() < 0.4:
                self.stakes[seat] = self.amount(self.low)
                moves.append({"player": seat, "stake": money(self.stakes[seat])})
        elif turns < 4 and self.stakes[seat] < self.high and rng.random() < 0.1:
            new = self.amount(self.stakes[seat] + Decimal("0.5"))
            accepted = rng.random() < 0.5
            moves.append({"player": seat, "raise": money(new), "accepted": accepted})
            if accepted:
                self.stakes[seat] = new
                self.floor.pop(seat, None)

    def game(self) -> SimulatedGame:
        # Stakes carried from a tie stand unless posted again, higher.
        self.stakes = dict(self.floor)
        game, points, _unused, end, winner = self.play()
        moves = game["moves"]
        missing = [s for s in self.seats if s != self.banker and s not in self.stakes]
        for seat in missing:
            # The game ended before their third turn: the stake goes before the last move.
            self.stakes[seat] = self.amount(self.low)
            moves.insert(len(moves) - 1, {"player": seat, "stake": money(self.stakes[seat])})
            points.insert(len(points) - 1, None)
        if winner is None:
            self.floor = dict(self.stakes)
            self.first_staker = None
        else:
            wagers = [(p, p, s) for p, s in self.stakes.items()] + self.bets
            for who, on, amount in wagers:
                delta = amount * 5 / 2 if on == winner else -amount
                self.money[who] = self.money.get(who, ZERO) + delta
                self.money[self.banker] -= delta
            self.bets = []
            self.floor = {}
            self.first_staker = winner if winner != self.banker else None
        finals = {seat: 1 if seat == winner else 0 for seat in self.seats}
        return SimulatedGame(game, points, finals, end)
