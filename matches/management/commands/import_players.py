"""``manage.py import_players FILE.csv``: upsert players from CSV.

Header: ``player_id,name,country,club_id``.

Output and exit code: see :mod:`matches.management.registry_command`.
"""

from __future__ import annotations

from matches.management.registry_command import RegistryImportCommand
from matches.registry_import import import_players


class Command(RegistryImportCommand):
    help = "Upsert players from a CSV file (player_id,name,country,club_id)."
    importer = staticmethod(import_players)
