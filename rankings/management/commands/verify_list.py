"""``manage.py verify_list YYYY-MM --discipline D [--version N] [--file downloaded.csv]``.

Recomputes the published list from the stored results as they stood at its close and
checks it, and its seal, against what is stored (:func:`rankings.verification.verify_stored`);
with ``--file``, checks a downloaded CSV against the published hash instead
(:func:`rankings.verification.verify_file`). Exit 0 and "verified" when everything matches;
else the differences, first ones first, and exit 1. Bad input (an unknown month or
discipline, a version that does not exist, a file that is missing or not a list): a
message and exit 1 (``CommandError``). Reads only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.disciplines import CODES
from matches.months import Month
from rankings.models import RankingList
from rankings.verification import NotAList, verify_file, verify_stored


class Command(BaseCommand):
    help = "Verify a published ranking list against its seal and the stored results."
    requires_system_checks: list[str] = []

    def add_base_argument(self, parser: CommandParser, *args: Any, **kwargs: Any) -> None:
        # ``--version`` is the list's version here, not Django's.
        if "--version" not in args:
            super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("month", help="the list's month, YYYY-MM")
        parser.add_argument("--discipline", default="fido", choices=CODES)
        parser.add_argument(
            "--version", type=int, dest="list_version", help="default: the published one"
        )
        parser.add_argument("--file", type=Path, help="a downloaded CSV to check")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            month = Month.parse(options["month"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        ranking_list = _the_list(options["discipline"], month, options["list_version"])
        name = f"{ranking_list.discipline} {month} v{ranking_list.edition or 1}"
        if options["file"] is not None:
            path: Path = options["file"]
            if not path.is_file():
                raise CommandError(f"no such file: {path}")
            try:
                differences = verify_file(ranking_list, path)
            except NotAList as exc:
                raise CommandError(str(exc)) from exc
            subject = f"{path.name} against the published {name}"
        else:
            differences = verify_stored(ranking_list)
            subject = name
        if differences:
            for difference in differences:
                self.stdout.write(f"  {difference}")
            raise CommandError(f"{subject}: DOES NOT VERIFY ({len(differences)} difference(s))")
        self.stdout.write(f"{subject}: verified (SHA-256 {ranking_list.content_sha256})")


def _the_list(discipline: str, month: Month, version: int | None) -> RankingList:
    """The month's latest version, or version ``version`` (``edition``: v1 the close, v2
    the first erratum, ...), superseded or not."""
    lists = RankingList.objects.filter(discipline=discipline, month=month.first_day)
    if version is None:
        lists = lists.filter(status=RankingList.Status.PUBLISHED)
    else:
        lists = lists.filter(
            edition=version,
            status__in=[RankingList.Status.PUBLISHED, RankingList.Status.SUPERSEDED],
        )
    found = lists.first()
    if found is None:
        which = f"version {version} of " if version is not None else ""
        raise CommandError(f"no published {which}{discipline} list for {month}")
    return found
