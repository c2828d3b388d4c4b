"""FIDO games end to end: domino and blocked ends, finals, teams, matches, openings,
irregular deals, scoresheets (RULES.md 3.1, 3.4-3.6)."""

import copy

import pytest

from matches.rules import IllegalMove, RecordError, replay
from matches.rules.record import load
from matches.rules.variants.fido import HAND_SIZES, Fido, default_divisor, layout, score

from .fido_records import BLOCKED_GAME, DOMINO_GAME, draw, play, record


def test_domino_game_report():
    report = replay(DOMINO_GAME)
    game = report["games"][0]
    assert [(m["n"], m.get("count"), m.get("points")) for m in game["moves"]] == [
        (1, 12, 4),
        (2, 15, 5),
        (3, 20, 0),
        (4, None, None),
        (5, None, None),
        (6, None, None),
        (7, 16, 0),
        (8, 15, 5),
        (9, None, None),
        (10, 14, 0),
    ]
    assert game["moves"][3] == {"n": 4, "player": "A", "draw": "5-1"}
    assert game["end"] == "domino"
    assert game["players"] == {
        "A": {"points": 4, "pips_left": 0, "final": 4},
        "B": {"points": 10, "pips_left": 4, "final": 6},
        "C": {"points": 0, "pips_left": 13, "final": -13},
    }
    assert game["winners"] == ["B"]
    assert report["session"]["players"] == {
        "A": {"total": 4, "money": "0.00"},
        "B": {"total": 6, "money": "0.00"},
        "C": {"total": -13, "money": "0.00"},
    }
    assert report["session"]["winners"] == ["B"]
    assert report["session"]["pool"] == "0.00"


def test_blocked_game_report():
    game = replay(BLOCKED_GAME)["games"][0]
    assert [m.get("points") for m in game["moves"]] == [4, 4, 0, 0, 3, 4, 3, 4, 0, 6, None, None]
    assert [m.get("count") for m in game["moves"][:10]] == [12, 12, 11, 14, 9, 12, 9, 12, 14, 18]
    assert game["moves"][-2:] == [
        {"n": 11, "player": "B", "pass": True},
        {"n": 12, "player": "A", "pass": True},
    ]
    assert game["end"] == "blocked"
    assert game["players"] == {
        "A": {"points": 18, "pips_left": 46, "final": -28},
        "B": {"points": 10, "pips_left": 44, "final": -34},
    }
    assert game["winners"] == ["A"]
    assert layout(load(BLOCKED_GAME)) == ([6, 6, 6], [6])


def test_equal_finals_share_the_win():
    data = {
        "variant": {"game": "fido", "set": 9},
        "seats": ["A", "B", "C"],
        "games": [
            {
                "result": {
                    "domino": "B",
                    "pips": {"A": 4, "B": 0, "C": 9},
                    "points": {"A": 11, "B": 7, "C": 3},
                }
            }
        ],
    }
    report = replay(data)
    assert report["games"][0]["winners"] == ["A", "B"]
    assert report["session"]["winners"] == ["A", "B"]


def test_teams_add_their_members_finals():
    data = copy.deepcopy(DOMINO_GAME)
    data["seats"] = ["A", "B", "C"]
    data["teams"] = [["A", "C"], ["B"]]
    game = replay(data)["games"][0]
    assert game["sides"] == [
        {"players": ["A", "C"], "points": 4, "pips_left": 13, "final": -9, "winner": False},
        {"players": ["B"], "points": 10, "pips_left": 4, "final": 6, "winner": True},
    ]
    assert game["winners"] == ["B"]


def test_match_of_several_games_totals_each_side():
    game_1 = {k: DOMINO_GAME[k] for k in ("hands", "moves")}
    scoresheet = {
        "result": {
            "blocked": True,
            "pips": {"A": 10, "B": 3, "C": 0},
            "points": {"A": 30, "B": 2, "C": 5},
        }
    }
    data = {
        "format": "fido-game-record/1",
        "variant": DOMINO_GAME["variant"],
        "seats": ["A", "B", "C"],
        "games": [game_1, scoresheet],
    }
    report = replay(data)
    assert report["games"][1] == {
        "moves": [],
        "end": "blocked",
        "players": {
            "A": {"points": 30, "pips_left": 10, "final": 20},
            "B": {"points": 2, "pips_left": 3, "final": -1},
            "C": {"points": 5, "pips_left": 0, "final": 5},
        },
        "winners": ["A"],
        "sides": [
            {"players": ["A"], "points": 30, "pips_left": 10, "final": 20, "winner": True},
            {"players": ["B"], "points": 2, "pips_left": 3, "final": -1, "winner": False},
            {"players": ["C"], "points": 5, "pips_left": 0, "final": 5, "winner": False},
        ],
    }
    # Game 1 finals 4, 6, -13; game 2 finals 20, -1, 5.
    totals = {p: v["total"] for p, v in report["session"]["players"].items()}
    assert totals == {"A": 24, "B": 5, "C": -8}
    assert report["session"]["winners"] == ["A"]


