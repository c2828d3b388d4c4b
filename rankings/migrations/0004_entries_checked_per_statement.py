"""A list's entries are checked per statement, not per row.

A list is about a million rows written by one ``COPY``. PostgreSQL checks a foreign key
with one trigger call and one index lookup per row: about 9 s per list in
``bench/close_month.py``. So the foreign keys of ``RankingEntry`` live in Django only
(``db_constraint=False``; ``on_delete`` still protects players and cascades lists):

- the list: the statement trigger of migration 0002, which already sees the statement's
  rows as a transition table, now also refuses rows of a list that does not exist (one
  pass over the rows, SQLSTATE 23503, ``IntegrityError`` in Django);
- the player: the writer's players are read, in the same snapshot, from
  ``SideMember.player_id``, which has its database foreign key; a player with results
  cannot be deleted, and players are merged, never deleted. An anti-join over the
  million rows would cost 2 s, most of what the change saves.
"""

import django.db.models.deletion
from django.db import migrations, models

FORWARD = r"""
CREATE OR REPLACE FUNCTION rankings_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    lists bigint[];
    published bigint;
    missing bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT array_agg(id) INTO lists
        FROM (SELECT DISTINCT ranking_list_id AS id FROM old_entries) AS touched;
        SELECT l.id INTO published FROM rankings_rankinglist l
        WHERE l.status = 'published' AND l.id = ANY (lists) LIMIT 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT array_agg(id) INTO lists
        FROM (SELECT DISTINCT ranking_list_id AS id FROM new_entries) AS touched;
        IF published IS NULL THEN
            SELECT l.id INTO published FROM rankings_rankinglist l
            WHERE l.status = 'published' AND l.id = ANY (lists) LIMIT 1;
        END IF;
        SELECT x INTO missing FROM unnest(lists) AS x
        WHERE NOT EXISTS (SELECT 1 FROM rankings_rankinglist l WHERE l.id = x) LIMIT 1;
        IF missing IS NOT NULL THEN
            RAISE EXCEPTION 'ranking list % does not exist', missing
                USING ERRCODE = 'foreign_key_violation';
        END IF;
    END IF;
    IF published IS NOT NULL THEN
        RAISE EXCEPTION 'the entries of published ranking list % are immutable', published
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END
$$;
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION rankings_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    published bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT l.id INTO published FROM rankings_rankinglist l
        WHERE l.status = 'published'
          AND l.id IN (SELECT DISTINCT ranking_list_id FROM old_entries) LIMIT 1;
    END IF;
    IF published IS NULL AND TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT l.id INTO published FROM rankings_rankinglist l
        WHERE l.status = 'published'
          AND l.id IN (SELECT DISTINCT ranking_list_id FROM new_entries) LIMIT 1;
    END IF;
    IF published IS NOT NULL THEN
        RAISE EXCEPTION 'the entries of published ranking list % are immutable', published
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END
$$;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint "
            "WHERE conrelid = 'rankings_rankingentry'::regclass AND contype = 'f'"
        )
        names = [name for (name,) in cursor.fetchall()]
    for name in names:
        schema_editor.execute(
            f'ALTER TABLE rankings_rankingentry DROP CONSTRAINT "{name}"', params=None
        )
    schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(BACKWARD, params=None)
    for column, target in (
        ("player_id", "matches_player"),
        ("ranking_list_id", "rankings_rankinglist"),
    ):
        schema_editor.execute(
            f"ALTER TABLE rankings_rankingentry ADD CONSTRAINT rankingentry_{column}_fk "
            f"FOREIGN KEY ({column}) REFERENCES {target} (id) DEFERRABLE INITIALLY DEFERRED",
            params=None,
        )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
        ("rankings", "0003_public_pages_indexes"),
    ]

    # On SQLite the foreign keys stay (cheap there, and altering them would rebuild the
    # table, losing the triggers of 0002 and the indexes of 0003).
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="rankingentry",
                    name="player",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="ranking_entries",
                        to="matches.player",
                    ),
                ),
                migrations.AlterField(
                    model_name="rankingentry",
                    name="ranking_list",
                    field=models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="entries",
                        to="rankings.rankinglist",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forward, backward, elidable=False)],
        ),
    ]
