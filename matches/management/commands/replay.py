"""``manage.py replay FILE.json``: replay a game record and print its report.

In: a file holding one game record (RULES.md section 2), or ``-`` for standard input.
Out: the report (RULES.md 6.1) as JSON on stdout, exit status 0.
On a record the engine refuses, an unreadable file or malformed JSON: one line naming the
reason (and for an illegal move its path, move number and player) on stderr, exit status 1.
The command only reads and prints; it touches no database.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.rules import IllegalMove, RecordError, replay


def describe(error: RecordError | IllegalMove) -> str:
    """The one-line reason shown to the user."""
    if isinstance(error, IllegalMove):
        who = f", {error.player}" if error.player else ""
        return (
            f"illegal move at {error.path} (move {error.move}{who}): {error.message} [{error.rule}]"
        )
    if error.path:
        return f"invalid record at {error.path}: {error.message}"
    return f"invalid record: {error.message}"


class Command(BaseCommand):
    help = "Replay a game record (JSON) and print the report as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the record's JSON file, or - for standard input")
        parser.add_argument(
            "--partial",
            action="store_true",
            help="report a game the record leaves unfinished instead of refusing it",
        )
        parser.add_argument(
            "--indent", type=int, default=2, help="indentation of the output (default 2)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["file"]
        data = self._load(name)
        try:
            report = replay(data, partial=options["partial"])
        except (RecordError, IllegalMove) as error:
            raise CommandError(describe(error), returncode=1) from None
        self.stdout.write(json.dumps(report, indent=options["indent"], ensure_ascii=False))

    def _load(self, name: str) -> Any:
        try:
            text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise CommandError(f"cannot read {name}: {reason}", returncode=1) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                returncode=1,
            ) from None
        except RecursionError:
            raise CommandError(f"{name} is nested too deeply", returncode=1) from None
