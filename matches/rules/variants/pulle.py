"""Pulle (RULES.md 5.2): ``"game": "pulle"``, a four-player Austrian block game with a pool.

The record gives the ``stake`` each player pays into the pool (a decimal string) and,
optionally, ``per_game``, the amount each game's winner receives from every opponent (half
when the game was blocked). A game's ``buy_backs`` lists, in order, the players who bought
back after it. The replay is the Austrian one (``austrian.AustrianGames``) over the players
still in the game (eliminated seats hold ``[]``); after each game the pure
``PulleSession`` below adds the pips, applies buy-backs, the broken pool, eliminations and
the pool. The report's game ``extra`` carries ``ledger`` (that game's money, the first
game's including the stakes) and ``pulle`` (scores, players still in, buy-backs,
eliminations, broken pool, pool); the session's ``money`` sums the ledgers and ``pool`` is
what is still in the pool, so that money plus pool sums to zero.

Contract of the pure part: ``PulleSession`` is the state between games (running scores,
who is still in, the pool, each player's money). ``PulleSession.start`` has everyone pay the
stake; ``end_game`` applies one game's outcome then its buy-backs in record order, then the
broken-pool rule or the eliminations, then hands the pool to the last player alive. Every
refusal raises ``PulleError`` (with a ``rule``) before changing anything. At any moment
``sum(money) + pool == 0``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from matches.rules.amounts import parse_amount
from matches.rules.errors import IllegalMove, RecordError
from matches.rules.i18n import _
from matches.rules.model import GameRecord, Record
from matches.rules.report import BLOCKED, ZERO, GameReport, SessionReport, money
from matches.rules.variants.austrian import (
    AustrianGames,
    AustrianSession,
    SimAustrian,
)
from matches.rules.variants.base import SimulatedGame, SimulatedSession
from matches.rules.variants.hooks import Random, Seats, Teams

ELIMINATION_ABOVE = 100


class PulleError(ValueError):
    """A step the session refuses; ``rule`` names the rule, ``player`` who broke it."""

    def __init__(self, message: str, rule: str, player: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.player = player


def buy_back_score(others: Sequence[int]) -> int:
    """The score a buy-back sets: the middle of the other players' scores (an even count
    takes the higher of the two middles); if they are all equal, that score plus one."""
    if not others:
        raise PulleError("nobody else is in the game", "buy-back-alone")
    ordered = sorted(others)
    if ordered[0] == ordered[-1]:
        return ordered[0] + 1
    return ordered[len(ordered) // 2]


@dataclass
class GameOutcome:
    """What a finished game changes: pips left per player still in, the winner (None for a
    tie for fewest pips in a blocked game) and whether it was blocked."""

    pips: Mapping[str, int]
    winner: str | None
    blocked: bool


@dataclass
class GameSettlement:
    """What ``end_game`` did, for the report."""

    per_game: dict[str, Decimal] = field(default_factory=dict)
    buy_backs: list[tuple[str, int, int]] = field(default_factory=list)  # (player, from, to)
    eliminated: list[str] = field(default_factory=list)
    broken_pool: bool = False
    pool_taken_by: str | None = None


@dataclass
class PulleSession:
    seats: tuple[str, ...]
    stake: Decimal
    per_game: Decimal | None = None
    scores: dict[str, int] = field(default_factory=dict)
    alive: list[str] = field(default_factory=list)
    money: dict[str, Decimal] = field(default_factory=dict)
    pool: Decimal = Decimal(0)
    winner: str | None = None  # the last player alive, once the pool is taken

    @classmethod
    def start(
        cls, seats: Sequence[str], stake: Decimal, per_game: Decimal | None = None
    ) -> PulleSession:
        session = cls(tuple(seats), stake, per_game)
        session.scores = dict.fromkeys(seats, 0)
        session.alive = list(seats)
        session.money = dict.fromkeys(seats, Decimal(0))
        for p in seats:
            session._pay_pool(p, stake)
        return session

    @property
    def buy_back_price(self) -> Decimal:
        return self.stake / 2

    @property
    def over(self) -> bool:
        return self.winner is not None

    def _pay_pool(self, player: str, amount: Decimal) -> None:
        self.money[player] -= amount
        self.pool += amount

    def end_game(self, outcome: GameOutcome, buy_backs: Sequence[str] = ()) -> GameSettlement:
        if self.over:
            raise PulleError(f"the session is over: {self.winner} took the pool", "after-end")
        if set(outcome.pips) != set(self.alive):
            raise PulleError(
                f"the game's players {sorted(outcome.pips)} are not those still in "
                f"{sorted(self.alive)}",
                "players-in-game",
            )
        # Validate every buy-back before touching anything, so a refusal changes nothing.
        scores = dict(self.scores)
        if outcome.winner is not None:
            for p, pips in outcome.pips.items():
                scores[p] += pips
        moves: list[tuple[str, int, int]] = []
        for p in buy_backs:
            if p not in self.alive:
                raise PulleError(f"{p} is out of the game and cannot buy back", "buy-back-out", p)
            before = scores[p]
            after = buy_back_score([scores[o] for o in self.alive if o != p])
            if after >= before:
                raise PulleError(
                    f"{p}'s buy-back would set {after}, not below their {before}",
                    "buy-back-not-lower",
                    p,
                )
            scores[p] = after
            moves.append((p, before, after))

        done = GameSettlement(buy_backs=moves)
        self.scores = scores
        if outcome.winner is not None and self.per_game is not None:
            amount = self.per_game / 2 if outcome.blocked else self.per_game
            for p in self.alive:
                if p != outcome.winner:
                    self.money[p] -= amount
                    self.money[outcome.winner] += amount
                    done.per_game[p] = -amount
            done.per_game[outcome.winner] = amount * (len(self.alive) - 1)
        for p, _unused, _unused in moves:
            self._pay_pool(p, self.buy_back_price)

        over = [p for p in self.alive if self.scores[p] > ELIMINATION_ABOVE]
        if over and len(over) == len(self.alive):
            # Broken pool: nobody would be left, so everyone still in starts afresh.
            done.broken_pool = True
            for p in self.alive:
                self.scores[p] = 0
                self._pay_pool(p, self.stake)
        else:
            done.eliminated = over
            self.alive = [p for p in self.alive if p not in over]
        if len(self.alive) == 1:
            (last,) = self.alive
            self.money[last] += self.pool
            self.pool = Decimal(0)
            self.winner = last
            done.pool_taken_by = last
        return done


# -- the variant ----------------------------------------------------------------------------

HAND_SIZE = 7


def read_money(record: Record) -> tuple[Decimal, Decimal | None]:
    if "stake" not in record.extra:
        raise RecordError("stake", _('required: what each player pays into the pool, e.g. "3.00"'))
    stake = parse_amount(record.extra["stake"], "stake")
    raw = record.extra.get("per_game")
    per_game = None if raw is None else parse_amount(raw, "per_game", positive=False)
    return stake, per_game


class PulleReplay(AustrianSession):
    def __init__(self, variant: AustrianGames, record: Record) -> None:
        super().__init__(variant, record)
        stake, per_game = read_money(record)
        self.book = PulleSession.start(record.seats, stake, per_game)
        self.money_before = dict.fromkeys(record.seats, ZERO)

    def players_in(self) -> tuple[str, ...]:
        return tuple(self.book.alive)

    def check_open(self, game: GameRecord) -> None:
        if self.book.over:
            raise IllegalMove(
                game=game.index,
                move=1,
                player=None,
                rule="after-session-end",
                message=_("the session is over: %(winner)s took the pool")
                % {"winner": self.book.winner},
            )

    def final(self, seat: str, winner: str | None, pips: Mapping[str, int]) -> int:
        # The pips a game adds to the running score; a tie for fewest pips adds nothing.
        return pips.get(seat, 0) if winner is not None else 0

    def settle_game(
        self, game: GameRecord, report: GameReport, pips: Mapping[str, int], n_after: int
    ) -> None:
        winner = report.winners[0] if report.winners else None
        outcome = GameOutcome(pips, winner, report.end == BLOCKED)
        try:
            done = self.book.end_game(outcome, game.buy_backs)
        except PulleError as exc:
            raise IllegalMove(
                game=game.index, move=n_after, player=exc.player, rule=exc.rule, message=str(exc)
            ) from None
        book = self.book
        report.extra["ledger"] = {
            p: money(book.money[p] - self.money_before[p]) for p in self.record.seats
        }
        self.money_before = dict(book.money)
        state: dict[str, Any] = {
            "scores": dict(book.scores),
            "alive": list(book.alive),
            "buy_backs": [{"player": p, "from": a, "to": b} for p, a, b in done.buy_backs],
            "eliminated": done.eliminated,
            "broken_pool": done.broken_pool,
            "pool": money(book.pool),
        }
        if done.pool_taken_by is not None:
            state["pool_taken_by"] = done.pool_taken_by
        report.extra["pulle"] = state


class Pulle(AustrianGames):
    game = "pulle"
    fixed_block = True
    players_drop_out = True
    seat_counts = range(4, 5)
    record_keys = frozenset({"stake", "per_game"})

    def hand_sizes(self, players: int) -> tuple[int, ...]:
        return (HAND_SIZE,)

    def mode_seat_counts(self) -> tuple[int, ...]:
        return (4,)

    def check_money_keys(self, record: Record) -> None:
        super().check_money_keys(record)
        read_money(record)

    def new_session(self, record: Record) -> AustrianSession:
        return PulleReplay(self, record)

    def settle(self, record: Record, games: Sequence[GameReport]) -> SessionReport:
        report = super().settle(record, games)
        stake, _unused = read_money(record)
        # The first settled game's ledger holds the stakes paid at the start; with none
        # settled (a partial replay) only those stakes have been paid.
        ledger = dict.fromkeys(record.seats, -stake)
        state: dict[str, Any] = {}
        settled = [g for g in games if "ledger" in g.extra]
        if settled:
            ledger = dict.fromkeys(record.seats, ZERO)
        for g in settled:
            for seat, amount in g.extra["ledger"].items():
                ledger[seat] += Decimal(amount)
            state = g.extra["pulle"]
        for seat in record.seats:
            report.players[seat].money = ledger[seat]
            if state:
                report.players[seat].total = state["scores"][seat]
        # What the players paid and have not got back is in the pool (0, not -0.000).
        report.pool = -sum(ledger.values(), ZERO) or ZERO
        taken = state.get("pool_taken_by")
        report.winners = [taken] if taken else []
        for row in report.sides:
            row["total"] = sum(report.players[m].total for m in row["players"])
            row["winner"] = row["players"][0] in report.winners
        report.extra["alive"] = state.get("alive", list(record.seats))
        return report

    def simulate(self, rng: Random, seats: Seats, teams: Teams, games: int) -> SimulatedSession:
        sim = SimPulle(self, rng, seats)
        played = []
        for _unused in range(games):
            if len(sim.alive) == 1:
                break
            played.append(sim.game())
        extra: dict[str, Any] = {"stake": money(sim.stake)}
        if sim.per_game is not None:
            extra["per_game"] = money(sim.per_game)
        return SimulatedSession(played, extra, dict(sim.money))


class SimPulle(SimAustrian):
    """Random Pulle sessions with buy-backs, and the money they should settle to, computed
    here from the rule text (not with ``PulleSession``)."""

    def __init__(self, variant: AustrianGames, rng: random.Random, seats: tuple[str, ...]):
        super().__init__(variant, rng, seats)
        self.stake = Decimal(rng.choice(["3.00", "1", "0.25"]))
        self.per_game = rng.choice([None, Decimal("1.00"), Decimal("0.10")])
        self.alive = list(seats)
        self.scores = dict.fromkeys(seats, 0)
        self.money = dict.fromkeys(seats, -self.stake)
        self.pool = self.stake * len(seats)

    def in_game(self) -> tuple[str, ...]:
        return tuple(self.alive)

    def hand_size(self, players: int) -> int:
        return HAND_SIZE

    def game(self) -> SimulatedGame:
        rng = self.rng
        game, points, pips, end, winner = self.play()
        finals = dict.fromkeys(self.seats, 0)
        if winner is not None:
            for p in self.alive:
                self.scores[p] += pips[p]
                finals[p] = pips[p]
            if self.per_game is not None:
                each = self.per_game / 2 if end == BLOCKED else self.per_game
                for p in self.alive:
                    if p != winner:
                        self.money[p] -= each
                        self.money[winner] += each
        buy_backs = []
        for p in rng.sample(self.alive, len(self.alive)):
            others = sorted(self.scores[o] for o in self.alive if o != p)
            middle = others[0] + 1 if len(set(others)) == 1 else others[len(others) // 2]
            keen = 0.9 if self.scores[p] > 100 else 0.15
            if middle < self.scores[p] and rng.random() < keen:
                self.scores[p] = middle
                self.money[p] -= self.stake / 2
                self.pool += self.stake / 2
                buy_backs.append(p)
        if buy_backs:
            game["buy_backs"] = buy_backs
        out = [p for p in self.alive if self.scores[p] > 100]
        if len(out) == len(self.alive):
            for p in self.alive:
                self.scores[p] = 0
                self.money[p] -= self.stake
                self.pool += self.stake
        else:
            self.alive = [p for p in self.alive if p not in out]
        if len(self.alive) == 1:
            self.money[self.alive[0]] += self.pool
            self.pool = ZERO
        return SimulatedGame(game, points, finals, end)
