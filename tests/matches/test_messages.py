"""Messages in the user's words (issue 15, item 2): a wrong type names the type expected and
the type given, no message repeats an internal path, and the rules engine's refusals are
worded in the active language, with where they happened."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.utils import translation

from matches.records_check import check_records
from matches.rules import RecordError, replay
from matches.validation import MatchInput, SideInput, parse_match

# An internal path inside a message: sides[0], players[1], m4.sides..., records[0].games
_INTERNAL = re.compile(r"\w\[\d+\]|\bm\d+\.")

GOOD: dict[str, Any] = {
    "id": "CLUB-7/2026-03-14/t1",
    "date": "2026-03-14",
    "club": "CLUB-7",
    "discipline": "fido",
    "category": "club",
    "sides": [{"players": ["P-000001"], "score": 57}, {"players": ["P-000002"], "score": 31}],
}


def problems_of(**changes: Any) -> dict[str, str]:
    match, problems = parse_match({**GOOD, **changes}, prefix="m4")
    assert match is None
    return {p.path: p.message for p in problems}


def test_an_id_given_as_a_number_says_it_must_be_text() -> None:
    found = problems_of(id=5)
    assert found == {"m4.id": "the match id must be text (unique per club), not a number"}


def test_a_missing_id_is_required() -> None:
    found = problems_of(id=None)
    assert found["m4.id"] == "the match id is required (text, unique per club)"


def test_players_given_as_text_say_a_list_is_expected() -> None:
    sides = [{"players": "P-000001", "score": 57}, {"players": ["P-000002"], "score": 31}]
    found = problems_of(sides=sides)
    assert found == {
        "m4.sides[0].players": (
            'players must be a list of federation ids such as ["P-000001"], not text'
        )
    }


@pytest.mark.parametrize(
    ("changes", "path", "message"),
    [
        ({"date": 20260314}, "m4.date", "the date must be text such as 2026-03-14, not a number"),
        (
            {"club": ["CLUB-7"]},
            "m4.club",
            "the club must be its id as text (e.g. CLUB-7), not a list",
        ),
        (
            {"sides": {"a": 1}},
            "m4.sides",
            "sides must be a list of sides {players, score}, not an object",
        ),
        (
            {"discipline": 3},
            "m4.discipline",
            "unknown discipline “a number”; choose one of fido, allfives, austrian",
        ),
    ],
)
def test_wrong_types_name_the_expected_type(
    changes: dict[str, Any], path: str, message: str
) -> None:
    assert problems_of(**changes)[path] == message


def test_a_score_of_the_wrong_type_names_the_type() -> None:
    sides = [{"players": ["P-000001"], "score": [57]}, {"players": ["P-000002"], "score": True}]
    found = problems_of(sides=sides)
    assert found["m4.sides[0].score"] == "score must be a whole number, not a list"
    assert found["m4.sides[1].score"] == "score must be a whole number, not true/false"


def test_no_message_repeats_an_internal_path() -> None:
    sides = [
        {"players": ["P-000001", "P-000002"], "score": 57},
        {"players": ["P-000002"]},
        {"players": [], "score": 1},
        {"players": [7], "score": 1},
        "side",
    ]
    found = problems_of(sides=sides)
    assert len(found) >= 5
    for path, message in found.items():
        assert path.startswith("m4.")
        assert not _INTERNAL.search(message), message
    assert found["m4.sides[1].players[0]"] == (
        "player P-000002 appears twice in this match (also on side 1)"
    )
    assert found["m4.sides[1].score"] == (
        "side 2 has no score; give its final score as a whole number"
    )


def test_messages_are_german_in_german() -> None:
    with translation.override("de"):
        found = problems_of(id=5)
    assert found == {"m4.id": "die Partie-ID muss Text sein (eindeutig je Verein), nicht eine Zahl"}


RECORD: dict[str, Any] = {
    "variant": {"game": "fido", "set": 6},
    "seats": ["P-000001", "P-000002"],
    "games": [
        {
            "hands": {"P-000001": ["6-6"], "P-000002": ["5-5"]},
            "moves": [{"player": "P-000002", "tile": "5-5"}],
        }
    ],
}


def test_the_rules_engine_speaks_the_active_language() -> None:
    with pytest.raises(RecordError) as english:
        replay({**RECORD, "variant": {"game": "chess"}})
    with translation.override("de"), pytest.raises(RecordError) as german:
        replay({**RECORD, "variant": {"game": "chess"}})
    assert english.value.message.startswith("unknown game 'chess'; known: ")
    assert german.value.message.startswith("unbekanntes Spiel 'chess'; bekannt sind: ")
    assert german.value.path == english.value.path == "variant.game"


def test_a_refused_record_says_which_record_game_move_and_player() -> None:
    match = MatchInput(
        external_id="t1",
        date_played=dt.date(2026, 3, 14),
        club_id="CLUB-7",
        discipline="fido",
        category="club",
        sides=[SideInput(["P-000001"], 0), SideInput(["P-000002"], 0)],
        records=[RECORD],
    )
    [problem] = check_records(match, prefix="m4")
    assert problem.path.startswith("m4.records[0].games[0].moves[0]")
    assert problem.message.startswith("game record 1, game 1, move 1 (P-000002): ")
    with translation.override("de"):
        [german] = check_records(match, prefix="m4")
    assert german.message.startswith("Spielprotokoll 1, Spiel 1, Zug 1 (P-000002): ")
    assert "eröffnet" in german.message or "muss" in german.message, german.message


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            {
                "m4.id": "the match id must not start with '=' (a spreadsheet formula)",
                "m4.discipline": "unknown discipline “golf”; choose one of "
                "fido, allfives, austrian",
                "m4.sides[0].players[0]": "player id must not start with '+' "
                "(a spreadsheet formula)",
            },
        ),
        (
            "de",
            {
                "m4.id": "die Partie-ID darf nicht mit '=' beginnen (eine Tabellenformel)",
                "m4.discipline": "unbekannte Disziplin „golf“; wählen Sie eine von "
                "fido, allfives, austrian",
                "m4.sides[0].players[0]": "Spieler-ID darf nicht mit '+' beginnen "
                "(eine Tabellenformel)",
            },
        ),
    ],
)
def test_the_labels_and_choices_translated_on_refusal_are_in_the_active_language(
    language: str, expected: dict[str, str]
) -> None:
    """The labels and the choice refusals are translated when a refusal is written (not
    per match parsed): in the language active then."""
    sides = [{"players": ["+P-1"], "score": 57}, {"players": ["P-000002"], "score": 31}]
    with translation.override(language):
        found = problems_of(id="=1", discipline="golf", sides=sides)
    assert found == expected
