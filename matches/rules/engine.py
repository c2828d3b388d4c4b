"""Replay a game record: the one entry point of the rules engine.

In: the decoded JSON of a record (RULES.md section 2).
Out: the report of RULES.md section 6.1 as a JSON-ready dict.
Raises: ``RecordError`` if the JSON is not a record, ``IllegalMove`` at the first step
that breaks the rules. With ``partial=True`` a record that stops mid-game is reported
(``"end": "unfinished"``) instead of refused; by default it is refused, because the
engine never guesses a missing move and a federation checks only finished games.
"""

from __future__ import annotations

from typing import Any

from matches.rules.record import Record, load
from matches.rules.report import Report
from matches.rules.variants.base import Variant


def replay_record(record: Record[Variant], *, partial: bool = False) -> Report:
    """Replay an already loaded record and settle its session."""
    games = record.variant.replay_session(record, partial=partial)
    return Report(games, record.variant.settle(record, games))


def replay(data: Any, *, partial: bool = False) -> dict[str, Any]:
    """Validate, replay and settle ``data``; return the report's JSON form."""
    return replay_record(load(data), partial=partial).to_json()
