"""Buki (RULES.md 5.1): the settlement, stakes, raises, carried stakes and spectator bets,
then full sessions replayed through the engine."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from matches.rules import IllegalMove, RecordError, replay
from matches.rules.variants.buki import BukiTable, StakeError, settle

from .moves import changed
from .trail import trail_game


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


# -- sessions replayed through the engine --------------------------------------------------

# The first 21 tiles of the Austrian trail (trail.py): A leads 8-7 and plays out at the
# 21st placement.
HANDS, TILES = trail_game(21)
STAKES = [
    {"player": "A", "stake": "4"},
    {"player": "B", "stake": "2"},
    {"player": "C", "stake": "6"},
]


def buki(*games: dict[str, Any], low: str = "2", high: str = "6") -> dict[str, Any]:
    return {
        "variant": {"game": "buki"},
        "seats": ["A", "B", "C", "D"],
        "banker": "D",
        "stakes": {"min": low, "max": high},
        "games": list(games),
    }


def money(report: dict[str, Any]) -> dict[str, str]:
    return {p: r["money"] for p, r in report["session"]["players"].items()}


def refused(data: dict[str, Any]) -> tuple[int, int, str | None, str]:
    with pytest.raises(IllegalMove) as caught:
        replay(data, partial=True)
    err = caught.value
    return err.game, err.move, err.player, err.rule


def won_by(winner: str, events: list[dict[str, Any]] = STAKES) -> dict[str, Any]:
    pips = {p: (0 if p == winner else 9) for p in "ABCD"}
    return {"result": {"domino": winner, "pips": pips}, "moves": events}


def test_replayed_game_a_wins_settles_as_the_example() -> None:
    report = replay(buki({"hands": HANDS, "moves": [*STAKES, *TILES]}))
    (game,) = report["games"]
    assert game["winners"] == ["A"]
    assert game["ledger"] == {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-2.00"}
    assert game["moves"][:3] == [
        {"n": 1, "player": "A", "stake": "4.00"},
        {"n": 2, "player": "B", "stake": "2.00"},
        {"n": 3, "player": "C", "stake": "6.00"},
    ]
    assert money(report) == {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-2.00"}
    assert report["session"]["winners"] == ["A"]
    assert report["session"]["pool"] == "0.00"


@pytest.mark.parametrize(
    ("winner", "expected"),
    [
        ("A", {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-2.00"}),
        ("B", {"A": "-4.00", "B": "5.00", "C": "-6.00", "D": "5.00"}),
        ("C", {"A": "-4.00", "B": "-2.00", "C": "15.00", "D": "-9.00"}),
        ("D", {"A": "-4.00", "B": "-2.00", "C": "-6.00", "D": "12.00"}),
    ],
)
def test_example_through_scoresheets(winner: str, expected: dict[str, str]) -> None:
    assert money(replay(buki(won_by(winner)))) == expected


def test_stake_before_the_third_turn() -> None:
    late = [*STAKES[1:], *TILES[:8], STAKES[0], *TILES[8:]]
    assert replay(buki({"hands": HANDS, "moves": late}))["games"][0]["ledger"]["A"] == "10.00"
    # Without it, A's third turn (the ninth placement, after two events) is refused.
    missing = [*STAKES[1:], *TILES]
    assert refused(buki({"hands": HANDS, "moves": missing})) == (0, 11, "A", "stake-missing")


def test_previous_winner_stakes_before_their_first_tile() -> None:
    second = {"hands": HANDS, "moves": [*STAKES[1:], *TILES]}
    assert refused(buki(won_by("A"), second)) == (1, 3, "A", "stake-missing")
    second["moves"] = [*STAKES[1:], STAKES[0], *TILES]
    assert money(replay(buki(won_by("A"), second))) == {
        "A": "20.00",
        "B": "-4.00",
        "C": "-12.00",
        "D": "-4.00",
    }


def test_game_ending_without_a_stake_is_refused() -> None:
    assert refused(buki(won_by("A", STAKES[:2]))) == (0, 3, "C", "stake-missing")


def test_raise_until_the_fourth_turn_accepted_or_refused() -> None:
    # B's turns are placements 2, 6, 10, 14: after 13 placements B has had three.
    raise_b = {"player": "B", "raise": "5", "accepted": True}
    moves = [*STAKES, *TILES[:13], raise_b, *TILES[13:]]
    assert replay(buki({"hands": HANDS, "moves": moves}))["games"][0]["ledger"] == {
        "A": "10.00",
        "B": "-5.00",
        "C": "-6.00",
        "D": "1.00",
    }
    refused_raise = {**raise_b, "accepted": False}
    moves = [*STAKES, *TILES[:13], refused_raise, *TILES[13:]]
    assert replay(buki({"hands": HANDS, "moves": moves}))["games"][0]["ledger"]["B"] == "-2.00"
    late = [*STAKES, *TILES[:14], raise_b, *TILES[14:]]
    assert refused(buki({"hands": HANDS, "moves": late})) == (0, 18, "B", "raise-too-late")


def test_raise_checks_the_amount() -> None:
    for amount, rule in [("7", "stake-range"), ("2", "raise-lower")]:
        raise_b = {"player": "B", "raise": amount, "accepted": True}
        assert refused(buki(won_by("A", [*STAKES, raise_b]))) == (0, 4, "B", rule)
    raise_d = {"player": "D", "raise": "3", "accepted": True}
    assert refused(buki(won_by("A", [*STAKES, raise_d]))) == (0, 4, "D", "banker-stake")


def test_stake_refusals() -> None:
    cases = [
        ({"player": "A", "stake": "1.50"}, "A", "stake-range"),
        ({"player": "D", "stake": "3"}, "D", "banker-stake"),
        ({"player": "A", "stake": "5"}, "A", "stake-twice"),
    ]
    for event, player, rule in cases:
        assert refused(buki(won_by("A", [*STAKES, event]))) == (0, 4, player, rule)


def test_spectator_bets_settle_like_the_stake_of_their_player() -> None:
    bets = [
        {"spectator": "S1", "on": "B", "bet": "3", "accepted": True},
        {"spectator": "S2", "on": "A", "bet": "2", "accepted": True},
        {"spectator": "S3", "on": "C", "bet": "9", "accepted": False},
    ]
    report = replay(buki(won_by("A", [*STAKES, *bets])))
    assert money(report) == {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-4.00"}
    assert report["session"]["spectators"] == {"S1": {"money": "-3.00"}, "S2": {"money": "5.00"}}
    assert report["games"][0]["moves"][3] == {
        "n": 4,
        "player": None,
        "bet": "3.00",
        "spectator": "S1",
        "on": "B",
        "accepted": True,
    }
    on_banker = {"spectator": "S1", "on": "D", "bet": "3", "accepted": True}
    assert refused(buki(won_by("A", [*STAKES, on_banker]))) == (0, 4, "S1", "bet-on-banker")


def tied(events: list[dict[str, Any]] = STAKES) -> dict[str, Any]:
    return {"result": {"blocked": True, "pips": {"A": 5, "B": 5, "C": 9, "D": 12}}, "moves": events}


def test_tied_block_carries_the_stakes_to_the_next_game() -> None:
    report = replay(buki(tied(), won_by("A", [])))
    assert report["games"][0]["winners"] == []
    assert report["games"][0]["carried"] == {"A": "4.00", "B": "2.00", "C": "6.00"}
    assert "ledger" not in report["games"][0]
    assert money(report) == {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-2.00"}


def test_carried_stake_may_rise_to_the_maximum_but_not_fall() -> None:
    lower = [{"player": "A", "stake": "3"}]
    assert refused(buki(tied(), won_by("A", lower))) == (1, 1, "A", "stake-lowered")
    higher = [{"player": "A", "stake": "6"}]
    assert money(replay(buki(tied(), won_by("A", higher)))) == {
        "A": "15.00",
        "B": "-2.00",
        "C": "-6.00",
        "D": "-7.00",
    }


def test_carried_stakes_keep_the_accepted_bets() -> None:
    bet = {"spectator": "S1", "on": "C", "bet": "2", "accepted": True}
    report = replay(buki(tied([*STAKES, bet]), won_by("C", [])))
    assert report["session"]["spectators"] == {"S1": {"money": "5.00"}}
    assert money(report)["D"] == "-14.00"  # -15 to C, +4 from A, +2 from B, -5 to S1


def test_event_after_the_game_ended() -> None:
    moves = [*STAKES, *TILES, {"player": "B", "raise": "3", "accepted": True}]
    assert refused(buki({"hands": HANDS, "moves": moves})) == (0, 25, "B", "after-end")


def test_session_ledger_sums_to_zero_and_winners_are_ahead_on_money() -> None:
    report = replay(buki(won_by("C"), won_by("B"), won_by("D")))
    amounts = [Decimal(r["money"]) for r in report["session"]["players"].values()]
    assert sum(amounts) == Decimal(0)
    # C wins (-4, -2, +15, -9), B wins (-4, +5, -6, +5), D wins (-4, -2, -6, +12).
    assert money(report) == {"A": "-12.00", "B": "1.00", "C": "3.00", "D": "8.00"}
    assert report["session"]["winners"] == ["D"]
    assert report["session"]["players"]["C"]["total"] == 1


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"banker": None}, "banker"),
        ({"stakes": None}, "stakes"),
        ({"stakes": {"min": "6", "max": "2"}}, "stakes.max"),
        ({"stakes": {"min": 2, "max": "6"}}, "stakes.min"),
        ({"teams": [["A", "C"], ["B", "D"]]}, "teams"),
    ],
)
def test_record_checks(change: dict[str, Any], path: str) -> None:
    with pytest.raises(RecordError) as caught:
        replay(changed(buki(won_by("A")), change))
    assert caught.value.path == path


def test_hands_of_six_or_seven() -> None:
    short = {p: h[:5] for p, h in HANDS.items()}
    with pytest.raises(RecordError) as caught:
        replay(buki({"hands": short, "moves": STAKES}))
    assert caught.value.path == "games[0].hands"


def test_bet_of_nothing_is_refused() -> None:
    table = example_table()
    with pytest.raises(StakeError) as err:
        table.accept_bet("S1", "B", Decimal(0))
    assert err.value.rule == "bet-amount"


def test_replay_game_on_its_own_matches_the_session() -> None:
    from matches.rules.record import load

    loaded = load(buki(tied(), {"hands": HANDS, "moves": TILES}))
    reports = loaded.variant.replay_session(loaded)
    alone = loaded.variant.replay_game(loaded, loaded.games[1], reports[:1])
    assert alone.to_json() == reports[1].to_json()
    assert alone.extra["ledger"] == {"A": "10.00", "B": "-2.00", "C": "-6.00", "D": "-2.00"}
