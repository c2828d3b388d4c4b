"""Pulle money and running scores (RULES.md 5.2).

Contract of the pure part: ``PulleSession`` is the state between games (running scores,
who is still in, the pool, each player's money). ``PulleSession.start`` has everyone pay the
stake; ``end_game`` applies one game's outcome then its buy-backs in record order, then the
broken-pool rule or the eliminations, then hands the pool to the last player alive. Every
refusal raises ``PulleError`` (with a ``rule``) before changing anything. At any moment
``sum(money) + pool == 0``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

ELIMINATION_ABOVE = 100


class PulleError(ValueError):
    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


def buy_back_score(others: Sequence[int]) -> int:
    """The score a buy-back sets: the middle of the other players' scores (an even count
    takes the higher of the two middles); if they are all equal, that score plus one."""
    if not others:
        raise PulleError("nobody else is in the game", "buy_back_alone")
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
            raise PulleError(f"the session is over: {self.winner} took the pool", "after_end")
        if set(outcome.pips) != set(self.alive):
            raise PulleError(
                f"the game's players {sorted(outcome.pips)} are not those still in "
                f"{sorted(self.alive)}",
                "players",
            )
        # Validate every buy-back before touching anything, so a refusal changes nothing.
        scores = dict(self.scores)
        if outcome.winner is not None:
            for p, pips in outcome.pips.items():
                scores[p] += pips
        moves: list[tuple[str, int, int]] = []
        for p in buy_backs:
            if p not in self.alive:
                raise PulleError(f"{p} is out of the game and cannot buy back", "buy_back_out")
            before = scores[p]
            after = buy_back_score([scores[o] for o in self.alive if o != p])
            if after >= before:
                raise PulleError(
                    f"{p}'s buy-back would set {after}, not below their {before}",
                    "buy_back_not_lower",
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
        for p, _, _ in moves:
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
