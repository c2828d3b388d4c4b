"""The shared body of ``import_clubs`` and ``import_players`` (SPEC.md 5.3).

Each prints ``created N, updated M, unchanged U, rejected K``, writes each rejected line's
number and reason to stderr, and exits 1 if any line was rejected (valid lines are stored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from matches.registry_import import BadFile, ImportSummary


class RegistryImportCommand(BaseCommand):
    importer: Callable[[TextIO], ImportSummary]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="CSV file, UTF-8")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with open(options["file"], encoding="utf-8-sig", newline="") as stream:
                summary = type(self).importer(stream)
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
            n = len(summary.rejected)
            raise CommandError(
                ngettext("%(n)d line rejected", "%(n)d lines rejected", n) % {"n": n}, returncode=1
            )
