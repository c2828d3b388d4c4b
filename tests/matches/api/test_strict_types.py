"""Strict types at the API (issue 16 item 10): JSON numbers are numbers, a filter's choices
are its choices. The text interfaces (CSV, web forms) still take what was typed."""

from __future__ import annotations

from typing import Any

import pytest

from matches.validation import parse_match, typed_number
from tests.matches.api.conftest import counts, errors_at

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("score", ["57", " 57 ", "-4"])
def test_a_score_sent_as_a_string_is_a_400_naming_the_field_and_the_type(
    as_secretary: Any, table: Any, score: str
) -> None:
    payload = table()
    payload["sides"][0]["score"] = score
    before = counts()
    response = as_secretary.post("/api/matches", payload, format="json")
    assert response.status_code == 400
    assert errors_at(response) == ["sides[0].score"]
    message = response.json()["errors"][0]["message"]
    assert message == (
        f"score must be a number, not the text “{score.strip()}” (send it without quotes)"
    )
    assert counts() == before


def test_a_score_sent_as_a_number_is_accepted(as_secretary: Any, table: Any) -> None:
    response = as_secretary.post("/api/matches", table(), format="json")
    assert response.status_code == 201, response.content


def test_what_a_text_interface_typed_is_converted_first() -> None:
    assert typed_number(" 57 ") == 57
    assert typed_number("-4") == -4
    assert typed_number("57a") == "57a"
    assert typed_number("1234567890") == "1234567890"  # more digits than a score has


@pytest.mark.parametrize("value", ["beach", "LEAGUE", "league "])
def test_an_unknown_category_in_a_filter_is_a_400(as_secretary: Any, value: str) -> None:
    response = as_secretary.get("/api/matches", {"category": value})
    assert response.status_code == 400, response.content
    assert errors_at(response) == ["category"]


def test_parse_match_keeps_its_message_for_text_that_is_no_number() -> None:
    _, problems = parse_match({"sides": [{"players": ["P-1"], "score": "x"}]})
    assert "score must be a whole number, not “x”" in [p.message for p in problems]
