"""``manage.py import_results FILE.jsonl [--as-of ISO8601]``: the admin's bulk import.

One match per line in the format of SPEC.md 5.3. Idempotent per id (a line whose id the
club already has with the same content is skipped); ``submitted_at`` is honoured; lines
without it use ``--as-of`` or the server clock. Prints
``imported N, skipped M (already present), rejected K``, writes each rejected line's number
and reason to stderr, and exits non-zero if any line was rejected. A rejected line stores
nothing; the other lines are stored.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from matches import clock
from matches.services import match_import
from matches.validation import InvalidSubmission

MAX_LINE_BYTES = 1_000_000


def _instant(text: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(f"--as-of is not an ISO 8601 instant: {text!r}") from exc
    if value.tzinfo is None:
        raise CommandError("--as-of needs a UTC offset, e.g. 2026-03-31T21:40:00+02:00")
    return value


class Command(BaseCommand):
    help = "Import match results from JSON Lines (one match per line)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON Lines file, UTF-8")
        parser.add_argument("--as-of", help="the clock for lines without submitted_at")

    def handle(self, *args: Any, **options: Any) -> None:
        now = _instant(options["as_of"]) if options.get("as_of") else clock.now()
        imported = skipped = 0
        rejected: list[tuple[int, str]] = []
        try:
            stream = open(options["file"], encoding="utf-8-sig")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot read {options['file']}: {exc.strerror}") from exc
        with stream:
            try:
                for number, line in enumerate(stream, start=1):
                    if not line.strip():
                        continue
                    reason = None
                    if len(line) > MAX_LINE_BYTES:
                        reason = f"line longer than {MAX_LINE_BYTES} bytes"
                    else:
                        try:
                            payload = json.loads(line)
                        except json.JSONDecodeError as exc:
                            reason = f"not valid JSON: {exc.msg} at column {exc.colno}"
                    if reason is None:
                        try:
                            outcome = match_import(payload=payload, now=now)
                        except InvalidSubmission as exc:
                            reason = "; ".join(
                                f"{p.path}: {p.message}" if p.path else p.message
                                for p in exc.problems
                            )
                        else:
                            if outcome.created:
                                imported += 1
                            else:
                                skipped += 1
                    if reason is not None:
                        rejected.append((number, reason))
                        self.stderr.write(f"line {number}: {reason}")
            except UnicodeDecodeError as exc:
                raise CommandError(f"{options['file']} is not UTF-8 text") from exc
        self.stdout.write(
            f"imported {imported}, skipped {skipped} (already present), rejected {len(rejected)}"
        )
        if rejected:
            n = len(rejected)
            raise CommandError(
                ngettext("%(n)d line rejected", "%(n)d lines rejected", n) % {"n": n}, returncode=1
            )
