"""Published lists are immutable, in the database as well as in the services.

PostgreSQL: row triggers refuse UPDATE and DELETE of a published list; statement triggers
(with transition tables, so a COPY of a million entries costs one join, not a million
lookups) refuse INSERT, UPDATE and DELETE of entries of a published list. TRUNCATE (test
teardown) is not affected. SQLite: UPDATE only, because Django's test flush deletes rows.
The errors are SQLSTATE 23001 (restrict_violation): Django raises ``IntegrityError``.
"""

from django.db import migrations

POSTGRES_FORWARD = r"""
CREATE FUNCTION rankings_list_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status = 'published' THEN
        RAISE EXCEPTION 'ranking list % (% %) is published and immutable',
            OLD.id, OLD.discipline, to_char(OLD.month, 'YYYY-MM')
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER rankings_list_immutable
    BEFORE UPDATE OR DELETE ON rankings_rankinglist
    FOR EACH ROW EXECUTE FUNCTION rankings_list_immutable();

CREATE FUNCTION rankings_entries_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER rankings_entries_insert_immutable
    AFTER INSERT ON rankings_rankingentry REFERENCING NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
CREATE TRIGGER rankings_entries_update_immutable
    AFTER UPDATE ON rankings_rankingentry
    REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
CREATE TRIGGER rankings_entries_delete_immutable
    AFTER DELETE ON rankings_rankingentry REFERENCING OLD TABLE AS old_entries
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_entries_immutable();
"""

POSTGRES_BACKWARD = r"""
DROP TRIGGER IF EXISTS rankings_entries_delete_immutable ON rankings_rankingentry;
DROP TRIGGER IF EXISTS rankings_entries_update_immutable ON rankings_rankingentry;
DROP TRIGGER IF EXISTS rankings_entries_insert_immutable ON rankings_rankingentry;
DROP FUNCTION IF EXISTS rankings_entries_immutable();
DROP TRIGGER IF EXISTS rankings_list_immutable ON rankings_rankinglist;
DROP FUNCTION IF EXISTS rankings_list_immutable();
"""

SQLITE_FORWARD = [
    """
    CREATE TRIGGER rankings_list_immutable BEFORE UPDATE ON rankings_rankinglist
    WHEN OLD.status = 'published'
    BEGIN SELECT RAISE(ABORT, 'a published ranking list is immutable'); END;
    """,
    """
    CREATE TRIGGER rankings_entry_immutable BEFORE UPDATE ON rankings_rankingentry
    WHEN (SELECT status FROM rankings_rankinglist WHERE id = OLD.ranking_list_id) = 'published'
       OR (SELECT status FROM rankings_rankinglist WHERE id = NEW.ranking_list_id) = 'published'
    BEGIN SELECT RAISE(ABORT, 'the entries of a published ranking list are immutable'); END;
    """,
]

SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS rankings_entry_immutable",
    "DROP TRIGGER IF EXISTS rankings_list_immutable",
]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement, params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    elif vendor == "sqlite":
        for statement in SQLITE_BACKWARD:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0001_initial"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
