"""The side-by-side comparison of a conflicting CSV match (matches/csv_conflicts.py)."""

from __future__ import annotations

from matches.csv_conflicts import MISSING, conflict_lines

STORED = {
    "date": "2026-03-14",
    "discipline": "fido",
    "category": "club",
    "sides": [{"players": ["P-000001"], "score": 57}, {"players": ["P-000002"], "score": 31}],
}


def test_each_field_and_side_is_compared_in_order_and_a_missing_side_is_shown_as_such() -> None:
    file = {
        **STORED,
        "category": "league",
        "sides": [*STORED["sides"], {"players": ["P-000003", "P-000004"], "score": -4}],
    }
    lines = conflict_lines(STORED, file, {"P-000001": "Ana Castro", "P-000003": "Rosa Vidal"})
    assert [(line.label, line.stored, line.file, line.differs) for line in lines] == [
        ("date", "2026-03-14", "2026-03-14", False),
        ("discipline", "fido", "fido", False),
        ("category", "club", "league", True),
        ("side 1: players", "P-000001 Ana Castro", "P-000001 Ana Castro", False),
        ("side 1: score", "57", "57", False),
        ("side 2: players", "P-000002", "P-000002", False),
        ("side 2: score", "31", "31", False),
        ("side 3: players", MISSING, "P-000003 Rosa Vidal + P-000004", True),
        ("side 3: score", MISSING, "-4", True),
    ]
