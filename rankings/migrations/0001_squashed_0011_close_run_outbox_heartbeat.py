"""The rankings schema as migrations 0001 to 0011 left it, in one step (squashed by hand).

A database that has applied 0001_initial ... 0011_close_run_outbox_heartbeat counts this
migration as applied (``replaces``) and runs nothing; a new database gets the same tables
(columns in the same order), indexes, constraints and triggers in one go. What they are:

- Published lists are immutable (0002, 0010). PostgreSQL: a row trigger refuses UPDATE and
  DELETE of a published or superseded list, except the one change of a published row to
  ``superseded`` with every other column as it was; statement triggers (with transition
  tables, so a COPY of a million entries costs one join, not a million lookups) refuse
  INSERT, UPDATE and DELETE of entries of such a list. TRUNCATE (test teardown) is not
  affected. SQLite: UPDATE only, because Django's test flush deletes rows. The errors are
  SQLSTATE 23001 (restrict_violation): Django raises ``IntegrityError``.
- A list's entries are checked per statement, not per row (0004). A list is about a million
  rows written by one ``COPY``; a foreign key costs one trigger call and one index lookup
  per row (about 9 s per list in ``bench/close_month.py``). So the foreign keys of
  ``RankingEntry`` live in Django only (``db_constraint=False``): the statement trigger
  refuses rows of a list that does not exist (SQLSTATE 23503); the writer's players are
  read, in the same snapshot, from ``SideMember.player_id``, which has its foreign key.
  (A SQLite database migrated step by step kept its entries' foreign keys: a table rebuild
  would have lost the triggers; a new one is created as the models say, without them.)
- The indexes of the public pages (0003, 0005, 0006), outside the models' state (an access
  path of the read queries, not a part of the data model): ``entry_list_order``
  (ranking_list, rank, id) INCLUDE (player_id), a list in list order; ``entry_once_per_list``
  UNIQUE (ranking_list_id, player_id) INCLUDE (rank, id) on PostgreSQL, a player's place in
  a list in one index-only probe; ``player_country_id`` (country, id); on PostgreSQL
  ``player_id_upper`` on UPPER(player_id) and ``player_name_trgm``, a trigram index on
  UPPER(name) (what Django's ``icontains`` compares). The pg_trgm extension is trusted
  (PostgreSQL 13+); where it cannot be created the migration goes on without the trigram
  index (the search still works, by a scan) and says so. SQLite has no INCLUDE: the
  included columns are further keys, and it keeps ``entry_player_place`` (player, list).
- The seal of a list (0007), the projection (0008), the close hold (0009), the versions of
  a month's list (0010: ``edition``, unique per month; ``superseded``), the close run's
  outbox and heartbeat (0011).
"""

from importlib import import_module

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models, transaction

SET_NULL = django.db.models.deletion.SET_NULL
USER = settings.AUTH_USER_MODEL
# The disciplines as the matches migration this one depends on froze them.
DISCIPLINES = import_module("matches.migrations.0001_squashed_0004_api_keys_hashed").DISCIPLINES
RUN_STATES = [("queued", "Queued"), ("running", "Running"), ("succeeded", "Succeeded"), ("failed", "Failed")]
IMMUTABLE = "'published', 'superseded'"

POSTGRES_FORWARD = rf"""
CREATE FUNCTION rankings_list_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.status = 'published' AND NEW.status = 'superseded'
       AND to_jsonb(NEW) - 'status' = to_jsonb(OLD) - 'status' THEN
        RETURN NEW;
    END IF;
    IF OLD.status IN ({IMMUTABLE}) THEN
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
    lists bigint[];
    published bigint;
    missing bigint;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT array_agg(id) INTO lists
        FROM (SELECT DISTINCT ranking_list_id AS id FROM old_entries) AS touched;
        SELECT l.id INTO published FROM rankings_rankinglist l
        WHERE l.status IN ({IMMUTABLE}) AND l.id = ANY (lists) LIMIT 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT array_agg(id) INTO lists
        FROM (SELECT DISTINCT ranking_list_id AS id FROM new_entries) AS touched;
        IF published IS NULL THEN
            SELECT l.id INTO published FROM rankings_rankinglist l
            WHERE l.status IN ({IMMUTABLE}) AND l.id = ANY (lists) LIMIT 1;
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

ALTER TABLE rankings_rankingentry DROP CONSTRAINT entry_once_per_list;
ALTER TABLE rankings_rankingentry ADD CONSTRAINT entry_once_per_list
    UNIQUE (ranking_list_id, player_id) INCLUDE (rank, id);
CREATE INDEX entry_list_order ON rankings_rankingentry (ranking_list_id, rank, id) INCLUDE (player_id);
CREATE INDEX player_country_id ON matches_player (country, id);
CREATE INDEX player_id_upper ON matches_player (UPPER(player_id));
"""
POSTGRES_TRIGRAM = "CREATE INDEX player_name_trgm ON matches_player USING gin (UPPER(name) gin_trgm_ops)"

