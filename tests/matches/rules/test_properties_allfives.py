"""Hypothesis properties of the Muggins and Five Up replays, over simulated matches of
every table size, partnerships and option."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules import replay
from matches.rules.simulate import Simulation, simulate
from matches.rules.tiles import double_set

from .properties import assert_replay_matches_simulation, assert_tiles_conserved


@st.composite
def matches(draw: st.DrawFn, game: str | None = None) -> Simulation:
    game = game or draw(st.sampled_from(["muggins", "fiveup"]))
    players = draw(st.integers(2, 4))
    teams = players == 4 and draw(st.booleans())
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["unit"] = "fives"
    if draw(st.booleans()):
        # A low target so that matches end, in mid-hand or at a hand end, within a few hands.
        options["target"] = draw(st.integers(5, 60)) * (1 if options.get("unit") else 5)
    if draw(st.booleans()):
        options["exact_target"] = True
    options["keep_in_stock"] = draw(st.sampled_from([0, 0, 1, 2]))
    options["hand_end"] = draw(st.sampled_from(["winner_scores", "losers_subtract"]))
    seed = draw(st.integers(0, 2**32 - 1))
    games = draw(st.integers(1, 4))
    return simulate(game, seed=seed, players=players, games=games, teams=teams, options=options)


@settings(max_examples=80, deadline=None)
@given(matches())
def test_tiles_are_conserved(sim: Simulation) -> None:
    assert_tiles_conserved(sim.record, replay(sim.record), double_set(6), may_draw=True)


@settings(max_examples=120, deadline=None)
@given(matches("muggins"))
def test_no_muggins_placement_scores_more_than_35(sim: Simulation) -> None:
    report = replay(sim.record)
    unit = 5 if sim.record["variant"].get("unit") == "fives" else 1
    for game in report["games"]:
        for entry in game["moves"]:
            if "tile" in entry:
                assert entry["points"] * unit <= 35
                assert entry["count"] <= 36  # 6-6, 5-5, 4-4 and a 6 ending the four arms


@settings(max_examples=100, deadline=None)
@given(matches())
def test_replay_reproduces_the_simulators_scores(sim: Simulation) -> None:
    report = replay(sim.record)
    assert_replay_matches_simulation(sim, report)
    totals = {p: sum(g.finals[p] for g in sim.games) for p in sim.record["seats"]}
    assert {p: r["total"] for p, r in report["session"]["players"].items()} == totals


@settings(max_examples=60, deadline=None)
@given(matches())
def test_points_are_the_count_when_a_multiple_of_five(sim: Simulation) -> None:
    report = replay(sim.record)
    variant = sim.record["variant"]
    unit = 5 if variant.get("unit") == "fives" else 1
    for game in report["games"]:
        for entry in game["moves"]:
            if "tile" not in entry:
                continue
            count = entry["count"]
            if count % 5 or count == 0:
                assert entry["points"] == 0
            elif entry.get("over_target"):
                assert variant.get("exact_target") is True
                assert entry["points"] == 0
            else:
                assert entry["points"] * unit == count


@settings(max_examples=60, deadline=None)
@given(matches())
def test_a_match_ends_at_the_target_and_nothing_follows(sim: Simulation) -> None:
    report = replay(sim.record)
    target = report["session"]["target"]
    over = [i for i, g in enumerate(report["games"]) if g.get("match_over")]
    sides = report["session"]["sides"]
    if over:
        assert over == [len(report["games"]) - 1]
        best = max(side["total"] for side in sides)
        assert best >= target
        if sim.record["variant"].get("exact_target"):
            assert best == target
    else:
        assert all(side["total"] < target for side in sides)


def test_five_up_count_of_40_is_reachable() -> None:
    # RULES.md 4.3: 0-0 spins four arms ending 6-6, 5-5, 4-4 and 3-3; in Five Up the 3-3
    # spins too, and its side and two cross ends carry 5, 4 and 1: 12 + 10 + 8 + 10 = 40.
    tiles = ["0-0", "6-0", "5-0", "4-0", "3-0", "6-6", "5-5", "4-4", "3-3", "5-3", "4-3", "3-1"]
    on = [None, "0-0", "0-0", "0-0", "0-0", "6-0", "5-0", "4-0", "3-0", "3-3", "3-3", "3-3"]
    facets = [None, "end", "end", "cross", "cross", None, None, None, None, "end", "cross", "cross"]
    moves = []
    for i, (tile, base, facet) in enumerate(zip(tiles, on, facets, strict=True)):
        move: dict[str, Any] = {"player": "AB"[i % 2], "tile": tile}
        if base is not None:
            move["on"] = base
        if facet is not None:
            move["facet"] = facet
        moves.append(move)
    hands = {"A": [*tiles[0::2], "1-1"], "B": [*tiles[1::2], "2-2"]}
    record = {"variant": {"game": "fiveup"}, "seats": ["A", "B"], "hands": hands, "moves": moves}
    entries = replay(record, partial=True)["games"][0]["moves"]
    assert [m["count"] for m in entries] == [0, 6, 11, 15, 18, 24, 29, 33, 36, 35, 39, 40]
    assert [m["points"] for m in entries][-3:] == [35, 0, 40]
