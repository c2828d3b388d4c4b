"""``manage.py import_clubs FILE.csv``: upsert clubs from CSV.

Header: ``club_id,name,country,city``.

Output and exit code: see :mod:`matches.management.registry_command`.
"""

from __future__ import annotations

from matches.management.registry_command import RegistryImportCommand
from matches.registry_import import import_clubs


class Command(RegistryImportCommand):
    help = "Upsert clubs from a CSV file (club_id,name,country,city)."
    importer = staticmethod(import_clubs)
