"""A prefix index of the federation id for the player type-ahead (``GET /api/players?q=``,
:mod:`matches.selectors.player_search`): ``UPPER(player_id) LIKE 'P-085%'`` can use a btree
only with a pattern operator class (the database's collation is not ``C``), so the
type-ahead's "id from its start" read all 1M players (10,310 buffers) on every word.
PostgreSQL only (SQLite scans its small tables); beside ``player_id_upper`` (migration
0001), which serves equality."""

from django.db import migrations

FORWARD = (
    "CREATE INDEX IF NOT EXISTS player_id_upper_prefix "
    "ON matches_player (UPPER(player_id) text_pattern_ops)"
)
BACKWARD = "DROP INDEX IF EXISTS player_id_upper_prefix"


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("rankings", "0012_errata"), ("matches", "0005_secretary_plural")]

    operations = [migrations.RunPython(forward, backward)]