SQLITE_FORWARD = [
    f"""
    CREATE TRIGGER rankings_list_immutable BEFORE UPDATE ON rankings_rankinglist
    WHEN OLD.status IN ({IMMUTABLE}) AND NOT (
        OLD.status = 'published' AND NEW.status = 'superseded' AND NEW.id = OLD.id
        AND NEW.discipline = OLD.discipline AND NEW.month = OLD.month
        AND NEW.version = OLD.version AND NEW.edition IS OLD.edition
        AND NEW.entry_count = OLD.entry_count AND NEW.published_at IS OLD.published_at
        AND NEW.content_sha256 IS OLD.content_sha256)
    BEGIN SELECT RAISE(ABORT, 'a published ranking list is immutable'); END;
    """,
    f"""
    CREATE TRIGGER rankings_entry_immutable BEFORE UPDATE ON rankings_rankingentry
    WHEN (SELECT status FROM rankings_rankinglist WHERE id = OLD.ranking_list_id) IN ({IMMUTABLE})
       OR (SELECT status FROM rankings_rankinglist WHERE id = NEW.ranking_list_id) IN ({IMMUTABLE})
    BEGIN SELECT RAISE(ABORT, 'the entries of a published ranking list are immutable'); END;
    """,
    "CREATE INDEX entry_list_order ON rankings_rankingentry (ranking_list_id, rank, id, player_id)",
    "CREATE INDEX entry_player_place ON rankings_rankingentry (player_id, ranking_list_id, rank, id)",
    "CREATE INDEX player_country_id ON matches_player (country, id)",
]

# Then the tables go with their indexes.
POSTGRES_BACKWARD = """
DROP TRIGGER IF EXISTS rankings_entries_delete_immutable ON rankings_rankingentry;
DROP TRIGGER IF EXISTS rankings_entries_update_immutable ON rankings_rankingentry;
DROP TRIGGER IF EXISTS rankings_entries_insert_immutable ON rankings_rankingentry;
DROP TRIGGER IF EXISTS rankings_list_immutable ON rankings_rankinglist;
DROP FUNCTION IF EXISTS rankings_entries_immutable();
DROP FUNCTION IF EXISTS rankings_list_immutable();
DROP INDEX IF EXISTS player_name_trgm;
DROP INDEX IF EXISTS player_id_upper;
DROP INDEX IF EXISTS player_country_id;
"""


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement, params=None)
    if connection.vendor != "postgresql":
        return
    schema_editor.execute(POSTGRES_FORWARD, params=None)
    try:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception as exc:  # noqa: BLE001 - any refusal: go on without the index
        print(f"\n  pg_trgm unavailable ({exc}); name search will scan the players")
        return
    schema_editor.execute(POSTGRES_TRIGRAM, params=None)


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_BACKWARD, params=None)
    elif vendor == "sqlite":
        schema_editor.execute("DROP INDEX IF EXISTS player_country_id", params=None)


def model(name, fields, options=None):
    """The creation of a table of this app: its key ``id``, then ``fields``."""
    key = ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"))
    return migrations.CreateModel(name=name, fields=[key, *fields], options=options)


def discipline(**options):
    return ("discipline", models.CharField(choices=DISCIPLINES, max_length=10, **options))


def nullable(name, field_class, **options):
    return (name, field_class(blank=True, null=True, **options))


def user(name):
    return nullable(name, models.ForeignKey, on_delete=SET_NULL, to=USER)


def ranking_list(**options):
    return ("ranking_list", models.ForeignKey(related_name="+", to="rankings.rankinglist", **options))


def first_day(name):
    return models.CheckConstraint(condition=models.Q(("month__day", 1)), name=name)


def percent_check(name):
    return models.CheckConstraint(condition=models.Q(("percent__lte", 100)), name=name)


# The steps this migration replaces.
REPLACED = """
0001_initial 0002_immutable_published_lists 0003_public_pages_indexes
0004_entries_checked_per_statement 0005_entry_player_place 0006_one_player_index
0007_list_seal 0008_projection 0009_close_hold 0010_list_versions
0011_close_run_outbox_heartbeat
""".split()


