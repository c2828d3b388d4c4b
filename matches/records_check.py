"""Check a match's optional game records against its submitted scores (RULES.md section 2).

A record's ``seats`` are the federation ids of the match's players. Each record is
replayed with the rules engine; the first illegal step, a seat that is not a player of the
match, a game of another discipline, or a side score that differs from what the records
give, is a :class:`~matches.validation.Problem` naming ``records[i]...`` or ``sides[i].score``.

What a side's score must equal: ``fido`` and ``allfives``: the sum of its members' session
totals over all records; ``austrian``: 1 for a side holding a session winner, else 0 (a
side scored by pips is written as the negative of its pips, which must then equal minus the
members' pips left in the last game).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils.translation import gettext as _

from matches.rules.engine import replay
from matches.rules.errors import RuleError

from .validation import MatchInput, Problem

GAMES_OF_DISCIPLINE = {
    "fido": {"fido"},
    "allfives": {"muggins", "fiveup"},
    "austrian": {"austrian", "buki", "pulle"},
}


def _prefixed(prefix: str, path: str) -> str:
    return f"{prefix}.{path}" if prefix else path


def check_records(match: MatchInput, *, prefix: str = "") -> list[Problem]:
    if match.records is None:
        return []
    records: list[Any] = match.records if isinstance(match.records, list) else [match.records]
    if not records:
        return []
    players = [pid for side in match.sides for pid in side.player_ids]
    problems: list[Problem] = []
    totals: dict[str, int] = defaultdict(int)
    winners: set[str] = set()
    pips_last: dict[str, int] = {}
    for i, record in enumerate(records):
        path = _prefixed(prefix, f"records[{i}]")
        game = (record.get("variant") or {}).get("game") if isinstance(record, dict) else None
        if game not in GAMES_OF_DISCIPLINE[match.discipline]:
            problems.append(
                Problem(
                    f"{path}.variant.game",
                    _("a %(game)r record in a %(discipline)s match")
                    % {"game": game, "discipline": match.discipline},
                )
            )
            continue
        try:
            report = replay(record)
        except RuleError as exc:
            problems.append(Problem(f"{path}.{exc.path}" if exc.path else path, exc.message))
            continue
        seats = set(report["session"]["players"])
        if seats != set(players):
            problems.append(
                Problem(
                    f"{path}.seats",
                    _("the seats must be the match's players (%(players)s), not %(seats)s")
                    % {"players": ", ".join(sorted(players)), "seats": ", ".join(sorted(seats))},
                )
            )
            continue
        for pid, row in report["session"]["players"].items():
            totals[pid] += int(row["total"])
        winners.update(report["session"]["winners"])
        if report["games"]:
            for pid, row in report["games"][-1]["players"].items():
                pips_last[pid] = int(row["pips_left"])
    if problems:
        return problems
    for i, side in enumerate(match.sides):
        if match.discipline == "austrian":
            if side.score in (0, 1):
                expected = 1 if winners & set(side.player_ids) else 0
            else:
                expected = -sum(pips_last.get(pid, 0) for pid in side.player_ids)
        else:
            expected = sum(totals[pid] for pid in side.player_ids)
        if side.score != expected:
            problems.append(
                Problem(
                    _prefixed(prefix, f"sides[{i}].score"),
                    _("the records give this side %(expected)d, not %(score)d")
                    % {"expected": expected, "score": side.score},
                )
            )
    return problems
