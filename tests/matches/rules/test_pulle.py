"""Pulle (RULES.md 5.2): running scores, buy-backs, eliminations, the broken pool, per-game
payments and the pool, then full sessions replayed through the engine."""

from __future__ import annotations

from decimal import Decimal

import pytest

from matches.rules.variants.pulle import (
    GameOutcome,
    PulleError,
    PulleSession,
    buy_back_score,
)

SEATS = ("A", "B", "C", "D")


def session_at(
    scores: dict[str, int], stake: str = "3.00", per_game: str | None = None
) -> PulleSession:
    session = PulleSession.start(
        SEATS, Decimal(stake), Decimal(per_game) if per_game is not None else None
    )
    session.scores = dict(scores)
    return session


def tie(players: tuple[str, ...] = SEATS) -> GameOutcome:
    """A blocked game tied for fewest pips: adds nothing, so tests can set scores first."""
    return GameOutcome(pips=dict.fromkeys(players, 9), winner=None, blocked=True)


def test_buy_back_example_a_to_68_then_b_to_68() -> None:
    session = session_at({"A": 107, "B": 94, "C": 68, "D": 50})
    done = session.end_game(tie(), buy_backs=["A", "B"])
    assert done.buy_backs == [("A", 107, 68), ("B", 94, 68)]
    assert session.scores == {"A": 68, "B": 68, "C": 68, "D": 50}
    assert session.alive == list(SEATS)


def test_buy_back_example_99_against_all_70_goes_to_71() -> None:
    session = session_at({"A": 99, "B": 70, "C": 70, "D": 70})
    session.end_game(tie(), buy_backs=["A"])
    assert session.scores["A"] == 71


def test_buy_back_score_middle_rules() -> None:
    assert buy_back_score([94, 68, 50]) == 68
    assert buy_back_score([68, 68, 50]) == 68
    assert buy_back_score([70, 70, 70]) == 71
    assert buy_back_score([10, 40]) == 40  # even count: the higher middle
    assert buy_back_score([10, 20, 30, 40]) == 30
    assert buy_back_score([33]) == 34  # one other: all equal, plus one


def test_seed_payments_stake_3_buy_back_1_50_per_game_1_or_0_50_blocked() -> None:
    session = PulleSession.start(SEATS, Decimal("3.00"), Decimal("1.00"))
    assert session.pool == Decimal("12.00")
    assert session.buy_back_price == Decimal("1.50")
    done = session.end_game(GameOutcome({"A": 0, "B": 10, "C": 20, "D": 30}, "A", False))
    assert done.per_game == {
        "A": Decimal("3.00"),
        "B": Decimal("-1.00"),
        "C": Decimal("-1.00"),
        "D": Decimal("-1.00"),
    }
    done = session.end_game(
        GameOutcome({"A": 12, "B": 5, "C": 20, "D": 30}, "B", True), buy_backs=["D"]
    )
    assert done.per_game == {
        "A": Decimal("-0.50"),
        "B": Decimal("1.50"),
        "C": Decimal("-0.50"),
        "D": Decimal("-0.50"),
    }
    assert session.money == {
        "A": Decimal("-3.00") + Decimal("3.00") - Decimal("0.50"),
        "B": Decimal("-3.00") - Decimal("1.00") + Decimal("1.50"),
        "C": Decimal("-3.00") - Decimal("1.00") - Decimal("0.50"),
        "D": Decimal("-3.00") - Decimal("1.00") - Decimal("0.50") - Decimal("1.50"),
    }
    assert session.pool == Decimal("13.50")
    assert sum(session.money.values()) + session.pool == Decimal(0)


def test_pips_added_after_every_game_blocked_or_not() -> None:
    session = PulleSession.start(SEATS, Decimal(1))
    session.end_game(GameOutcome({"A": 0, "B": 10, "C": 20, "D": 30}, "A", False))
    session.end_game(GameOutcome({"A": 7, "B": 5, "C": 9, "D": 8}, "B", True))
    assert session.scores == {"A": 7, "B": 15, "C": 29, "D": 38}


