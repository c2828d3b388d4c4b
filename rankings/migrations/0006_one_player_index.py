"""One index for every lookup of a player in a list, list first; no redundant index.

A close inserts a million entries; every index of ``RankingEntry`` takes a million inserts,
and an index whose order is not the list order takes them at random places. With the
default 128 MB of shared buffers, two such indexes keyed by player first, spread over
every list ever published, made the write of ``bench/close_month.py`` 20 to 30 s.

- ``entry_once_per_list`` becomes UNIQUE (ranking_list_id, player_id), on PostgreSQL with
  INCLUDE (rank, id): a close's inserts stay in the newest list's region of the index; a
  player's place in a list (or in each of the lists of their history) is one index-only
  probe. It supersedes ``entry_player_place`` (player_id, ranking_list_id) INCLUDE (rank,
  id) of migration 0005, which is dropped.
- ``entry_list_rank`` (ranking_list_id, rank) is dropped: ``entry_list_order``
  (ranking_list_id, rank, id) of migration 0003 starts with the same columns.

SQLite keeps its unique index as created (a constraint of the table; changing it would
rebuild the table and lose the triggers of 0002 and the indexes of 0003 and 0005): the
uniqueness is the same, and speed is not SQLite's concern.
"""

from django.db import migrations, models

POSTGRES_FORWARD = """
DROP INDEX IF EXISTS entry_list_rank;
ALTER TABLE rankings_rankingentry DROP CONSTRAINT IF EXISTS entry_once_per_list;
ALTER TABLE rankings_rankingentry ADD CONSTRAINT entry_once_per_list
    UNIQUE (ranking_list_id, player_id) INCLUDE (rank, id);
DROP INDEX IF EXISTS entry_player_place;
"""

POSTGRES_BACKWARD = """
CREATE INDEX IF NOT EXISTS entry_player_place ON rankings_rankingentry
    (player_id, ranking_list_id) INCLUDE (rank, id);
ALTER TABLE rankings_rankingentry DROP CONSTRAINT IF EXISTS entry_once_per_list;
ALTER TABLE rankings_rankingentry ADD CONSTRAINT entry_once_per_list
    UNIQUE (player_id, ranking_list_id);
CREATE INDEX IF NOT EXISTS entry_list_rank ON rankings_rankingentry (ranking_list_id, rank);
"""


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute("DROP INDEX IF EXISTS entry_list_rank", params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS entry_list_rank ON rankings_rankingentry "
            "(ranking_list_id, rank)",
            params=None,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
        ("rankings", "0005_entry_player_place"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveConstraint(
                    model_name="rankingentry",
                    name="entry_once_per_list",
                ),
                migrations.RemoveIndex(
                    model_name="rankingentry",
                    name="entry_list_rank",
                ),
                migrations.AddConstraint(
                    model_name="rankingentry",
                    constraint=models.UniqueConstraint(
                        fields=("ranking_list", "player"), name="entry_once_per_list"
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forward, backward, elidable=False)],
        ),
    ]
