"""A covering index of a player's place in each list, for the public ranking page.

``entry_player_place`` (player, ranking_list) INCLUDE (rank, id): a filtered view of a list
(a name search, a country, a club: up to 20,000 matching players) reads the matching
players' (rank, id) in the list with one index-only probe each, never touching the table
(rankings/selectors_public.py). Raw SQL outside the models' state, like migration 0003, and
built CONCURRENTLY on PostgreSQL (not atomic) so that a live database keeps writing.
"""

from django.db import migrations

NAME = "entry_player_place"
TABLE = "rankings_rankingentry"


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        concurrently = "" if connection.in_atomic_block else "CONCURRENTLY "
        schema_editor.execute(
            f"CREATE INDEX {concurrently}IF NOT EXISTS {NAME} ON {TABLE} "
            "(player_id, ranking_list_id) INCLUDE (rank, id)"
        )
    elif connection.vendor == "sqlite":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {NAME} ON {TABLE} (player_id, ranking_list_id, rank, id)"
        )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor in {"postgresql", "sqlite"}:
        schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rankings", "0004_entries_checked_per_statement"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
