"""``manage.py import_players FILE.csv``: upsert players (SPEC.md 5.3).

Prints ``created N, updated M, unchanged U, rejected K``; each rejected line's number and
reason go to stderr; exits 1 if any line was rejected (the valid lines are stored).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.registry_import import BadFile, import_players


class Command(BaseCommand):
    help = "Upsert players from a CSV file (header: see SPEC.md 5.3)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="CSV file, UTF-8")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with open(options["file"], encoding="utf-8-sig", newline="") as stream:
                summary = import_players(stream)
        except OSError as exc:
            raise CommandError(f"cannot read {options['file']}: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{options['file']} is not UTF-8 text") from exc
        except BadFile as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(summary.line())
        for line, reason in summary.rejected:
            self.stderr.write(f"line {line}: {reason}")
        if summary.rejected:
            raise CommandError(f"{len(summary.rejected)} line(s) rejected", returncode=1)
