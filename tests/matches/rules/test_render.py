"""The layout renderer (``matches.rules.render``): every placed tile drawn exactly once,
nothing overlapping, connectors crossing no tile, for simulated games of every variant."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules import render
from matches.rules.engine import replay_record
from matches.rules.record import load
from matches.rules.registry import REGISTRY
from matches.rules.simulate import simulate

# (game, players, simulator options): every registered variant, FIDO on small and big sets.
TABLES = [
    ("fido", 3, {"set": 6}),
    ("fido", 4, {"set": 12}),
    ("fido", 6, {"set": 18}),
    ("fido", 9, {"set": 21}),
    ("muggins", 2, None),
    ("muggins", 4, None),
    ("fiveup", 3, None),
    ("fiveup", 4, None),
    ("austrian", 2, {"mode": "draw"}),
    ("austrian", 4, {"mode": "block"}),
    ("buki", 4, None),
    ("pulle", 4, None),
]


def test_every_registered_variant_is_covered() -> None:
    assert {game for game, _, _ in TABLES} == set(REGISTRY)


def _overlap(a: render.DrawnTile, b: render.DrawnTile) -> bool:
    return (
        a.x < b.x + b.width
        and b.x < a.x + a.width
        and a.y < b.y + b.height
        and b.y < a.y + a.height
    )


def check_layout(record: dict) -> None:
    loaded = load(record)
    report = replay_record(loaded)
    top = render.max_value(loaded.variant.tiles)
    for game, game_report in zip(loaded.games, report.games, strict=True):
        placed = Counter(m["tile"] for m in game_report.moves if "tile" in m)
        drawing = render.layout(game)
        # Every placed tile exactly once, nothing else.
        assert Counter(drawing.labels()) == placed
        tiles = drawing.tiles
        for i, a in enumerate(tiles):
            assert a.x >= 0 and a.y >= 0
            assert a.x + a.width <= drawing.width and a.y + a.height <= drawing.height
            for b in tiles[i + 1 :]:
                assert not _overlap(a, b), (a.placed, b.placed)
        for c in drawing.connectors:
            lo, hi = sorted((c.x, c.x_to))
            for t in tiles:
                crosses_down = (
                    t.x < c.x < t.x + t.width and t.y < c.y_to - 1 and c.y_from + 1 < t.y + t.height
                )
                crosses_along = (
                    t.y < c.y_to < t.y + t.height and t.x < hi - 1 and lo + 1 < t.x + t.width
                )
                assert not crosses_down and not crosses_along, (c, t.placed)
        # The SVG carries each tile once, labelled a-b.
        svg = render.svg(game, max_value=top)
        assert Counter(re.findall(r'data-tile="([0-9]+-[0-9]+)"', svg)) == placed
        assert Counter(re.findall(r'class="label"[^>]*>([0-9]+-[0-9]+)<', svg)) == placed
        assert svg.count('<g class="tile') == sum(placed.values())


@pytest.mark.parametrize(("game", "players", "options"), TABLES)
def test_simulated_games_of_every_variant(game: str, players: int, options: dict | None) -> None:
    for seed in range(12):
        sim = simulate(game, seed=seed, players=players, games=2, options=options)
        check_layout(sim.record)


@settings(max_examples=60, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1))
def test_any_seed(table: tuple, seed: int) -> None:
    game, players, options = table
    check_layout(simulate(game, seed=seed, players=players, games=1, options=options).record)


def test_fido_lead_double_has_its_cross_sides_as_branches() -> None:
    record = {
        "variant": {"game": "fido", "set": 18},
        "seats": ["A", "B", "C", "D"],
        "hands": {"A": ["18-18", "18-7"], "B": ["18-12"], "C": ["12-8"], "D": ["5-0"]},
        "moves": [
            {"player": "A", "tile": "18-18"},
            {"player": "B", "tile": "18-12", "on": "18-18", "facet": "cross"},
            {"player": "C", "tile": "12-8", "on": "18-12"},
        ],
    }
    loaded = load(record)
    drawing = render.layout(loaded.games[0])
    by_label = {t.placed.tile.__str__(): t for t in drawing.tiles}
    lead, arm, end = by_label["18-18"], by_label["18-12"], by_label["12-8"]
    assert lead.lead and lead.upright
    assert arm.y > lead.y and arm.x > lead.x  # the cross arm hangs below, to the right
    assert end.y == arm.y and end.x > arm.x  # and continues along its row
    assert (arm.first, arm.second) == (18, 12)  # the joined 18 faces the lead
    assert [c.cross for c in drawing.connectors] == [True]
    svg = render.svg(loaded.games[0], max_value=18)
    assert ">18<" in svg and "<circle" not in svg  # big sets show numbers


def test_austrian_is_one_row_with_pips() -> None:
    sim = simulate("austrian", seed=5, players=3, games=1, options={"mode": "block"})
    loaded = load(sim.record)
    drawing = render.layout(loaded.games[0])
    assert len({t.y for t in drawing.tiles}) == 1 and not drawing.connectors
    assert "<circle" in render.svg(loaded.games[0], max_value=8)


def test_muggins_spinner_arms_start_rows_of_their_own() -> None:
    record = {
        "variant": {"game": "muggins"},
        "seats": ["A", "B"],
        "hands": {
            "A": ["5-5", "5-1", "5-2", "0-0", "1-1", "2-2", "3-3", "4-4", "6-6"],
            "B": ["5-0", "5-3", "6-0", "6-1", "6-2", "6-3", "6-4", "6-5", "4-0"],
        },
        "moves": [
            {"player": "A", "tile": "5-5"},
            {"player": "B", "tile": "5-0", "on": "5-5"},
            {"player": "A", "tile": "5-1", "on": "5-5"},
            {"player": "B", "tile": "5-3", "on": "5-5", "facet": "cross"},
            {"player": "A", "tile": "5-2", "on": "5-5", "facet": "cross"},
        ],
    }
    loaded = load(record)
    replay_record(loaded, partial=True)
    drawing = render.layout(loaded.games[0])
    rows = Counter(t.y + t.height / 2 for t in drawing.tiles)
    assert sorted(rows.values()) == [1, 1, 3]  # the line of three, two cross arms
    assert [c.cross for c in drawing.connectors] == [True, True]


def test_scoresheet_games_draw_nothing_and_names_are_escaped() -> None:
    record = {
        "variant": {"game": "fido", "set": 6, "hand_size": 2},
        "seats": ["<b>A</b>", "B&C"],
        "games": [
            {
                "result": {
                    "domino": "B&C",
                    "pips": {"<b>A</b>": 3, "B&C": 0},
                    "points": {"<b>A</b>": 0, "B&C": 2},
                }
            },
            {
                "hands": {"<b>A</b>": ["6-6", "1-0"], "B&C": ["6-3", "2-0"]},
                "moves": [
                    {"player": "<b>A</b>", "tile": "6-6"},
                    {"player": "B&C", "tile": "6-3", "on": "6-6", "facet": "cross"},
                ],
            },
        ],
    }
    loaded = load(record)
    assert render.layout(loaded.games[0]).tiles == []
    empty = render.svg(loaded.games[0], max_value=6)
    assert empty.startswith("<svg") and 'data-tiles="0"' in empty
    svg = render.svg(loaded.games[1], max_value=6, labelledby='x"y')
    assert "<b>" not in svg and "&lt;b&gt;A&lt;/b&gt;" in svg and "B&amp;C" in svg
    assert 'aria-labelledby="x&quot;y"' in svg
