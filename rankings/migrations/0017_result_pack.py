"""Packs of counted results (``ResultPack``) and the log of changes to results that tells
a pack's stale matches (docs/performance.md, "Packs of counted results").

PostgreSQL only (elsewhere the table exists and stays empty; the close reads the results):

- ``rankings_memberchange``: one row per match whose results (``matches_sidemember`` rows)
  changed, with the transaction that changed them (``xid``, ``pg_current_xact_id()``);
  ``match_id`` NULL means every match (a TRUNCATE). Written by statement triggers on
  ``matches_sidemember``: every UPDATE and DELETE (a void, a correction's void of the old
  revision, a merge and its undo, anything done by hand), an INSERT of a result whose
  counting month of its discipline is already packed (the service never classifies a
  result into a closed month; this catches anything that does), a TRUNCATE. A change that
  a pack's snapshot does not see (``pg_visible_in_snapshot``) makes the close read that
  match again instead of taking it from the pack. Not history (the match events are): a
  cache's invalidation log.
- ``rankings_resultpack`` and ``rankings_resultpackchunk``: immutable. A trigger refuses
  UPDATE and DELETE (SQLSTATE 23001, restrict_violation: Django raises ``IntegrityError``);
  TRUNCATE (test teardown) is not affected. A chunk (at most 8,000 bytes) stays in its
  table's page (``toast_tuple_target`` 8160) without compression (``STORAGE EXTERNAL``):
  packed numbers hardly compress, and a pack is read in sequence, page after page, where
  one large value would be read out of line, through the TOAST index, 2 kB at a time.
"""

import django.db.models.deletion
from django.db import migrations, models

POSTGRES_FORWARD = r"""
ALTER TABLE rankings_resultpackchunk SET (toast_tuple_target = 8160);
ALTER TABLE rankings_resultpackchunk ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE FUNCTION rankings_result_pack_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a result pack is immutable (%)', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER rankings_result_pack_immutable
    BEFORE UPDATE OR DELETE ON rankings_resultpack
    FOR EACH ROW EXECUTE FUNCTION rankings_result_pack_immutable();
CREATE TRIGGER rankings_result_pack_chunk_immutable
    BEFORE UPDATE OR DELETE ON rankings_resultpackchunk
    FOR EACH ROW EXECUTE FUNCTION rankings_result_pack_immutable();

CREATE TABLE rankings_memberchange (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    match_id bigint,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
COMMENT ON TABLE rankings_memberchange IS
    'matches whose results changed (match_id NULL: all), by transaction: what result packs '
    'made before that transaction must not be trusted for (rankings.result_packs)';

CREATE FUNCTION rankings_member_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO rankings_memberchange (match_id) VALUES (NULL);
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO rankings_memberchange (match_id)
        SELECT DISTINCT n.match_id FROM new_members n
        WHERE EXISTS (SELECT 1 FROM rankings_resultpack p
                      WHERE p.discipline = n.discipline AND p.month = n.counting_month);
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO rankings_memberchange (match_id)
        SELECT match_id FROM old_members UNION SELECT match_id FROM new_members;
    ELSE
        INSERT INTO rankings_memberchange (match_id) SELECT DISTINCT match_id FROM old_members;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER rankings_member_inserted
    AFTER INSERT ON matches_sidemember REFERENCING NEW TABLE AS new_members
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_member_changed();
CREATE TRIGGER rankings_member_updated
    AFTER UPDATE ON matches_sidemember
    REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_member_changed();
CREATE TRIGGER rankings_member_deleted
    AFTER DELETE ON matches_sidemember REFERENCING OLD TABLE AS old_members
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_member_changed();
CREATE TRIGGER rankings_member_truncated
    AFTER TRUNCATE ON matches_sidemember
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_member_changed();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER IF EXISTS rankings_member_truncated ON matches_sidemember;
DROP TRIGGER IF EXISTS rankings_member_deleted ON matches_sidemember;
DROP TRIGGER IF EXISTS rankings_member_updated ON matches_sidemember;
DROP TRIGGER IF EXISTS rankings_member_inserted ON matches_sidemember;
DROP FUNCTION IF EXISTS rankings_member_changed();
DROP TABLE IF EXISTS rankings_memberchange;
DROP TRIGGER IF EXISTS rankings_result_pack_chunk_immutable ON rankings_resultpackchunk;
DROP TRIGGER IF EXISTS rankings_result_pack_immutable ON rankings_resultpack;
DROP FUNCTION IF EXISTS rankings_result_pack_immutable();
"""


def statements(direction):
    """The RunPython step that runs PostgreSQL's statements of ``direction``."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            forward = direction == "forward"
            schema_editor.execute(POSTGRES_FORWARD if forward else POSTGRES_BACKWARD, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0016_list_pack"),
    ]

    operations = [
        migrations.CreateModel(
            name="ResultPack",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "discipline",
                    models.CharField(
                        choices=[
                            ("fido", "FIDO divisor game"),
                            ("allfives", "All Fives (Muggins / Five Up)"),
                            ("austrian", "Austrian double-eight"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "month",
                    models.DateField(help_text="the counting month of every result in the pack"),
                ),
                (
                    "played_from",
                    models.DateField(help_text="results played before this month are left out"),
                ),
                ("snapshot", models.TextField(help_text="pg_current_snapshot() of the read")),
                (
                    "strengths",
                    models.JSONField(
                        default=dict,
                        help_text="month played (YYYY-MM) -> id of the L(M - 1) used, or null",
                    ),
                ),
                ("matches", models.PositiveIntegerField()),
                ("rows", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField()),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("discipline", "month"), name="result_pack_one_per_month"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("month__day", 1)), name="result_pack_first_day"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="ResultPackChunk",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
                (
                    "pack",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chunks",
                        to="rankings.resultpack",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("pack", "seq"), name="result_pack_chunk_once")
                ],
            },
        ),
        migrations.RunPython(statements("forward"), statements("backward"), elidable=False),
    ]
