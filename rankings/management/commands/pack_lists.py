"""``manage.py pack_lists [--discipline D]``: store the pack of every published list that
has none (:func:`rankings.services.packs.packs_backfill`), so that the close reads it in
milliseconds instead of copying its entries (docs/performance.md, "Packs of published
lists"), and, on PostgreSQL, the result packs of the months of each discipline's latest
window that have none (:func:`rankings.services.packs.result_packs_backfill`: "Packs of
counted results"), so that the next close reads only its own month's results as rows.
Lists and months closed since the upgrade already have theirs; run it once after the
upgrades that added packs. Then the packs of points of each discipline's busiest players
(:func:`rankings.services.player_packs.player_packs_write`: "Packs of a player's points"),
which a worker makes after each close. Safe to run at any time, again, or beside a close:
it only adds packs (and drops player packs older than a newer one). Last, it prunes the
change log of results as the nightly task does
(:func:`rankings.services.packs.member_changes_prune`; not while a close is under way), and
the log of players' renames (:func:`rankings.services.player_packs.player_changes_prune`;
not while a pack writer is at work). Packs of points made before their matches' tables were
packed (migration 0019) are packed again.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from matches.disciplines import CODES
from rankings.services.packs import (
    member_changes_prune,
    packs_backfill,
    result_packs_backfill,
)
from rankings.services.player_packs import player_changes_prune, player_packs_write


class Command(BaseCommand):
    help = "Pack the published ranking lists, and the counted results, that have no pack yet."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--discipline", choices=CODES, help="default: every discipline")

    def handle(self, *args: Any, **options: Any) -> None:
        def said(list_id: int, entries: int) -> None:
            self.stdout.write(f"packed list {list_id}: {entries} entries")

        packed = packs_backfill(discipline=options["discipline"], progress=said)
        self.stdout.write(
            f"{packed} list(s) packed" if packed else "every published list has its pack"
        )
        if connection.vendor != "postgresql":
            return  # the close reads every result as a row there
        for discipline in [options["discipline"]] if options["discipline"] else CODES:
            months = result_packs_backfill(discipline)
            self.stdout.write(
                f"packed the results of {months} month(s) of {discipline}"
                if months
                else f"every result of {discipline} is packed"
            )
            players = player_packs_write(discipline)
            self.stdout.write(
                f"packed the points of {players} player(s) of {discipline}"
                if players
                else f"every busy player of {discipline} has a pack of points"
            )
        pruned = member_changes_prune()
        self.stdout.write(
            "a close is under way: the change log is left for the nightly prune"
            if pruned is None
            else f"pruned {pruned} logged change(s) of results no pack needs"
        )
        renames = player_changes_prune()
        self.stdout.write(
            "a writer is at work: the renames' log is left for the nightly prune"
            if renames is None
            else f"pruned {renames} logged rename(s) of players every pack sees"
        )
