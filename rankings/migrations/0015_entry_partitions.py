"""PostgreSQL: the entries table partitioned by list (:mod:`rankings.partitions` says why).

The table is renamed aside; a parent partitioned by ``LIST (ranking_list_id)`` takes its
name, its columns (in the same order), its ``CHECK`` constraints, its identity, its three
statement triggers and its indexes: ``entry_list_order`` and ``entry_once_per_list`` as
before, the primary key now ``(id, ranking_list_id)`` (a unique key of a partitioned table
must hold the partition key; ``id`` first, so that a look-up by id still descends it). Each
list's entries are copied into a partition of their own, in list order with their ids,
indexed and attached exactly as the writer does it; anything else goes to the default
partition; the old table is dropped. Nothing changes in Django's state: the model, its key
and its constraints are as they were, and SQLite keeps its plain table.

``rankings_partition_immutable(list_id)``: the statement trigger of each list's partition,
which refuses a change to its rows once the list is published or superseded (the parent's
triggers see only the statements that name the parent).

Irreversible (the data would have to go back into one table; restore a backup instead).
"""

from django.db import migrations

from rankings import partitions

IMMUTABLE = "'published', 'superseded'"
ENTRIES = partitions.TABLE
OLD = f"{ENTRIES}_unpartitioned"
COLUMNS = "id, rank, fladub_cents, results_counted, previous_rank, movement, player_id, ranking_list_id"

SET_ASIDE = f"""
ALTER TABLE {ENTRIES} RENAME TO {OLD};
DROP TRIGGER rankings_entries_insert_immutable ON {OLD};
DROP TRIGGER rankings_entries_update_immutable ON {OLD};
DROP TRIGGER rankings_entries_delete_immutable ON {OLD};
ALTER TABLE {OLD} RENAME CONSTRAINT {ENTRIES}_pkey TO {OLD}_pkey;
ALTER TABLE {OLD} RENAME CONSTRAINT entry_once_per_list TO {OLD}_once;
ALTER INDEX entry_list_order RENAME TO {OLD}_order;
"""

PARENT = f"""
CREATE TABLE {ENTRIES} (LIKE {OLD} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY)
    PARTITION BY LIST (ranking_list_id);
ALTER TABLE {ENTRIES} ADD CONSTRAINT {ENTRIES}_pkey PRIMARY KEY (id, ranking_list_id);
ALTER TABLE {ENTRIES} ADD CONSTRAINT entry_once_per_list
    UNIQUE (ranking_list_id, player_id) INCLUDE (rank, id);
CREATE INDEX entry_list_order ON {ENTRIES} (ranking_list_id, rank, id) INCLUDE (player_id);
CREATE TABLE {partitions.DEFAULT_PARTITION} PARTITION OF {ENTRIES} DEFAULT;
CREATE TRIGGER rankings_entries_insert_immutable
    AFTER INSERT ON {ENTRIES} REFERENCING NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
CREATE TRIGGER rankings_entries_update_immutable
    AFTER UPDATE ON {ENTRIES}
    REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
CREATE TRIGGER rankings_entries_delete_immutable
    AFTER DELETE ON {ENTRIES} REFERENCING OLD TABLE AS old_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
CREATE FUNCTION rankings_partition_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM rankings_rankinglist l
               WHERE l.id = TG_ARGV[0]::bigint AND l.status IN ({IMMUTABLE})) THEN
        RAISE EXCEPTION 'the entries of published ranking list % are immutable', TG_ARGV[0]
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NULL;
END
$$;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    raw = schema_editor.connection.connection
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(SET_ASIDE)
        cursor.execute(PARENT)
        cursor.execute(f"SELECT DISTINCT ranking_list_id FROM {OLD} ORDER BY 1")
        for (list_id,) in cursor.fetchall():
            name = partitions.partition_create(cursor, list_id)
            cursor.execute(
                f"INSERT INTO {name} ({COLUMNS}) SELECT {COLUMNS} FROM {OLD} "  # noqa: S608
                f"WHERE ranking_list_id = %s ORDER BY rank, id",
                [list_id],
            )
            for statement in partitions.INDEX_BUILDS:
                partitions.index_build(raw, list_id, statement)
            partitions.partition_attach(cursor, list_id)
            cursor.execute(f"ANALYZE {name}")
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{ENTRIES}', 'id'), "
            f"(SELECT coalesce(max(id), 0) + 1 FROM {OLD}), false)"
        )
        cursor.execute(f"DROP TABLE {OLD}")


class Migration(migrations.Migration):
    dependencies = [("rankings", "0014_projection_review")]

    operations = [migrations.RunPython(forward, elidable=False)]
