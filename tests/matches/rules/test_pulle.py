"""Pulle (RULES.md 5.2): running scores, buy-backs, eliminations, the broken pool, per-game
payments and the pool, then full sessions replayed through the engine."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from matches.rules import IllegalMove, RecordError, replay
from matches.rules.variants.pulle import (
    GameOutcome,
    PulleError,
    PulleSession,
    buy_back_score,
)

from .moves import changed
from .trail import trail_game

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


# -- sessions replayed through the engine --------------------------------------------------

# The 25-tile Austrian trail (trail.py): A leads 8-7 and plays out at the 25th placement;
# B keeps 4-3 (7 pips), C 2-1 (3), D 4-0 (4).
HANDS, TILES = trail_game(25)


def pulle(*games: dict[str, Any], per_game: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "variant": {"game": "pulle"},
        "seats": list(SEATS),
        "stake": "3.00",
        "games": list(games),
    }
    if per_game is not None:
        data["per_game"] = per_game
    return data


def sheet(pips: dict[str, int], domino: str | None = None, **more: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"pips": pips}
    if domino is None:
        result["blocked"] = True
    else:
        result["domino"] = domino
    return {"result": result, **more}


def scores(report: dict[str, Any], game: int = -1) -> dict[str, int]:
    return report["games"][game]["pulle"]["scores"]


def money(report: dict[str, Any]) -> dict[str, str]:
    return {p: r["money"] for p, r in report["session"]["players"].items()}


def balanced(report: dict[str, Any]) -> bool:
    held = sum(Decimal(r["money"]) for r in report["session"]["players"].values())
    return held + Decimal(report["session"]["pool"]) == Decimal(0)


def test_replayed_game_adds_the_pips_left_and_pays_the_winner() -> None:
    report = replay(pulle({"hands": HANDS, "moves": TILES}, per_game="1.00"))
    (game,) = report["games"]
    assert game["winners"] == ["A"]
    assert game["pulle"]["scores"] == {"A": 0, "B": 7, "C": 3, "D": 4}
    assert {p: r["final"] for p, r in game["players"].items()} == {"A": 0, "B": 7, "C": 3, "D": 4}
    # The first game's ledger holds the stakes paid into the pool at the start.
    assert game["ledger"] == {"A": "0.00", "B": "-4.00", "C": "-4.00", "D": "-4.00"}
    assert report["session"]["pool"] == "12.00"
    assert report["session"]["winners"] == []
    assert report["session"]["players"]["B"] == {"total": 7, "money": "-4.00"}
    assert balanced(report)


def test_buy_back_example_through_the_engine() -> None:
    report = replay(
        pulle(
            sheet({"A": 60, "B": 50, "C": 40, "D": 30}),
            sheet({"A": 47, "B": 44, "C": 28, "D": 20}, buy_backs=["A", "B"]),
        )
    )
    assert scores(report) == {"A": 68, "B": 68, "C": 68, "D": 50}
    assert report["games"][1]["pulle"]["buy_backs"] == [
        {"player": "A", "from": 107, "to": 68},
        {"player": "B", "from": 94, "to": 68},
    ]
    assert report["games"][1]["pulle"]["eliminated"] == []
    assert report["session"]["pool"] == "15.00"
    assert money(report) == {"A": "-4.50", "B": "-4.50", "C": "-3.00", "D": "-3.00"}
    assert balanced(report)


def test_buy_back_99_against_all_70_through_the_engine() -> None:
    report = replay(
        pulle(
            sheet({"A": 50, "B": 30, "C": 40, "D": 20}),
            sheet({"A": 49, "B": 40, "C": 30, "D": 50}, moves=[{"buy_backs": ["A"]}]),
        )
    )
    assert scores(report) == {"A": 71, "B": 70, "C": 70, "D": 70}


def test_seed_payments_through_the_engine() -> None:
    report = replay(
        pulle(
            sheet({"A": 0, "B": 10, "C": 20, "D": 30}, domino="A"),
            sheet({"A": 12, "B": 5, "C": 20, "D": 30}, buy_backs=["D"]),
            per_game="1.00",
        )
    )
    assert report["games"][0]["ledger"] == {"A": "0.00", "B": "-4.00", "C": "-4.00", "D": "-4.00"}
    assert report["games"][1]["ledger"] == {
        "A": "-0.50",
        "B": "1.50",
        "C": "-0.50",
        "D": "-2.00",
    }
    assert report["session"]["pool"] == "13.50"
    assert balanced(report)


def test_replayed_tied_block_adds_nothing_and_pays_nothing() -> None:
    report = replay(pulle(sheet({"A": 5, "B": 5, "C": 9, "D": 12}), per_game="1.00"))
    assert report["games"][0]["winners"] == []
    assert scores(report) == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert money(report) == dict.fromkeys(SEATS, "-3.00")


# After two games A, the blocked game's winner, stands at 101 and is out.
A_OUT = [
    sheet({"A": 50, "B": 10, "C": 12, "D": 14}),
    sheet({"A": 51, "B": 60, "C": 55, "D": 52}),
]
THREE = {"A": [], "B": HANDS["B"], "C": HANDS["C"], "D": HANDS["D"]}


def test_over_100_is_out_and_its_lead_passes_to_the_next_seat_still_in() -> None:
    report = replay(pulle(*A_OUT))
    assert scores(report) == {"A": 101, "B": 70, "C": 67, "D": 66}
    assert report["games"][1]["pulle"]["eliminated"] == ["A"]
    assert report["session"]["alive"] == ["B", "C", "D"]
    third = {"hands": THREE, "moves": [{"player": "C", "tile": "8-6"}]}
    with pytest.raises(IllegalMove) as caught:
        replay(pulle(*A_OUT, third), partial=True)
    assert (caught.value.game, caught.value.move, caught.value.rule) == (2, 1, "wrong-lead")
    third["moves"] = [{"player": "B", "tile": "7-6"}, {"player": "C", "tile": "8-6", "on": "7-6"}]
    led = replay(pulle(*A_OUT, third), partial=True)["games"][2]
    assert led["moves"][1]["count"] == 7 + 8  # the line 7-6, 6-8 shows 7 and 8


def test_player_out_of_the_game_holds_no_tiles_and_no_pips() -> None:
    dealt = {"hands": {**THREE, "A": ["8-0"]}, "moves": []}
    with pytest.raises(RecordError) as caught:
        replay(pulle(*A_OUT, dealt))
    assert caught.value.path == "games[2].hands.A"
    with pytest.raises(RecordError) as caught:
        replay(pulle(*A_OUT, sheet({"A": 3, "B": 0, "C": 4, "D": 5}, domino="B")))
    assert caught.value.path == "games[2].result.pips.A"


def test_out_player_cannot_buy_back() -> None:
    late = sheet({"A": 0, "B": 0, "C": 4, "D": 5}, domino="B", buy_backs=["A"])
    with pytest.raises(IllegalMove) as caught:
        replay(pulle(*A_OUT, late))
    assert (caught.value.game, caught.value.player, caught.value.rule) == (2, "A", "buy-back-out")


def test_buy_back_that_does_not_lower_is_refused() -> None:
    low = sheet({"A": 1, "B": 20, "C": 30, "D": 40}, buy_backs=["A"])
    with pytest.raises(IllegalMove) as caught:
        replay(pulle(low))
    assert (caught.value.player, caught.value.rule) == ("A", "buy-back-not-lower")


def test_broken_pool_through_the_engine() -> None:
    report = replay(
        pulle(
            sheet({"A": 60, "B": 61, "C": 62, "D": 63}),
            sheet({"A": 45, "B": 46, "C": 47, "D": 48}),
        )
    )
    assert report["games"][1]["pulle"]["broken_pool"] is True
    assert scores(report) == dict.fromkeys(SEATS, 0)
    assert report["session"]["pool"] == "24.00"
    assert money(report) == dict.fromkeys(SEATS, "-6.00")


def test_last_player_alive_takes_the_pool_and_the_session_ends() -> None:
    games = [
        sheet({"A": 0, "B": 40, "C": 45, "D": 50}, domino="A"),
        sheet({"A": 10, "B": 61, "C": 56, "D": 51}),
    ]
    report = replay(pulle(*games))
    assert report["games"][1]["pulle"]["pool_taken_by"] == "A"
    assert money(report) == {"A": "9.00", "B": "-3.00", "C": "-3.00", "D": "-3.00"}
    assert report["session"]["pool"] == "0.00"
    assert report["session"]["winners"] == ["A"]
    assert report["session"]["players"]["A"]["total"] == 10
    with pytest.raises(IllegalMove) as caught:
        replay(pulle(*games, sheet({"A": 0, "B": 0, "C": 0, "D": 0}, domino="A")))
    assert (caught.value.game, caught.value.rule) == (2, "after-session-end")


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"stake": None}, "stake"),
        ({"stake": 3}, "stake"),
        ({"per_game": "-1"}, "per_game"),
        ({"banker": "A"}, "banker"),
    ],
)
def test_record_checks(change: dict[str, Any], path: str) -> None:
    with pytest.raises(RecordError) as caught:
        replay(changed(pulle(sheet({"A": 0, "B": 1, "C": 2, "D": 3}, domino="A")), change))
    assert caught.value.path == path


def test_pulle_has_no_stakes_events_and_buki_no_buy_backs() -> None:
    staked = sheet(
        {"A": 0, "B": 1, "C": 2, "D": 3}, domino="A", moves=[{"player": "A", "stake": "1"}]
    )
    with pytest.raises(RecordError) as caught:
        replay(pulle(staked))
    assert caught.value.path == "games[0].moves[0]"
    buki = {
        "variant": {"game": "buki"},
        "seats": list(SEATS),
        "banker": "D",
        "stakes": {"min": "1", "max": "3"},
        "games": [sheet({"A": 0, "B": 1, "C": 2, "D": 3}, domino="A", buy_backs=["B"])],
    }
    with pytest.raises(RecordError) as caught:
        replay(buki)
    assert caught.value.path == "games[0].buy_backs"


def test_player_out_of_the_game_cannot_move() -> None:
    third = {"hands": THREE, "moves": [{"player": "A", "tile": "8-0"}]}
    with pytest.raises(IllegalMove) as caught:
        replay(pulle(*A_OUT, third), partial=True)
    assert (caught.value.game, caught.value.player, caught.value.rule) == (2, "A", "not-in-game")


def test_a_scoresheet_after_an_elimination_needs_the_pips_of_the_players_still_in_only() -> None:
    """A paper scoresheet has no pips for a player who is out: absent, null or 0 all mean
    "out" (issue 15, item 9); a player still in must have theirs."""
    expected = {"A": 101, "B": 70, "C": 71, "D": 71}
    for pips in (
        {"B": 0, "C": 4, "D": 5},  # A absent
        {"A": None, "B": 0, "C": 4, "D": 5},  # A null
        {"A": 0, "B": 0, "C": 4, "D": 5},  # A 0, as before
    ):
        report = replay(pulle(*A_OUT, sheet(pips, domino="B")))
        assert scores(report) == expected, pips
        assert report["session"]["alive"] == ["B", "C", "D"]
        assert report["games"][2]["players"]["A"]["final"] == 0
    with pytest.raises(RecordError) as caught:
        replay(pulle(*A_OUT, sheet({"B": 0, "C": 4}, domino="B")))
    assert caught.value.path == "games[2].result.pips.D"
    assert "D, still in the game" in caught.value.message


def test_before_any_elimination_every_seat_needs_its_pips() -> None:
    with pytest.raises(RecordError) as caught:
        replay(pulle(sheet({"A": 0, "B": 4, "C": 5}, domino="A")))
    assert caught.value.path == "games[0].result.pips.D"
