"""``manage.py export_ranking YYYY-MM [--discipline D] [--format csv|json]`` (SPEC.md 5.3).

Prints the published list L(M) to stdout; exits non-zero with a message when there is none.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.disciplines import CODES
from rankings.export import FORMATS, pieces
from rankings.management.arguments import month_argument
from rankings.selectors.lists import published_list


class Command(BaseCommand):
    help = "Print the published ranking list of a month as CSV or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("month", help="the list's month, YYYY-MM")
        parser.add_argument("--discipline", default="fido", choices=CODES)
        parser.add_argument("--format", default="csv", choices=FORMATS, dest="fmt")

    def handle(self, *args: Any, **options: Any) -> None:
        month = month_argument(options["month"])
        discipline = options["discipline"]
        ranking_list = published_list(discipline=discipline, month=month)
        if ranking_list is None:
            raise CommandError(f"no published {discipline} list for {month}")
        for piece in pieces(ranking_list, options["fmt"]):
            self.stdout.write(piece, ending="")
