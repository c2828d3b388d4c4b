"""The record loader: shapes refused with the path of the faulty field (RULES.md 2, 2.1)."""

import copy
from decimal import Decimal

import pytest

from matches.rules import RecordError, replay
from matches.rules.record import BET, RAISE, STAKE, load
from matches.rules.tiles import Tile

from .fido_records import DOMINO_GAME, SECTION_2_EXAMPLE


def error_path(data, partial=True):
    with pytest.raises(RecordError) as caught:
        replay(data, partial=partial)
    return caught.value.path


def changed(**top):
    data = copy.deepcopy(DOMINO_GAME)
    data.update(top)
    return data


def session(*games, **top):
    data = {
        "variant": copy.deepcopy(DOMINO_GAME["variant"]),
        "seats": ["A", "B", "C"],
        "games": [copy.deepcopy(g) for g in games],
    }
    data.update(top)
    return data


GAME = {k: DOMINO_GAME[k] for k in ("hands", "moves")}


def test_single_game_is_normalised_into_a_games_tuple():
    record = load(SECTION_2_EXAMPLE)
    assert record.single
    assert len(record.games) == 1
    game = record.games[0]
    assert game.hands is not None
    assert game.hands["A"] == (Tile(18, 18), Tile(18, 7))
    assert game.stock == (Tile(3, 1), Tile(9, 9))
    assert record.teams == (("A", "C"), ("B", "D"))
    assert game.moves[1].on == Tile(18, 18)
    assert game.moves[1].facet == "cross"
    assert game.moves[2].facet is None
    assert game.moves[3].kind == "draw"
    assert game.moves[4].kind == "pass"


def test_not_an_object():
    with pytest.raises(RecordError, match="JSON object"):
        replay([1, 2])


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"format": "other/2"}, "format"),
        ({"variant": None}, "variant"),
        ({"variant": {"set": 6}}, "variant.game"),
        ({"variant": {"game": "chess"}}, "variant.game"),
        ({"variant": {"game": "fido", "set": 7}}, "variant.set"),
        ({"variant": {"game": "fido"}}, "variant.set"),
        ({"variant": {"game": "fido", "set": 6, "divisor": 4}}, "variant.divisor"),
        ({"variant": {"game": "fido", "set": 6, "colour": "red"}}, "variant.colour"),
        ({"variant": {"game": "fido", "set": 6, "hand_size": 0}}, "variant.hand_size"),
        ({"variant": {"game": "fido", "set": 6, "hand_size": 10}}, "variant.hand_size"),
        ({"seats": ["A"]}, "seats"),
        ({"seats": ["A", "B", "A"]}, "seats[2]"),
        ({"seats": ["A", "", "C"]}, "seats[1]"),
        ({"seats": list("ABCDEFGHIJ")}, "seats"),
        ({"teams": [["A", "B"], ["Z"]]}, "teams[1][0]"),
        ({"teams": [["A", "B"], ["B", "C"]]}, "teams[1][0]"),
        ({"teams": [["A", "B"]]}, "teams"),
        ({"teams": [["A"], ["B"]]}, "teams"),
        ({"banker": "Z"}, "banker"),
        ({"tiel": "6-6"}, "tiel"),
        ({"hands": {"A": ["6-6", "1-0"], "B": ["6-3", "2-2"]}}, "hands.C"),
        ({"hands": {"A": ["6-6"], "B": [], "C": [], "Z": []}}, "hands.Z"),
        ({"hands": {"A": ["6-6", "1-0"], "B": ["6-3", "0-1"], "C": []}}, "hands.B[1]"),
        ({"hands": {"A": ["6-6", "7-0"], "B": [], "C": []}}, "hands.A[1]"),
        ({"hands": {"A": ["6-6", "x"], "B": [], "C": []}}, "hands.A[1]"),
        ({"hands": {"A": "6-6", "B": [], "C": []}}, "hands.A"),
        ({"stock": ["5-1", "6-6"]}, "stock[1]"),
        ({"stock": "5-1"}, "stock"),
        ({"moves": None}, "moves"),
    ],
)
def test_top_level_shape_errors(change, path):
    assert error_path(changed(**change)) == path


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(RecordError, match=r"known: .*fido"):
        replay(changed(variant={"game": "chess"}))


def _moves_with(index, move):
    data = copy.deepcopy(DOMINO_GAME)
    data["moves"][index] = move
    return data


