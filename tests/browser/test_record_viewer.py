"""A visitor tries the record viewer's examples and pastes an illegal record."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from matches.rules.engine import replay
from matches.rules.simulate import simulate
from matches.views.records import EXAMPLE_LABELS, EXAMPLES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def drawn_tiles(page: Any) -> list[Counter[str]]:
    return [
        Counter(svg.locator("g.tile").evaluate_all("gs => gs.map(g => g.dataset.tile)"))
        for svg in page.locator("svg.layout").all()
    ]


def test_the_examples_draw_every_placed_tile(page: Any) -> None:
    page.goto("/records/viewer/")
    for game in EXAMPLES:
        page.get_by_role("button", name=str(EXAMPLE_LABELS[game]), exact=True).click()
        page.wait_for_selector("svg.layout g.tile")
        record = simulate(game, seed=1, **EXAMPLES[game]).record
        placed = [
            Counter(m["tile"] for m in g["moves"] if "tile" in m) for g in replay(record)["games"]
        ]
        assert drawn_tiles(page) == placed, game
        # Each tile's label a-b is visible text in the drawing.
        labels = page.locator("svg.layout text.label").all_text_contents()
        assert Counter(labels) == sum(placed, Counter())
        assert page.get_by_role("heading", name="Settlement of the session").is_visible()
    # "Another deal" draws another simulated game.
    page.get_by_role("link", name="Another deal").click()
    assert "seed=2" in page.url
    assert page.locator("svg.layout g.tile").count() > 0


def test_a_pasted_illegal_record_is_refused_with_the_engines_reason(page: Any) -> None:
    record = simulate("fido", seed=3, players=3, options={"set": 6}).record
    record["moves"][1]["facet"] = "end"  # the second tile must go on a cross side
    page.goto("/records/viewer/")
    page.get_by_label("Paste a game record (JSON)").fill(json.dumps(record))
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Replay").click()
    assert answer.value.status == 400
    alert = page.get_by_role("alert")
    assert "The record was refused." in alert.inner_text()
    assert "games[0].moves[1]" in alert.inner_text()
    assert "second-not-on-cross" in alert.inner_text()
    assert page.locator("svg.layout").count() == 0
    # Fixed in the text box and replayed: drawn.
    record["moves"][1]["facet"] = "cross"
    page.get_by_label("Paste a game record (JSON)").fill(json.dumps(record))
    page.get_by_role("button", name="Replay").click()
    page.wait_for_selector("svg.layout g.tile")
    assert drawn_tiles(page) == [
        Counter(m["tile"] for m in replay(record)["games"][0]["moves"] if "tile" in m)
    ]
