"""Buki money (RULES.md 5.1): stakes, raises, spectator bets and one game's settlement.

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

from dataclasses import dataclass, field
from decimal import Decimal

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
                f"stake {amount} is outside [{self.minimum}, {self.maximum}]", "stake_range"
            )

    def post_stake(self, player: str, amount: Decimal) -> None:
        if player == self.banker:
            raise StakeError("the banker does not stake", "banker_stake")
        self._check_range(amount)
        floor = self.carried.get(player)
        if floor is not None and amount < floor:
            raise StakeError(
                f"stake {amount} is below the {floor} carried from the tied game", "stake_lowered"
            )
        if player in self.stakes and player not in self.carried:
            raise StakeError(f"{player} has already staked; ask to raise", "stake_twice")
        self.stakes[player] = amount
        # Once re-posted, the carried stake no longer binds this player to a second post.
        self.carried.pop(player, None)

    def raise_stake(self, player: str, amount: Decimal) -> None:
        """An accepted raise; ``amount`` is the new stake."""
        if player == self.banker:
            raise StakeError("the banker does not stake", "banker_stake")
        current = self.stakes.get(player)
        if current is None:
            raise StakeError(f"{player} has no stake to raise", "raise_without_stake")
        if amount <= current:
            raise StakeError(f"raise to {amount} is not above the stake {current}", "raise_lower")
        self._check_range(amount)
        self.stakes[player] = amount
        self.carried.pop(player, None)

    def accept_bet(self, spectator: str, on: str, amount: Decimal) -> None:
        if on == self.banker:
            raise StakeError("a spectator bets on a player against the banker", "bet_on_banker")
        if amount <= 0:
            raise StakeError(f"bet {amount} is not positive", "bet_amount")
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