def test_scoresheet_needs_points():
    data = {
        "variant": {"game": "fido", "set": 6},
        "seats": ["A", "B", "C"],
        "games": [{"result": {"domino": "A", "pips": {"A": 0, "B": 3, "C": 4}}}],
    }
    with pytest.raises(RecordError) as caught:
        replay(data)
    assert caught.value.path == "games[0].result.points"


def test_scoresheet_domino_player_holds_nothing():
    data = {
        "variant": {"game": "fido", "set": 6},
        "seats": ["A", "B"],
        "games": [
            {"result": {"domino": "A", "pips": {"A": 2, "B": 3}, "points": {"A": 1, "B": 1}}}
        ],
    }
    with pytest.raises(RecordError) as caught:
        replay(data)
    assert caught.value.path == "games[0].result.pips.A"


def test_opening_with_the_next_highest_double_when_double_n_is_not_dealt():
    hands = {"A": ["5-3", "1-0"], "B": ["4-4", "6-0"], "C": ["5-5", "2-0"]}
    data = record(hands, [play("C", "5-5")], set_=6)
    assert replay(data, partial=True)["games"][0]["moves"][0]["count"] == 10
    with pytest.raises(IllegalMove) as caught:
        replay(record(hands, [play("B", "4-4")], set_=6), partial=True)
    assert (caught.value.rule, caught.value.message) == ("out-of-turn", "C opens the game with 5-5")


def test_opening_without_doubles_uses_the_heaviest_tile():
    hands = {"A": ["5-3", "1-0"], "B": ["6-2", "6-0"], "C": ["6-3", "2-0"]}
    data = record(hands, [play("C", "6-3")], set_=6)
    # E = {6, 3}, X = {}: S = 9 on divisor 3 scores 3.
    assert replay(data, partial=True)["games"][0]["moves"][0] == {
        "n": 1,
        "player": "C",
        "tile": "6-3",
        "count": 9,
        "points": 3,
    }
    assert layout(load(data)) == ([6, 3], [])
    # Without doubles the second tile simply joins an end.
    data["moves"].append(play("A", "5-3", "6-3"))
    assert layout(load(data)) == ([6, 5], [])


def test_heaviest_tile_tie_goes_to_the_higher_top_end():
    hands = {"A": ["4-3", "1-0"], "B": ["5-2", "2-0"], "C": ["6-1", "3-0"]}
    with pytest.raises(IllegalMove) as caught:
        replay(record(hands, [play("B", "5-2")], set_=6), partial=True)
    assert caught.value.message == "C opens the game with 6-1"


def test_default_divisor_and_hand_size_table():
    assert [default_divisor(n) for n in (6, 9, 12, 15, 18, 21)] == [3, 5, 7, 9, 11, 13]
    assert Fido({"set": 18}).divisor == 11
    assert Fido({"set": 12}).expected_hand(4) == 18 == HAND_SIZES[12][4]
    assert Fido({"set": 21}).expected_hand(9) == 25
    # Two players (practice) take the three-player hand.
    assert Fido({"set": 6}).expected_hand(2) == 7
    assert Fido({"set": 6, "hand_size": 9}).expected_hand(4) == 9


@pytest.mark.parametrize(
    ("s", "d", "points"),
    [(44, 11, 4), (55, 11, 5), (48, 11, 0), (0, 3, 0), (110, 11, 10), (21, 7, 3)],
)
def test_score_is_s_over_d_when_d_divides_s(s, d, points):
    assert score(s, d) == points


def test_too_many_tiles_are_kept_and_counted():
    hands = {"A": ["6-6", "1-0"], "B": ["6-3", "2-2", "2-1"], "C": ["6-5", "4-0"]}
    data = record(hands, DOMINO_GAME["moves"], set_=6, hand_size=2)
    game = replay(data)["games"][0]
    assert game["players"]["B"] == {"points": 10, "pips_left": 7, "final": 3}
    assert game["winners"] == ["A"]


