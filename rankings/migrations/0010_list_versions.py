"""Versions of a month's list (issue 14, item 3): ``edition`` is the public version number
(v1 the close of the month, v2 its first erratum, ...), unique per month; the version an
erratum replaces turns ``superseded`` and keeps its URL.

Every list published so far is v1 (backfilled past the immutability trigger, which is
disabled for that one UPDATE). The triggers now guard superseded lists as they guard
published ones, and allow exactly one change of a published row: its status to
``superseded``, every other column as it was.
"""

from django.db import migrations, models

POSTGRES_LIST = r"""
CREATE OR REPLACE FUNCTION rankings_list_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = 'published' AND NEW.status = 'superseded'
       AND to_jsonb(NEW) - 'status' = to_jsonb(OLD) - 'status' THEN
        RETURN NEW;
    END IF;
    IF OLD.status IN ('published', 'superseded') THEN
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
"""

POSTGRES_LIST_BACKWARD = r"""
CREATE OR REPLACE FUNCTION rankings_list_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
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
"""

_ENTRIES = r"""
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
        WHERE l.status IN (STATUSES) AND l.id = ANY (lists) LIMIT 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT array_agg(id) INTO lists
        FROM (SELECT DISTINCT ranking_list_id AS id FROM new_entries) AS touched;
        IF published IS NULL THEN
            SELECT l.id INTO published FROM rankings_rankinglist l
            WHERE l.status IN (STATUSES) AND l.id = ANY (lists) LIMIT 1;
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
POSTGRES_ENTRIES = _ENTRIES.replace("STATUSES", "'published', 'superseded'")
POSTGRES_ENTRIES_BACKWARD = _ENTRIES.replace("STATUSES", "'published'")

POSTGRES_BACKFILL = """
ALTER TABLE rankings_rankinglist DISABLE TRIGGER rankings_list_immutable;
UPDATE rankings_rankinglist SET edition = 1 WHERE status = 'published';
ALTER TABLE rankings_rankinglist ENABLE TRIGGER rankings_list_immutable;
"""

SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS rankings_entry_immutable",
    "DROP TRIGGER IF EXISTS rankings_list_immutable",
]
SQLITE_BACKFILL = "UPDATE rankings_rankinglist SET edition = 1 WHERE status = 'published'"
_SQLITE_CREATE = [
    """
    CREATE TRIGGER rankings_list_immutable BEFORE UPDATE ON rankings_rankinglist
    WHEN OLD.status IN (STATUSES) AND NOT (
        OLD.status = 'published' AND NEW.status = 'superseded' AND NEW.id = OLD.id
        AND NEW.discipline = OLD.discipline AND NEW.month = OLD.month
        AND NEW.version = OLD.version AND NEW.edition IS OLD.edition
        AND NEW.entry_count = OLD.entry_count AND NEW.published_at IS OLD.published_at
        AND NEW.content_sha256 IS OLD.content_sha256)
    BEGIN SELECT RAISE(ABORT, 'a published ranking list is immutable'); END;
    """,
    """
    CREATE TRIGGER rankings_entry_immutable BEFORE UPDATE ON rankings_rankingentry
    WHEN (SELECT status FROM rankings_rankinglist WHERE id = OLD.ranking_list_id) IN (STATUSES)
       OR (SELECT status FROM rankings_rankinglist WHERE id = NEW.ranking_list_id) IN (STATUSES)
    BEGIN SELECT RAISE(ABORT, 'the entries of a published ranking list are immutable'); END;
    """,
]
SQLITE_CREATE = [s.replace("STATUSES", "'published', 'superseded'") for s in _SQLITE_CREATE]
SQLITE_CREATE_BACKWARD = [
    s.replace("STATUSES", "'published'").replace(
        "OLD.status = 'published' AND NEW.status = 'superseded'", "0"
    )
    for s in _SQLITE_CREATE
]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in (POSTGRES_LIST, POSTGRES_ENTRIES, POSTGRES_BACKFILL):
            schema_editor.execute(statement, params=None)
    elif vendor == "sqlite":
        for statement in [*SQLITE_DROP, SQLITE_BACKFILL, *SQLITE_CREATE]:
            schema_editor.execute(statement, params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        for statement in (POSTGRES_LIST_BACKWARD, POSTGRES_ENTRIES_BACKWARD):
            schema_editor.execute(statement, params=None)
    elif vendor == "sqlite":
        for statement in [*SQLITE_DROP, *SQLITE_CREATE_BACKWARD]:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0009_close_hold"),
    ]

    operations = [
        migrations.AddField(
            model_name="rankinglist",
            name="edition",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="rankinglist",
            name="status",
            field=models.CharField(
                choices=[
                    ("computing", "Computing"),
                    ("published", "Published"),
                    ("failed", "Failed"),
                    ("projected", "Projected"),
                    ("superseded", "Superseded"),
                ],
                default="computing",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="rankinglist",
            constraint=models.UniqueConstraint(
                condition=models.Q(edition__isnull=False),
                fields=("discipline", "month", "edition"),
                name="ranking_list_unique_edition",
            ),
        ),
        migrations.RunPython(forward, backward, elidable=False),
    ]
