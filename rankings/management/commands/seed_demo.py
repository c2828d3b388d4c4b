"""``manage.py seed_demo``: fill the database with the demo federation (idempotent).

Creates the clubs, players, 14 months of results and the demo accounts (see
:mod:`matches.demo`), then closes every past month but the last through the ranking
service, so that a newcomer sees a year of published lists **and can watch a close**: the
last month stays open with its deadline passed (late results, a correction, a void in it),
the dashboard offers to close it, and the beat closes it ``FIDO_CLOSE_DELAY`` minutes
after the worker starts (README, "Watch a close"). Prints the demo accounts.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from matches import clock
from matches.demo import DEMO_ADMIN, DEMO_SECRETARY, seed
from matches.months import local_month
from rankings.services.schedule import past_months_close


class Command(BaseCommand):
    help = "Create the demo federation (accounts, clubs, players, results, published lists)."

    def handle(self, *args: Any, **options: Any) -> None:
        now = clock.now()
        seed(now=now, log=self.stdout.write)
        left_open = local_month(now, clock.federation_tz()) + -1
        published = past_months_close(now=now, through=left_open + -1)
        if published:
            self.stdout.write(
                f"  published {len(published)} ranking lists; {left_open} is left open, "
                "its deadline passed: close it on the dashboard, or the beat will"
            )
        self.stdout.write(f"  demo admin:     {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]}")
        self.stdout.write(f"  demo secretary: {DEMO_SECRETARY[0]} / {DEMO_SECRETARY[1]} (CLUB-BER)")
