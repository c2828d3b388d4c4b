"""The packs of published lists (``ListPack``): a compact, immutable copy of each list's
players and FLADUB cents, which the close reads instead of ``COPY``-ing the entries
(docs/performance.md, "Packs of published lists").

Immutable as the rest of a published list (migration 0001_squashed_0011):

- PostgreSQL: a row trigger refuses an INSERT for a list that is not published or
  superseded, or whose ``count`` is not the list's ``entry_count``, and refuses every
  UPDATE and DELETE (a pack exists only for a published or superseded list, and those
  never change); SQLSTATE 23001 (restrict_violation), or 23514 (check_violation) for a
  wrong count: Django raises ``IntegrityError``. TRUNCATE (test teardown) is not
  affected. Both arrays are stored out of line without compression (``STORAGE
  EXTERNAL``): packed integers hardly compress, and a read should not pay for trying.
- SQLite: the same INSERT check, and UPDATE refused; DELETE allowed, because Django's test
  flush deletes rows (as for the lists and entries).
"""

import django.db.models.deletion
import django.db.models.expressions
import django.db.models.functions.text
import django.db.models.lookups
from django.db import migrations, models

IMMUTABLE = "'published', 'superseded'"

POSTGRES_FORWARD = rf"""
ALTER TABLE rankings_listpack ALTER COLUMN players SET STORAGE EXTERNAL;
ALTER TABLE rankings_listpack ALTER COLUMN cents SET STORAGE EXTERNAL;

CREATE FUNCTION rankings_pack_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    list_status text;
    entries bigint;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'the pack of ranking list % is immutable', OLD.ranking_list_id
            USING ERRCODE = 'restrict_violation';
    END IF;
    SELECT l.status, l.entry_count INTO list_status, entries
    FROM rankings_rankinglist l WHERE l.id = NEW.ranking_list_id;
    IF list_status IS NULL OR list_status NOT IN ({IMMUTABLE}) THEN
        RAISE EXCEPTION 'ranking list % is not published: only a published list has a pack',
            NEW.ranking_list_id USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.count <> entries THEN
        RAISE EXCEPTION 'the pack of ranking list % holds % entries, the list %',
            NEW.ranking_list_id, NEW.count, entries USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER rankings_pack_immutable
    BEFORE INSERT OR UPDATE OR DELETE ON rankings_listpack
    FOR EACH ROW EXECUTE FUNCTION rankings_pack_immutable();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER IF EXISTS rankings_pack_immutable ON rankings_listpack;
DROP FUNCTION IF EXISTS rankings_pack_immutable();
"""
SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER rankings_pack_insert BEFORE INSERT ON rankings_listpack
    WHEN COALESCE((SELECT status FROM rankings_rankinglist WHERE id = NEW.ranking_list_id)
                  NOT IN ({IMMUTABLE}), 1)
    BEGIN SELECT RAISE(ABORT, 'only a published ranking list has a pack'); END;
    """,
    """
    CREATE TRIGGER rankings_pack_count BEFORE INSERT ON rankings_listpack
    WHEN NEW.count <> (SELECT entry_count FROM rankings_rankinglist WHERE id = NEW.ranking_list_id)
    BEGIN SELECT RAISE(ABORT, 'the pack does not hold the list''s entry count'); END;
    """,
    """
    CREATE TRIGGER rankings_pack_immutable BEFORE UPDATE ON rankings_listpack
    BEGIN SELECT RAISE(ABORT, 'the pack of a published ranking list is immutable'); END;
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS rankings_pack_immutable",
    "DROP TRIGGER IF EXISTS rankings_pack_count",
    "DROP TRIGGER IF EXISTS rankings_pack_insert",
]


STATEMENTS = {
    ("postgresql", "forward"): [POSTGRES_FORWARD],
    ("postgresql", "backward"): [POSTGRES_BACKWARD],
    ("sqlite", "forward"): SQLITE_FORWARD,
    ("sqlite", "backward"): SQLITE_BACKWARD,
}


def statements(direction):
    """The RunPython step that runs this vendor's statements of ``direction``."""

    def run(apps, schema_editor):
        for statement in STATEMENTS.get((schema_editor.connection.vendor, direction), []):
            schema_editor.execute(statement, params=None)

    return run


def length_is(field, width):
    """LENGTH(field) = count * width (bytes, for a binary field, on both databases)."""
    product = django.db.models.expressions.CombinedExpression(
        models.F("count"), "*", models.Value(width)
    )
    return django.db.models.lookups.Exact(django.db.models.functions.text.Length(field), product)


PACK_FIELDS = [
    (
        "ranking_list",
        models.OneToOneField(
            on_delete=django.db.models.deletion.PROTECT,
            primary_key=True,
            related_name="pack",
            serialize=False,
            to="rankings.rankinglist",
        ),
    ),
    ("count", models.PositiveIntegerField(help_text="entries in the list (and in each array)")),
    ("players", models.BinaryField(help_text="the entries' Player keys, int64 little-endian")),
    ("cents", models.BinaryField(help_text="their FLADUB in cents, int32 little-endian")),
]


class Migration(migrations.Migration):
    dependencies = [("rankings", "0015_entry_partitions")]

    operations = [
        migrations.CreateModel(
            name="ListPack",
            fields=PACK_FIELDS,
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(length_is("players", 8), length_is("cents", 4)),
                        name="list_pack_lengths",
                    )
                ],
            },
        ),
        migrations.RunPython(statements("forward"), statements("backward")),
    ]
