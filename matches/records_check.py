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
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from matches.rules.engine import replay
from matches.rules.errors import IllegalMove, RuleError

from .validation import MatchInput, Problem, SideInput

GAMES_OF_DISCIPLINE = {
    "fido": {"fido"},
    "allfives": {"muggins", "fiveup"},
    "austrian": {"austrian", "buki", "pulle"},
}


def _prefixed(prefix: str, path: str) -> str:
    return f"{prefix}.{path}" if prefix else path


@dataclass(slots=True)
class _Tally:
    """What the replayed records say about the players, summed over the records."""

    totals: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    winners: set[str] = field(default_factory=set)
    pips_last: dict[str, int] = field(default_factory=dict)  # after the last game

    def add(self, report: dict[str, Any]) -> None:
        for pid, row in report["session"]["players"].items():
            self.totals[pid] += int(row["total"])
        self.winners.update(report["session"]["winners"])
        if report["games"]:
            for pid, row in report["games"][-1]["players"].items():
                self.pips_last[pid] = int(row["pips_left"])

    def expected_score(self, discipline: str, side: SideInput) -> int:
        """The side's score as the records give it."""
        if discipline != "austrian":
            return sum(self.totals[pid] for pid in side.player_ids)
        if side.score in (0, 1):
            return 1 if self.winners & set(side.player_ids) else 0
        return -sum(self.pips_last.get(pid, 0) for pid in side.player_ids)


def check_records(match: MatchInput, *, prefix: str = "") -> list[Problem]:
    if match.records is None:
        return []
    records: list[Any] = match.records if isinstance(match.records, list) else [match.records]
    if not records:
        return []
    players = {pid for side in match.sides for pid in side.player_ids}
    problems: list[Problem] = []
    tally = _Tally()
    for i, record in enumerate(records):
        path = _prefixed(prefix, f"records[{i}]")
        report = _replayed(record, path, match.discipline, players, problems)
        if report is not None:
            tally.add(report)
    if problems:
        return problems
    for i, side in enumerate(match.sides):
        expected = tally.expected_score(match.discipline, side)
        if side.score != expected:
            problems.append(
                Problem(
                    _prefixed(prefix, f"sides[{i}].score"),
                    _("the game records give side %(n)d a score of %(expected)d, not %(score)d")
                    % {"n": i + 1, "expected": expected, "score": side.score},
                )
            )
    return problems


def _replayed(
    record: Any, path: str, discipline: str, players: set[str], problems: list[Problem]
) -> dict[str, Any] | None:
    """The report of one record of the match, or None with its problem added: a game of
    another discipline, a record the rules refuse, seats that are not the match's players."""
    variant = record.get("variant") if isinstance(record, dict) else None
    game = variant.get("game") if isinstance(variant, dict) else None
    if game not in GAMES_OF_DISCIPLINE[discipline]:
        problems.append(
            Problem(
                f"{path}.variant.game",
                _(
                    "game record %(n)d is a record of %(game)s, which is not a game of "
                    "the %(discipline)s discipline (%(games)s)"
                )
                % {
                    "n": _record_number(path),
                    "game": game if isinstance(game, str) else _("no game"),
                    "discipline": discipline,
                    "games": ", ".join(sorted(GAMES_OF_DISCIPLINE[discipline])),
                },
            )
        )
        return None
    try:
        report = replay(record)
    except RuleError as exc:
        problems.append(
            Problem(f"{path}.{exc.path}" if exc.path else path, refusal_text(exc, path))
        )
        return None
    seats = set(report["session"]["players"])
    if seats != players:
        problems.append(
            Problem(
                f"{path}.seats",
                _(
                    "the seats of game record %(n)d must be the match's players "
                    "(%(players)s), not %(seats)s"
                )
                % {
                    "n": _record_number(path),
                    "players": ", ".join(sorted(players)),
                    "seats": ", ".join(sorted(seats)),
                },
            )
        )
        return None
    return report


def _record_number(path: str) -> int:
    """The 1-based number of the record a ``...records[i]`` path names."""
    return int(path.rsplit("[", 1)[1].rstrip("]")) + 1


def refusal_text(exc: RuleError, path: str) -> str:
    """The rules engine's refusal in the user's words: which record, game, move and player,
    then what is wrong (the engine's message, in the active language)."""
    number = _record_number(path)
    if isinstance(exc, IllegalMove):
        where = _("game record %(n)d, game %(game)d, move %(move)d") % {
            "n": number,
            "game": exc.game + 1,
            "move": exc.move,
        }
        if exc.player:
            where = _("%(where)s (%(player)s)") % {"where": where, "player": exc.player}
    else:
        where = _("game record %(n)d") % {"n": number}
    return _("%(where)s: %(message)s") % {"where": where, "message": exc.message}
