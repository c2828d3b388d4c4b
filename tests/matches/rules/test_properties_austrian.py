"""Hypothesis properties of the Austrian, Buki and Pulle replays, over simulated sessions:
tiles are conserved, the replay reproduces the simulator, and money ledgers sum to zero."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules import replay
from matches.rules.simulate import Simulation, simulate
from matches.rules.tiles import austrian_set

from .properties import assert_replay_matches_simulation, assert_tiles_conserved


@st.composite
def austrian_sessions(draw: st.DrawFn) -> Simulation:
    mode = draw(st.sampled_from(["draw", "block"]))
    players = draw(st.sampled_from([2, 3] if mode == "draw" else [2, 3, 4]))
    options: dict[str, Any] = {"mode": mode}
    if mode == "draw" and draw(st.booleans()):
        options["max_draws"] = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    return simulate(
        "austrian", seed=seed, players=players, games=draw(st.integers(1, 4)), options=options
    )


@st.composite
def money_sessions(draw: st.DrawFn, game: str) -> Simulation:
    seed = draw(st.integers(0, 2**32 - 1))
    # Pulle needs a dozen games or so before players go out and the pool is taken.
    games = draw(st.integers(1, 6 if game == "buki" else 20))
    return simulate(game, seed=seed, players=4, games=games, options={})


any_session = st.one_of(austrian_sessions(), money_sessions("buki"), money_sessions("pulle"))


@settings(max_examples=100, deadline=None)
@given(any_session)
def test_tiles_are_conserved(sim: Simulation) -> None:
    assert_tiles_conserved(
        sim.record,
        replay(sim.record),
        austrian_set(),
        may_draw=sim.record["variant"].get("mode") == "draw",
    )


@settings(max_examples=100, deadline=None)
@given(any_session)
def test_replay_reproduces_the_simulator(sim: Simulation) -> None:
    report = replay(sim.record)
    assert_replay_matches_simulation(sim, report)
    if sim.money is not None:
        ledger = {p: Decimal(r["money"]) for p, r in report["session"]["players"].items()}
        for name, row in report["session"].get("spectators", {}).items():
            ledger[name] = Decimal(row["money"])
        assert {k: v for k, v in ledger.items() if v or k in sim.money} == sim.money


@settings(max_examples=100, deadline=None)
@given(money_sessions("buki"))
def test_buki_ledger_sums_to_zero(sim: Simulation) -> None:
    session = replay(sim.record)["session"]
    held = [Decimal(r["money"]) for r in session["players"].values()]
    held += [Decimal(r["money"]) for r in session["spectators"].values()]
    assert sum(held) == Decimal(0)
    assert Decimal(session["pool"]) == 0


@settings(max_examples=100, deadline=None)
@given(money_sessions("pulle"))
def test_pulle_ledger_sums_to_zero_with_the_pool(sim: Simulation) -> None:
    report = replay(sim.record)
    session = report["session"]
    held = sum(Decimal(r["money"]) for r in session["players"].values())
    assert held + Decimal(session["pool"]) == Decimal(0)
    for game in report["games"]:
        assert sum(Decimal(v) for v in game["ledger"].values()) <= 0 or game["pulle"].get(
            "pool_taken_by"
        )


@settings(max_examples=100, deadline=None)
@given(money_sessions("pulle"))
def test_pulle_players_still_in_are_at_most_100_and_the_out_stay_out(sim: Simulation) -> None:
    report = replay(sim.record)
    still_in = set(sim.record["seats"])
    for game in report["games"]:
        state = game["pulle"]
        alive = set(state["alive"])
        assert alive <= still_in
        assert all(state["scores"][p] <= 100 for p in alive)
        assert set(state["eliminated"]) == still_in - alive
        assert alive
        still_in = alive
    taken = [g["pulle"]["pool_taken_by"] for g in report["games"] if "pool_taken_by" in g["pulle"]]
    assert taken == report["session"]["winners"]
    assert len(taken) <= 1
    if taken:
        assert report["games"][-1]["pulle"]["alive"] == taken
        assert Decimal(report["session"]["pool"]) == 0
