"""``manage.py seed_demo``: fill the database with the demo federation (idempotent).

Creates the clubs, players, 14 months of results and the demo accounts (see
:mod:`matches.demo`), then closes every past month through the ranking service so that a
newcomer sees a year of published lists. Prints the demo accounts.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from matches import clock
from matches.demo import DEMO_ADMIN, DEMO_SECRETARY, seed
from rankings.services.schedule import past_months_close


class Command(BaseCommand):
    help = "Create the demo federation (accounts, clubs, players, results, published lists)."

    def handle(self, *args: Any, **options: Any) -> None:
        now = clock.now()
        seed(now=now, log=self.stdout.write)
        published = past_months_close(now=now)
        if published:
            self.stdout.write(f"  published {len(published)} ranking lists (every past month)")
        self.stdout.write(f"  demo admin:     {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]}")
        self.stdout.write(f"  demo secretary: {DEMO_SECRETARY[0]} / {DEMO_SECRETARY[1]} (CLUB-BER)")
