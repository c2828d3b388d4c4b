"""``match_club_played``: a club's matches by day played, newest first.

Why: a club's page reads its 20 latest matches and its matches of the last twelve months by
day played (:mod:`rankings.club_sql`); through the index on (club, received at) PostgreSQL
fetched every match of the club to sort or filter them (641 for the benchmark's biggest
club, 2.2 and 1.2 ms; with this index 0.8 to 1.1 and 0.4 ms), and a club's history only
grows. docs/performance.md, under the pages.

On PostgreSQL the index is built ``CONCURRENTLY`` (2.3 s at 2.9 million matches on a
2-core host), so that the matches table takes submissions throughout; hence a non-atomic
migration (Django's PostgreSQL schema editor writes the statements). Elsewhere (SQLite, the
demo) the plain create. The state is Django's usual operation.
"""

from django.db import migrations, models

INDEX = models.Index(fields=["club", "-date_played", "-id"], name="match_club_played")


def _index(*, build: bool):
    """The migration's operation (``build``) or its reverse."""

    def run(apps, schema_editor):
        model = apps.get_model("matches", "Match")
        if schema_editor.connection.vendor == "postgresql":
            # Either way, first drop what an interrupted build may have left (invalid).
            schema_editor.remove_index(model, INDEX, concurrently=True)
            if build:
                schema_editor.add_index(model, INDEX, concurrently=True)
        elif build:
            schema_editor.add_index(model, INDEX)
        else:
            schema_editor.remove_index(model, INDEX)

    return run


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("matches", "0006_member_player_counting_month"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.AddIndex(model_name="match", index=INDEX)],
            database_operations=[migrations.RunPython(_index(build=True), _index(build=False))],
        ),
    ]
