"""``manage.py verify_list YYYY-MM --discipline D [--version N] [--file downloaded.csv]``.

Recomputes each version of the month's list (v1 the close, v2, ... its errata; with
``--version N`` only that one) from the stored results as they stood at that version's
close and checks it, and its seal, against what is stored
(:func:`rankings.verification.verify_stored`); with ``--file``, checks a downloaded CSV
against the published hash of the latest version (or of version N) instead
(:func:`rankings.verification.verify_file`; a file that is an earlier, superseded version
is named as such). Exit 0 and "verified" for each version when
everything matches; else the differences of each version that does not verify, first ones
first, and exit 1. Bad input (an unknown month or discipline, a version that does not
exist, a file that is missing or not a list): a message and exit 1 (``CommandError``).
Reads only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from matches.disciplines import CODES
from matches.months import Month
from rankings.management.arguments import month_argument
from rankings.models import RankingList
from rankings.verification import Difference, NotAList, verify_file, verify_stored


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
        month = month_argument(options["month"])
        lists = _the_lists(options["discipline"], month, options["list_version"])
        failed = []
        if options["file"] is not None:
            path: Path = options["file"]
            if not path.is_file():
                raise CommandError(f"no such file: {path}")
            ranking_list = lists[-1]
            try:
                differences = verify_file(ranking_list, path)
            except NotAList as exc:
                raise CommandError(str(exc)) from exc
            if differences and options["list_version"] is None:
                differences += _earlier_version(path, lists)
            subject = f"{path.name} against the published {_name(ranking_list, month)}"
            failed += self._report(subject, ranking_list, differences)
        else:
            for ranking_list in lists:
                differences = verify_stored(ranking_list)
                failed += self._report(_name(ranking_list, month), ranking_list, differences)
        if failed:
            raise CommandError("; ".join(failed))

    def _report(self, subject: str, ranking_list: RankingList, differences: list) -> list[str]:
        """Print the outcome of one check; [the failure's summary] or []."""
        if differences:
            for difference in differences:
                self.stdout.write(f"  {difference}")
            count = ngettext("%(n)d difference", "%(n)d differences", len(differences)) % {
                "n": len(differences)
            }
            failure = f"{subject}: DOES NOT VERIFY ({count})"
            self.stdout.write(failure)
            return [failure]
        self.stdout.write(f"{subject}: verified (SHA-256 {ranking_list.content_sha256})")
        return []


def _earlier_version(path: Path, lists: list[RankingList]) -> list[Difference]:
    """A file that is not the latest version but an earlier, superseded one: say which (a
    download made before an erratum is authentic, only no longer the current list)."""
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    latest = lists[-1].edition or 1
    for ranking_list in lists[:-1]:
        if ranking_list.content_sha256 == sha:
            edition = ranking_list.edition or 1
            return [
                Difference(
                    "file",
                    f"it is version {edition} of this month's list, superseded by version "
                    f"{latest}: check it with --version {edition}",
                )
            ]
    return []


def _name(ranking_list: RankingList, month: Month) -> str:
    return f"{ranking_list.discipline} {month} v{ranking_list.edition or 1}"


def _the_lists(discipline: str, month: Month, version: int | None) -> list[RankingList]:
    """Every version of the month's list, oldest first (``edition``: v1 the close, v2 the
    first erratum, ...), superseded or not; or version ``version`` alone."""
    lists = RankingList.objects.filter(
        discipline=discipline,
        month=month.first_day,
        status__in=[RankingList.Status.PUBLISHED, RankingList.Status.SUPERSEDED],
    ).order_by("edition", "version")
    if version is not None:
        lists = lists.filter(edition=version)
    found = list(lists)
    if not found:
        which = f"version {version} of " if version is not None else ""
        raise CommandError(f"no published {which}{discipline} list for {month}")
    return found