@pytest.mark.parametrize(
    ("move", "path"),
    [
        ("6-6", "moves[3]"),
        ({"player": "A"}, "moves[3]"),
        ({"tile": "5-1"}, "moves[3].player"),
        ({"player": "Z", "tile": "5-1"}, "moves[3].player"),
        ({"player": "A", "tile": "5-9"}, "moves[3].tile"),
        ({"player": "A", "tile": "5-1", "on": "nine"}, "moves[3].on"),
        ({"player": "A", "tile": "5-1", "on": "6-5", "facet": "side"}, "moves[3].facet"),
        ({"player": "A", "tile": "5-1", "draw": "5-1"}, "moves[3].draw"),
        ({"player": "A", "draw": 5}, "moves[3].draw"),
        ({"player": "A", "draw": "5-1", "correction": "yes"}, "moves[3].correction"),
        ({"player": "A", "pass": False}, "moves[3].pass"),
        ({"player": "A", "pass": True, "tile2": "1-1"}, "moves[3].tile2"),
        ({"player": "A", "stake": 4}, "moves[3].stake"),
        ({"player": "A", "stake": "four"}, "moves[3].stake"),
        ({"player": "A", "stake": "-1"}, "moves[3].stake"),
        ({"player": "A", "stake": "NaN"}, "moves[3].stake"),
        ({"player": "A", "raise": "5"}, "moves[3].accepted"),
        ({"spectator": "A", "on": "B", "bet": "3", "accepted": True}, "moves[3].spectator"),
        ({"spectator": "S1", "on": "Z", "bet": "3", "accepted": True}, "moves[3].on"),
        ({"spectator": "S1", "on": "B", "accepted": True}, "moves[3].bet"),
        ({"buy_backs": ["A"]}, "moves[3]"),
    ],
)
def test_move_shape_errors(move, path):
    assert error_path(_moves_with(3, move)) == path


def test_fido_refuses_session_events():
    assert error_path(_moves_with(3, {"player": "A", "stake": "4"})) == "moves[3]"


def test_paths_in_a_session_name_the_game():
    bad = copy.deepcopy(GAME)
    bad["moves"][3] = {"player": "A", "tile": "6-7"}
    assert error_path(session(GAME, bad)) == "games[1].moves[3].tile"
    assert error_path(session(GAME, {**GAME, "hands": {"A": ["6-6"]}})) == "games[1].hands.B"
    assert error_path(session(GAME, {"moves": []})) == "games[1].hands"
    assert error_path(session(GAME, {**GAME, "colour": 1})) == "games[1].colour"
    assert error_path(session()) == "games"
    assert error_path(session(GAME, 7)) == "games[1]"


def test_scoresheet_shape_errors():
    def sheet(result, **game):
        return session({"result": result, **game})

    pips = {"A": 0, "B": 3, "C": 4}
    points = {"A": 1, "B": 2, "C": 3}
    assert error_path(sheet({"pips": pips, "points": points})) == "games[0].result"
    assert error_path(sheet({"domino": "A", "blocked": True, "pips": pips})) == "games[0].result"
    assert error_path(sheet({"domino": "Z", "pips": pips})) == "games[0].result.domino"
    assert (
        error_path(sheet({"blocked": True, "pips": {"A": 1, "B": 2}})) == "games[0].result.pips.C"
    )
    assert (
        error_path(sheet({"blocked": True, "pips": {**pips, "B": -1}})) == "games[0].result.pips.B"
    )
    assert (
        error_path(sheet({"blocked": True, "pips": {**pips, "B": 2.5}})) == "games[0].result.pips.B"
    )
    assert error_path(sheet({"blocked": True, "pips": pips, "extra": 1})) == "games[0].result.extra"
    assert error_path(sheet({"blocked": "yes", "pips": pips})) == "games[0].result.blocked"
    assert (
        error_path(sheet({"blocked": True, "pips": pips, "points": points}, hands=GAME["hands"]))
        == "games[0].result"
    )
    assert (
        error_path(
            sheet(
                {"blocked": True, "pips": pips, "points": points},
                moves=[{"player": "A", "pass": True}],
            )
        )
        == "games[0].moves[0]"
    )


def test_session_events_are_parsed_with_decimal_amounts():
    # FIDO refuses them at check time; the loader's parsing is what is tested here, on a
    # variant-neutral level, through the Move objects it builds before that check.
    from matches.rules.record import _move
    from matches.rules.variants.fido import Fido

    variant = Fido({"set": 6})
    seats = ("A", "B")
    stake = _move({"player": "A", "stake": "4.50"}, "m", seats, variant)
    assert (stake.kind, stake.player, stake.amount) == (STAKE, "A", Decimal("4.50"))
    raised = _move({"player": "B", "raise": "5", "accepted": False}, "m", seats, variant)
    assert (raised.kind, raised.amount, raised.accepted) == (RAISE, Decimal("5"), False)
    bet = _move({"spectator": "S1", "on": "B", "bet": "3", "accepted": True}, "m", seats, variant)
    assert (bet.kind, bet.player, bet.spectator, bet.target, bet.amount, bet.accepted) == (
        BET,
        None,
        "S1",
        "B",
        Decimal("3"),
        True,
    )


def test_record_error_message_and_dict():
    with pytest.raises(RecordError) as caught:
        replay(changed(variant={"game": "fido", "set": 7}))
    err = caught.value
    assert err.as_dict() == {
        "path": "variant.set",
        "message": "must be one of 6, 9, 12, 15, 18, 21, got 7",
    }
    assert str(err) == "variant.set: must be one of 6, 9, 12, 15, 18, 21, got 7"