def test_too_few_tiles_must_be_drawn_with_corrections():
    hands = {"A": ["6-6", "1-0"], "B": ["6-3"], "C": ["6-5", "4-0"]}
    moves = [
        *DOMINO_GAME["moves"][:2],
        draw("B", "2-2", correction=True),
        *DOMINO_GAME["moves"][2:],
    ]
    game = replay(record(hands, moves, set_=6, hand_size=2))["games"][0]
    assert game["moves"][2] == {"n": 3, "player": "B", "draw": "2-2", "correction": True}
    # The correction did not take B's turn: C still plays third.
    assert game["moves"][3]["player"] == "C"
    assert game["players"]["B"] == {"points": 10, "pips_left": 4, "final": 6}


def test_correction_found_at_the_end_is_still_drawn_and_counted():
    hands = {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"], "C": ["6-5"]}
    moves = [
        *DOMINO_GAME["moves"][:2],
        play("C", "6-5", "6-6", "cross"),
        draw("C", "4-0", correction=True),
        *DOMINO_GAME["moves"][3:],
    ]
    # C's 6-5 emptied C's hand, but C was owed a tile: the game goes on (3.6).
    game = replay(record(hands, moves, set_=6, hand_size=2))["games"][0]
    assert game["end"] == "domino"
    assert game["players"]["C"] == {"points": 0, "pips_left": 13, "final": -13}

    # Found only after A played out: C draws the missing tile after the end, and its
    # pips count. (C, short and with an empty hand, drew in turn meanwhile.)
    late = [*DOMINO_GAME["moves"], draw("C", "5-5", correction=True)]
    hands = {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"], "C": ["6-5"]}
    game = replay(record(hands, late, set_=6, hand_size=2))["games"][0]
    assert game["end"] == "domino"
    assert game["players"]["C"] == {"points": 0, "pips_left": 19, "final": -19}
    assert game["moves"][-1] == {"n": 11, "player": "C", "draw": "5-5", "correction": True}


def test_a_correction_that_is_not_owed_is_refused():
    moves = [*DOMINO_GAME["moves"][:1], draw("B", "5-5", correction=True)]
    with pytest.raises(IllegalMove) as caught:
        replay({**DOMINO_GAME, "moves": moves}, partial=True)
    assert (caught.value.move, caught.value.rule) == (2, "correction-not-owed")


def test_missing_corrections_are_refused_at_the_end():
    # B is dealt one tile of two and never draws the other; B's empty hand after move 2
    # does not end the game, A's domino at move 10 does.
    hands = {"A": ["6-6", "1-0"], "B": ["6-3"], "C": ["6-5", "4-0"]}
    data = record(hands, DOMINO_GAME["moves"], set_=6, hand_size=2)
    with pytest.raises(IllegalMove) as caught:
        replay(data)
    err = caught.value
    assert (err.move, err.player, err.rule) == (11, "B", "correction-missing")
    assert err.message == "B was dealt 1 tile too few and never drew it"
    # With partial the record is reported as it stands.
    assert replay(data, partial=True)["games"][0]["end"] == "domino"


def test_unfinished_game_is_refused_unless_partial():
    data = {**DOMINO_GAME, "moves": DOMINO_GAME["moves"][:5]}
    with pytest.raises(IllegalMove) as caught:
        replay(data)
    err = caught.value
    assert (err.move, err.player, err.rule) == (6, "C", "unfinished")
    assert err.message == "the record stops before the game ends (C to move)"
    game = replay(data, partial=True)["games"][0]
    assert game["end"] == "unfinished"
    assert game["players"]["A"] == {"points": 4, "pips_left": 7, "final": -3}


def test_stock_listed_draws_follow_its_order_and_may_omit_the_tile():
    hands = {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"], "C": ["6-5", "4-0"]}
    moves = [
        *DOMINO_GAME["moves"][:3],
        draw("A"),  # "draw": true takes the top of the listed stock
        draw("B", "3-2"),
        draw("C", "4-3"),
        *DOMINO_GAME["moves"][6:],
    ]
    data = record(hands, moves, set_=6, stock=["5-1", "3-2", "4-3", "2-0"])
    game = replay(data)["games"][0]
    assert game["moves"][3] == {"n": 4, "player": "A", "draw": "5-1"}
    assert game["winners"] == ["B"]
