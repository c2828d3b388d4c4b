"""Buki (RULES.md 5.1): the settlement, stakes, raises, carried stakes and spectator bets,
then full sessions replayed through the engine."""

from __future__ import annotations

from decimal import Decimal

import pytest

from matches.rules.variants.buki import BukiTable, StakeError, settle


def example_table() -> BukiTable:
    # RULES.md 5.1: min 2, max 6; A stakes 4, B 2, C 6; D is the banker.
    table = BukiTable(banker="D", minimum=Decimal(2), maximum=Decimal(6))
    table.post_stake("A", Decimal(4))
    table.post_stake("B", Decimal(2))
    table.post_stake("C", Decimal(6))
    return table


def test_example_a_wins() -> None:
    assert settle(example_table(), "A") == {
        "A": Decimal(10),
        "B": Decimal(-2),
        "C": Decimal(-6),
        "D": Decimal(-2),
    }


def test_example_b_wins() -> None:
    assert settle(example_table(), "B") == {
        "A": Decimal(-4),
        "B": Decimal(5),
        "C": Decimal(-6),
        "D": Decimal(5),
    }


def test_example_c_wins() -> None:
    assert settle(example_table(), "C") == {
        "A": Decimal(-4),
        "B": Decimal(-2),
        "C": Decimal(15),
        "D": Decimal(-9),
    }


def test_example_d_banker_wins() -> None:
    assert settle(example_table(), "D") == {
        "A": Decimal(-4),
        "B": Decimal(-2),
        "C": Decimal(-6),
        "D": Decimal(12),
    }


def test_tied_game_settles_nothing() -> None:
    assert settle(example_table(), None) is None


def test_stake_outside_the_agreed_range_is_refused() -> None:
    table = BukiTable(banker="D", minimum=Decimal(2), maximum=Decimal(6))
    for amount in ("1.99", "6.01"):
        with pytest.raises(StakeError) as err:
            table.post_stake("A", Decimal(amount))
        assert err.value.rule == "stake-range"
    assert table.stakes == {}


def test_banker_does_not_stake() -> None:
    table = BukiTable(banker="D", minimum=Decimal(2), maximum=Decimal(6))
    with pytest.raises(StakeError) as err:
        table.post_stake("D", Decimal(3))
    assert err.value.rule == "banker-stake"


def test_second_stake_in_a_game_is_refused() -> None:
    table = example_table()
    with pytest.raises(StakeError) as err:
        table.post_stake("A", Decimal(5))
    assert err.value.rule == "stake-twice"
    assert table.stakes["A"] == Decimal(4)


def test_carried_stake_stands_may_rise_to_max_and_never_falls() -> None:
    table = example_table().carry()
    assert table.stakes == {"A": Decimal(4), "B": Decimal(2), "C": Decimal(6)}
    with pytest.raises(StakeError) as err:
        table.post_stake("A", Decimal(3))
    assert err.value.rule == "stake-lowered"
    with pytest.raises(StakeError) as err:
        table.post_stake("B", Decimal(7))
    assert err.value.rule == "stake-range"
    table.post_stake("B", Decimal(6))
    assert settle(table, "B") == {
        "A": Decimal(-4),
        "B": Decimal(15),
        "C": Decimal(-6),
        "D": Decimal(-5),
    }


def test_raise_sets_a_higher_stake_within_the_maximum() -> None:
    table = example_table()
    table.raise_stake("A", Decimal(5))
    assert table.stakes["A"] == Decimal(5)
    with pytest.raises(StakeError) as err:
        table.raise_stake("A", Decimal(5))
    assert err.value.rule == "raise-lower"
    with pytest.raises(StakeError) as err:
        table.raise_stake("A", Decimal("6.5"))
    assert err.value.rule == "stake-range"
    fresh = BukiTable(banker="D", minimum=Decimal(2), maximum=Decimal(6))
    with pytest.raises(StakeError) as err:
        fresh.raise_stake("A", Decimal(3))
    assert err.value.rule == "raise-without-stake"


def test_spectator_bet_settles_like_that_players_stake() -> None:
    table = example_table()
    table.accept_bet("S1", "B", Decimal(3))
    table.accept_bet("S2", "C", Decimal(1))
    assert settle(table, "B") == {
        "A": Decimal(-4),
        "B": Decimal(5),
        "C": Decimal(-6),
        "D": Decimal("-1.5"),
        "S1": Decimal("7.5"),
        "S2": Decimal(-1),
    }
    assert settle(table, "D") == {
        "A": Decimal(-4),
        "B": Decimal(-2),
        "C": Decimal(-6),
        "D": Decimal(16),
        "S1": Decimal(-3),
        "S2": Decimal(-1),
    }


def test_bet_on_the_banker_is_refused() -> None:
    table = example_table()
    with pytest.raises(StakeError) as err:
        table.accept_bet("S1", "D", Decimal(3))
    assert err.value.rule == "bet-on-banker"
    assert table.bets == []


def test_settlement_is_exact_decimal_and_sums_to_zero() -> None:
    table = BukiTable(banker="D", minimum=Decimal("0.10"), maximum=Decimal("0.30"))
    table.post_stake("A", Decimal("0.11"))
    table.post_stake("B", Decimal("0.13"))
    table.post_stake("C", Decimal("0.29"))
    ledger = settle(table, "A")
    assert ledger is not None
    assert ledger["A"] == Decimal("0.275")
    assert sum(ledger.values()) == Decimal(0)
