"""``member_player`` gains the counting month: (player, discipline, counting_month).

Why: a player's page and API read the player's results of counting months after their pack of
points (:mod:`rankings.player_packs`), most often none; on (player, discipline) alone PostgreSQL
fetched and checked every result of the player to find none (for the busiest player of the
benchmark 8.3 ms uncached, about 1 ms cached; docs/performance.md). The
wider index serves every statement the old one did (same leading columns) and is still the only
index on the player: the submissions keep one index to write there.

On PostgreSQL the new index is built ``CONCURRENTLY`` under a temporary name, the old one dropped
``CONCURRENTLY`` and the new one renamed, so that the results table takes submissions throughout
(18.5 s at 12M results on a 2-core host); hence a non-atomic migration. Elsewhere
(SQLite, the demo) the plain drop and create. The state is Django's usual pair of operations.
"""

from django.db import migrations, models

OLD = models.Index(fields=["player", "discipline"], name="member_player")
NEW = models.Index(fields=["player", "discipline", "counting_month"], name="member_player")
TABLE = "matches_sidemember"


def _swap(to_index, from_index):
    def run(apps, schema_editor):
        model = apps.get_model("matches", "SideMember")
        if schema_editor.connection.vendor != "postgresql":
            schema_editor.remove_index(model, from_index)
            schema_editor.add_index(model, to_index)
            return
        columns = ", ".join(model._meta.get_field(name).column for name in to_index.fields)
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("DROP INDEX CONCURRENTLY IF EXISTS member_player_swap")
            cursor.execute(
                f"CREATE INDEX CONCURRENTLY member_player_swap ON {TABLE} ({columns})"  # noqa: S608
            )
            cursor.execute("DROP INDEX CONCURRENTLY IF EXISTS member_player")
            cursor.execute("ALTER INDEX member_player_swap RENAME TO member_player")

    return run


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("matches", "0005_secretary_plural"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="sidemember", name="member_player"),
                migrations.AddIndex(model_name="sidemember", index=NEW),
            ],
            database_operations=[
                migrations.RunPython(_swap(NEW, OLD), _swap(OLD, NEW)),
            ],
        ),
    ]