class Migration(migrations.Migration):
    initial = True

    dependencies = [("matches", "0001_squashed_0004_api_keys_hashed"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    replaces = [("rankings", name) for name in REPLACED]

    operations = [
        model(
            "RankingList",
            [
                discipline(),
                ("month", models.DateField(help_text="first day of the month of the list")),
                ("version", models.PositiveIntegerField(default=1)),
                ("status", models.CharField(choices=[("computing", "Computing"), ("published", "Published"), ("failed", "Failed"), ("projected", "Projected"), ("superseded", "Superseded")], default="computing", max_length=10)),
                ("entry_count", models.PositiveIntegerField(default=0)),
                ("created_at", models.DateTimeField()),
                nullable("published_at", models.DateTimeField),
                nullable("code_version", models.CharField, max_length=64),
                nullable("content_sha256", models.CharField, max_length=64),
                nullable("fladub_version", models.CharField, max_length=16),
                nullable("inputs_count", models.PositiveBigIntegerField),
                nullable("inputs_sha256", models.CharField, max_length=64),
                nullable("edition", models.PositiveIntegerField),
            ],
            {
                "ordering": ["discipline", "-month", "-version"],
                "constraints": [
                    models.UniqueConstraint(condition=models.Q(("status", "published")), fields=("discipline", "month"), name="ranking_list_one_published_per_month"),
                    models.UniqueConstraint(fields=("discipline", "month", "version"), name="ranking_list_unique_version"),
                    first_day("ranking_list_first_day"),
                    models.CheckConstraint(condition=models.Q(models.Q(("published_at__isnull", False), ("status", "published")), models.Q(("status", "published"), _negated=True), _connector="OR"), name="ranking_list_published_has_time"),
                    models.UniqueConstraint(condition=models.Q(("edition__isnull", False)), fields=("discipline", "month", "edition"), name="ranking_list_unique_edition"),
                ],
            },
        ),
        model(
            "CurrentList",
            [
                discipline(unique=True),
                ("updated_at", models.DateTimeField()),
                ranking_list(on_delete=django.db.models.deletion.PROTECT),
            ],
            {"ordering": ["discipline"]},
        ),
        model(
            "RankingEntry",
            [
                ("rank", models.PositiveIntegerField()),
                ("fladub_cents", models.PositiveIntegerField()),
                ("results_counted", models.PositiveIntegerField()),
                nullable("previous_rank", models.PositiveIntegerField),
                nullable("movement", models.IntegerField),
                ("player", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="ranking_entries", to="matches.player")),
                ("ranking_list", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="entries", to="rankings.rankinglist")),
            ],
            {
                "verbose_name_plural": "ranking entries",
                "ordering": ["ranking_list", "rank", "player"],
                "constraints": [
                    models.UniqueConstraint(fields=("ranking_list", "player"), name="entry_once_per_list"),
                    models.CheckConstraint(condition=models.Q(("rank__gte", 1)), name="entry_rank_positive"),
                    models.CheckConstraint(condition=models.Q(("fladub_cents__gt", 0)), name="entry_fladub_positive"),
                ],
            },
        ),
        model(
            "CloseRun",
            [
                discipline(),
                ("month", models.DateField(help_text="first day of the month to close")),
                ("state", models.CharField(choices=RUN_STATES, default="queued", max_length=10)),
                ("stage", models.CharField(choices=[("queued", "Queued"), ("waiting", "Waiting for another close"), ("freeze", "Freezing the month"), ("load", "Loading results"), ("compute", "Computing FLADUB"), ("write", "Writing entries"), ("publish", "Publishing"), ("done", "Done")], default="queued", max_length=10)),
                ("percent", models.PositiveSmallIntegerField(default=0)),
                ("timings", models.JSONField(blank=True, default=dict)),
                ("error", models.TextField(blank=True)),
                ("task_id", models.CharField(blank=True, max_length=255)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("created_at", models.DateTimeField()),
                nullable("started_at", models.DateTimeField),
                nullable("finished_at", models.DateTimeField),
                user("requested_by"),
                ranking_list(blank=True, null=True, on_delete=SET_NULL),
                nullable("dispatched_at", models.DateTimeField),
                nullable("heartbeat_at", models.DateTimeField),
            ],
            {
                "ordering": ["-created_at", "-id"],
                "indexes": [models.Index(fields=["discipline", "month"], name="close_run_month")],
                "constraints": [
                    first_day("close_run_first_day"),
                    percent_check("close_run_percent"),
                ],
            },
        ),
        model(
            "ProjectionRun",
            [
                discipline(),
                nullable("month", models.DateField, help_text="the month projected"),
                ("state", models.CharField(choices=RUN_STATES, default="queued", max_length=10)),
                ("stage", models.CharField(default="queued", max_length=10)),
                ("percent", models.PositiveSmallIntegerField(default=0)),
                ("error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField()),
                nullable("finished_at", models.DateTimeField),
                ranking_list(blank=True, null=True, on_delete=SET_NULL),
                user("requested_by"),
            ],
            {
                "ordering": ["-created_at", "-id"],
                "constraints": [percent_check("projection_run_percent")],
            },
        ),
        model(
            "CloseHold",
            [
                discipline(),
                ("action", models.CharField(choices=[("hold", "Held"), ("release", "Released")], max_length=10)),
                ("reason", models.TextField()),
                ("at", models.DateTimeField()),
                user("by"),
            ],
            {
                "ordering": ["-at", "-id"],
                "indexes": [models.Index(fields=["discipline", "-at"], name="close_hold_latest")],
            },
        ),
        migrations.RunPython(forward, backward, elidable=False),
    ]
