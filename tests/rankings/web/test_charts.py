"""rankings.charts: the SVG line chart is well-formed, accessible and draws every value."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from rankings.charts import Series, line_chart, nice_ticks

from .conftest import parse_xml

SVG = "{http://www.w3.org/2000/svg}"


def chart(values, labels=None, **kwargs) -> ET.Element:
    labels = labels or [f"2026-{i + 1:02d}" for i in range(len(values))]
    options = {"title": "FLADUB history", "desc": "Summary", "chart_id": "c1", **kwargs}
    return parse_xml(line_chart(labels=labels, series=[Series("FLADUB", values)], **options))


def points_of(svg: ET.Element) -> list[tuple[float, float]]:
    return [(float(c.get("cx")), float(c.get("cy"))) for c in svg.iter(f"{SVG}circle")]


def test_a_point_per_value_and_one_line_through_them() -> None:
    svg = chart([10.0, 9.17, 8.33, 7.5])
    assert len(points_of(svg)) == 4
    lines = list(svg.iter(f"{SVG}polyline"))
    assert len(lines) == 1
    assert len(lines[0].get("points").split()) == 4


def test_accessible_name_description_and_tooltips() -> None:
    svg = chart([1.0, 2.0], title="Rank <history> & more", desc="best 1")
    assert svg.get("role") == "img"
    assert svg.get("aria-labelledby") == "c1-title c1-desc"
    assert svg.find(f"{SVG}title").text == "Rank <history> & more"
    assert svg.find(f"{SVG}title").get("id") == "c1-title"
    assert svg.find(f"{SVG}desc").text == "best 1"
    tips = [c.find(f"{SVG}title").text for c in svg.iter(f"{SVG}circle")]
    assert tips == ["2026-01: 1.00", "2026-02: 2.00"]


def test_a_missing_value_breaks_the_line() -> None:
    svg = chart([5.0, 6.0, None, 7.0, 8.0])
    assert len(points_of(svg)) == 4
    assert [len(p.get("points").split()) for p in svg.iter(f"{SVG}polyline")] == [2, 2]


def test_larger_values_are_higher_unless_inverted() -> None:
    (x1, y1), (x2, y2) = points_of(chart([10.0, 20.0]))
    assert x1 < x2 and y2 < y1
    (_, r1), (_, r2) = points_of(chart([10, 20], invert=True, integer=True))
    assert r1 < r2  # rank 10 is above rank 20


def test_rank_axis_starts_at_one_and_every_point_lies_inside_the_plot() -> None:
    svg = chart([1, 3, 2], invert=True, integer=True)
    labels = [t.text for t in svg.iter(f"{SVG}text")]
    assert "1" in labels and "0" not in labels
    width, height = float(svg.get("width")), float(svg.get("height"))
    for x, y in points_of(svg):
        assert 0 < x < width and 0 < y < height


def test_empty_chart_still_renders() -> None:
    svg = chart([None, None], no_data="Not listed")
    assert points_of(svg) == []
    assert "Not listed" in [t.text for t in svg.iter(f"{SVG}text")]


def test_single_point_is_centred() -> None:
    svg = chart([42.0])
    [(x, _)] = points_of(svg)
    assert x == pytest.approx(float(svg.get("width")) / 2, abs=20)


def test_x_labels_are_thinned_but_keep_the_last_month() -> None:
    labels = [f"M{i}" for i in range(60)]
    svg = chart([float(i) for i in range(60)], labels=labels)
    shown = [t.text for t in svg.iter(f"{SVG}text") if t.text and t.text.startswith("M")]
    assert shown[-1] == "M59"
    assert 4 <= len(shown) < 20
    assert len(points_of(svg)) == 60


def test_values_and_labels_must_match() -> None:
    with pytest.raises(ValueError, match="values"):
        line_chart(labels=["a"], series=[Series("x", [1, 2])], title="", desc="", chart_id="c")


def test_output_is_deterministic() -> None:
    options = {"title": "t", "desc": "d", "chart_id": "c"}
    a = line_chart(labels=["a", "b"], series=[Series("x", [1, 2])], **options)
    b = line_chart(labels=["a", "b"], series=[Series("x", [1, 2])], **options)
    assert a == b


@pytest.mark.parametrize(
    ("low", "high", "integer", "expected"),
    [
        (0, 431.07, False, [0, 100, 200, 300, 400, 500]),
        (9.17, 10.0, False, [9.0, 9.2, 9.4, 9.6, 9.8, 10.0]),
        (3, 3, True, [2, 3, 4]),
        (1, 4, True, [1, 2, 3, 4]),
    ],
)
def test_nice_ticks(low, high, integer, expected) -> None:
    ticks = nice_ticks(low, high, integer=integer)
    assert ticks == pytest.approx(expected)
    assert ticks[0] <= low and ticks[-1] >= high


def test_docstring_examples() -> None:
    import doctest

    import rankings.charts

    assert doctest.testmod(rankings.charts).failed == 0