def test_tied_block_adds_nothing_and_pays_nothing() -> None:
    session = session_at({"A": 10, "B": 20, "C": 30, "D": 40}, per_game="1.00")
    done = session.end_game(GameOutcome({"A": 5, "B": 5, "C": 9, "D": 12}, None, True))
    assert session.scores == {"A": 10, "B": 20, "C": 30, "D": 40}
    assert done.per_game == {}
    assert session.money == dict.fromkeys(SEATS, Decimal("-3.00"))


def test_100_is_alive_101_is_out() -> None:
    session = session_at({"A": 90, "B": 91, "C": 0, "D": 0})
    done = session.end_game(GameOutcome({"A": 10, "B": 10, "C": 0, "D": 3}, "C", False))
    assert session.scores["A"] == 100
    assert session.scores["B"] == 101
    assert done.eliminated == ["B"]
    assert session.alive == ["A", "C", "D"]


def test_buy_back_even_after_going_over_100_saves_the_player() -> None:
    session = session_at({"A": 95, "B": 50, "C": 40, "D": 30})
    done = session.end_game(
        GameOutcome({"A": 12, "B": 4, "C": 3, "D": 0}, "D", False), buy_backs=["A"]
    )
    assert done.buy_backs == [("A", 107, 43)]
    assert done.eliminated == []
    assert session.money["A"] == Decimal("-4.50")


def test_eliminated_player_cannot_buy_back_and_plays_no_more() -> None:
    session = session_at({"A": 100, "B": 0, "C": 0, "D": 0})
    session.end_game(GameOutcome({"A": 5, "B": 0, "C": 1, "D": 2}, "B", False))
    assert session.alive == ["B", "C", "D"]
    with pytest.raises(PulleError) as err:
        session.end_game(tie(("B", "C", "D")), buy_backs=["A"])
    assert err.value.rule == "buy-back-out"
    with pytest.raises(PulleError) as err:
        session.end_game(tie())
    assert err.value.rule == "players-in-game"


def test_buy_back_that_would_not_lower_the_score_is_refused_and_changes_nothing() -> None:
    session = session_at({"A": 10, "B": 50, "C": 60, "D": 70})
    with pytest.raises(PulleError) as err:
        session.end_game(tie(), buy_backs=["A"])
    assert err.value.rule == "buy-back-not-lower"
    assert session.scores == {"A": 10, "B": 50, "C": 60, "D": 70}
    assert session.pool == Decimal("12.00")


def test_broken_pool_resets_scores_and_everyone_pays_again() -> None:
    session = session_at({"A": 95, "B": 96, "C": 97, "D": 98})
    done = session.end_game(GameOutcome({"A": 7, "B": 8, "C": 9, "D": 10}, "A", True))
    assert done.broken_pool is True
    assert done.eliminated == []
    assert session.scores == dict.fromkeys(SEATS, 0)
    assert session.pool == Decimal("24.00")
    assert session.money == dict.fromkeys(SEATS, Decimal("-6.00"))


def test_broken_pool_counts_only_players_still_in() -> None:
    session = session_at({"A": 0, "B": 96, "C": 97, "D": 0})
    session.alive = ["B", "C"]
    done = session.end_game(GameOutcome({"B": 7, "C": 8}, "B", True))
    assert done.broken_pool is True
    assert session.scores == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert session.money["A"] == Decimal("-3.00")
    assert session.money["B"] == Decimal("-6.00")


def test_last_player_alive_takes_the_pool() -> None:
    session = session_at({"A": 99, "B": 99, "C": 99, "D": 0})
    done = session.end_game(GameOutcome({"A": 5, "B": 6, "C": 7, "D": 1}, "D", True))
    assert done.eliminated == ["A", "B", "C"]
    assert done.pool_taken_by == "D"
    assert session.money == {
        "A": Decimal("-3.00"),
        "B": Decimal("-3.00"),
        "C": Decimal("-3.00"),
        "D": Decimal("9.00"),
    }
    assert session.pool == Decimal(0)
    with pytest.raises(PulleError) as err:
        session.end_game(GameOutcome({"D": 0}, "D", False))
    assert err.value.rule == "after-end"
