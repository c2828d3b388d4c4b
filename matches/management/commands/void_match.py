"""``manage.py void_match MATCH_ID --reason TEXT [--club CLUB-ID]``: void a result.

``MATCH_ID`` is the match's external id (as in ``import_results``); its current revision
is voided from the next list on (the first month not yet closed, or its own counting month
if that is still open). ``--club`` disambiguates an id used by several clubs.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches import clock
from matches.models import Match
from matches.services import match_void
from matches.validation import InvalidSubmission


class Command(BaseCommand):
    help = "Void a match from the next list on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match_id", help="the match's external id")
        parser.add_argument("--reason", required=True, help="why (kept in the audit trail)")
        parser.add_argument("--club", help="the club id, if several clubs use this match id")

    def handle(self, *args: Any, **options: Any) -> None:
        matches = Match.objects.filter(external_id=options["match_id"], replaced_by__isnull=True)
        if options.get("club"):
            matches = matches.filter(club__club_id=options["club"])
        found = list(matches.select_related("club")[:2])
        if not found:
            raise CommandError(f"no match with id {options['match_id']}")
        if len(found) > 1:
            raise CommandError(f"several clubs use the id {options['match_id']}: give --club")
        try:
            match = match_void(match=found[0], by=None, reason=options["reason"], now=clock.now())
        except InvalidSubmission as exc:
            raise CommandError("; ".join(p.message for p in exc.problems)) from exc
        self.stdout.write(f"voided {match.label} from {match.void_effective_month:%Y-%m} on")
