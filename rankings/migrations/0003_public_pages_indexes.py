"""Indexes of the public pages (rankings/selectors_public.py), so that they stay fast with
1,000,000 ranked players (bench/pages.py).

- ``entry_list_order`` (ranking_list, rank, id) INCLUDE (player_id): a list in list order.
  The writer stores a list's entries in list order (FLADUB descending, then federation id),
  so (rank, id) is that order; pages read it straight from this index: a page number
  becomes an index-only skip inside one group of equal rank, a filtered page a range scan
  from a (rank, id) cursor that keeps the entries of a set of players without reading the
  table (hence the included player). SQLite has no INCLUDE: the player is a fourth key.
- ``player_country_id`` (country, id): the country filter, and the list of countries read
  one index entry per country (a loose index scan) instead of every player.
- On PostgreSQL, ``player_name_trgm``: a trigram index on UPPER(name), which is what
  Django's ``icontains`` compares, so that a name search does not read every player; and
  ``player_id_upper`` on UPPER(player_id) for the ``iexact`` federation-id search. The
  pg_trgm extension is trusted (PostgreSQL 13+): a database owner may create it. Where it
  cannot be created the migration goes on without the trigram index (the search still
  works, by a scan) and says so.

The indexes live outside the models' state (raw SQL): they are an access path of these
read queries, not a part of the data model, and two of them are PostgreSQL-only. On
PostgreSQL they are built CONCURRENTLY (the migration is not atomic), so that adding them
to a live registry does not block writes.
"""

from django.db import migrations

BTREE = [
    ("player_country_id", "matches_player", "(country, id)"),
]
POSTGRES_ONLY = [
    ("entry_list_order", "rankings_rankingentry", "(ranking_list_id, rank, id) INCLUDE (player_id)"),
    ("player_id_upper", "matches_player", "(UPPER(player_id))"),
]
SQLITE_ONLY = [
    ("entry_list_order", "rankings_rankingentry", "(ranking_list_id, rank, id, player_id)"),
]
TRIGRAM = ("player_name_trgm", "matches_player", "USING gin (UPPER(name) gin_trgm_ops)")


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        concurrently = "" if connection.in_atomic_block else "CONCURRENTLY "
        for name, table, columns in BTREE + POSTGRES_ONLY:
            schema_editor.execute(
                f"CREATE INDEX {concurrently}IF NOT EXISTS {name} ON {table} {columns}"
            )
        try:
            with connection.cursor() as cursor:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        except Exception as exc:  # noqa: BLE001 - any refusal: go on without the index
            print(f"\n  pg_trgm unavailable ({exc}); name search will scan the players")
            return
        name, table, method = TRIGRAM
        schema_editor.execute(f"CREATE INDEX {concurrently}IF NOT EXISTS {name} ON {table} {method}")
    elif connection.vendor == "sqlite":
        for name, table, columns in BTREE + SQLITE_ONLY:
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} {columns}")


def backward(apps, schema_editor):
    connection = schema_editor.connection
    names = [name for name, _, _ in BTREE]
    if connection.vendor == "postgresql":
        names += [name for name, _, _ in POSTGRES_ONLY] + [TRIGRAM[0]]
    elif connection.vendor == "sqlite":
        names += [name for name, _, _ in SQLITE_ONLY]
    else:
        return
    for name in names:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("rankings", "0002_immutable_published_lists"),
        ("matches", "0001_initial"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
