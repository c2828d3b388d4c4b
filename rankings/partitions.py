"""A list's entries in a partition of their own (PostgreSQL; raw SQL, hence the module).

On PostgreSQL ``rankings_rankingentry`` is partitioned by ``ranking_list_id`` (migration
0015): each list written by :mod:`rankings.writer` is one partition,
``rankings_rankingentry_l<list id>``; whatever else inserts entries (the ORM: tests, an
admin) lands in the default partition ``rankings_rankingentry_default``. The pages,
exports and the close read the parent: every query that names a list reads one partition.

Why: a list is about a million rows. Inserted into indexed pages, each row costs three
index descents; the entries' ``COPY`` cost the server 3.3 s of CPU with the three indexes
the pages need. Into a table with no index it costs about 0.6 s, and each index is then
built in one sorted pass (docs/performance.md, "Write"). So the writer:

1. :func:`partition_create`: a table shaped like the parent, no index, with a ``CHECK``
   of its list (so that attaching it scans nothing); its ids drawn from the parent's
   identity sequence, in row order (``(rank, id)`` is the list order): a block reserved at
   once (:func:`entry_ids_reserve`) when the writer is outside any transaction, else the
   sequence's default, a ``nextval`` per row;
2. ``COPY`` into it (one or more streams);
3. :data:`INDEX_BUILDS`: the parent's three indexes, built on the partition (several
   connections may build at once: ``CREATE INDEX`` locks out only writers);
4. :func:`partition_attach`: the unique indexes become the partition's constraints, the
   table becomes the list's partition (the parent's indexes adopt the built ones), and it
   gets the statement trigger that keeps a published list's rows immutable when the
   partition itself is named (the parent's triggers guard the statements on the parent).

Guarantees: a list's partition holds its entries and nothing else (the ``CHECK``); the
parent's unique constraints hold across partitions (they include the partition key); an
entry's ``id`` is unique (one sequence). :func:`partitions_drop` removes the partitions of
discarded lists (a failed attempt, a replaced projection).
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, connection, transaction

logger = logging.getLogger(__name__)

TABLE = "rankings_rankingentry"
DEFAULT_PARTITION = f"{TABLE}_default"
# The parent's indexes as they are built on one partition (``{t}`` the partition, ``{n}`` the
# list id), biggest first: writers split them among their connections in this order.
INDEX_BUILDS = (
    "CREATE UNIQUE INDEX {t}_once ON {t} (ranking_list_id, player_id) INCLUDE (rank, id)",
    "CREATE INDEX {t}_order ON {t} (ranking_list_id, rank, id) INCLUDE (player_id)",
    "CREATE UNIQUE INDEX {t}_pkey ON {t} (id, ranking_list_id)",
)
# Enough for the sorts of a million-row list in memory (the default 64 MB spills).
BUILD_MEMORY = "256MB"


def partition_name(list_id: int) -> str:
    return f"{TABLE}_l{int(list_id)}"


def partition_create(cursor: Any, list_id: int) -> str:
    """Create the (empty, unindexed, unattached) partition of list ``list_id``; return its
    name. A table of that name left by an earlier database state (ids restarted) is
    dropped first: the list is being written now, so no published list owns it."""
    name, list_id = partition_name(list_id), int(list_id)
    cursor.execute(f"DROP TABLE IF EXISTS {name}")
    cursor.execute(
        f"CREATE TABLE {name} (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS, "
        f"CONSTRAINT {name}_list CHECK (ranking_list_id = {list_id}))"
    )
    # The sequence by its oid, looked up once: ``pg_get_serial_sequence`` in the default
    # itself would be a catalogue look-up per row (it cost the COPY 2 s of CPU a million rows).
    cursor.execute(f"SELECT pg_get_serial_sequence('{TABLE}', 'id')::regclass::oid")
    (sequence,) = cursor.fetchone()
    cursor.execute(
        f"ALTER TABLE {name} ALTER COLUMN id SET DEFAULT nextval({int(sequence)}::regclass)"
    )
    return name


def entry_ids_reserve(conn: Any, count: int) -> int:
    """Draw ``count`` consecutive ids from the entries' identity sequence at once, on the
    psycopg connection ``conn`` (autocommit, outside any transaction); return the first.

    Why: the ``nextval`` default of each row cost a million-row ``COPY`` about 0.8 s of the
    server's CPU (1.48 against 0.71 s, docs/performance.md "Write"). The writer numbers
    its rows itself from the block instead, in row order as the default did.

    How: ``ALTER SEQUENCE ... INCREMENT BY count``, one ``nextval``, the increment set back
    to 1, in one short transaction. ``ALTER SEQUENCE`` and ``nextval`` lock each other out
    (PostgreSQL 10 and later), so no other session draws an id between the two
    statements: the ``count`` ids up to the one returned are this caller's alone."""
    if count < 1:
        raise ValueError(f"reserve at least one id, not {count}")
    with conn.transaction(), conn.cursor() as cursor:
        cursor.execute(f"SELECT pg_get_serial_sequence('{TABLE}', 'id')")
        (sequence,) = cursor.fetchone()
        cursor.execute(f"ALTER SEQUENCE {sequence} INCREMENT BY {int(count)}")
        cursor.execute("SELECT nextval(%s::regclass)", [sequence])
        (last,) = cursor.fetchone()
        cursor.execute(f"ALTER SEQUENCE {sequence} INCREMENT BY 1")
    return int(last) - count + 1


def index_build(conn: Any, list_id: int, statement: str, *, helpers: bool = True) -> None:
    """Build one of :data:`INDEX_BUILDS` on the list's partition, on the psycopg connection
    ``conn``, in a transaction (or savepoint) of its own with the sort memory of
    :data:`BUILD_MEMORY`. ``helpers`` False: no parallel workers (when the caller already
    builds on several connections at once, they would only compete for the same cores)."""
    with conn.transaction(), conn.cursor() as cursor:
        cursor.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
        if not helpers:
            cursor.execute("SET LOCAL max_parallel_maintenance_workers = 0")
        cursor.execute(statement.format(t=partition_name(list_id)))


def partition_attach(cursor: Any, list_id: int) -> None:
    """Make the built table the list's partition (after :data:`INDEX_BUILDS`)."""
    name, list_id = partition_name(list_id), int(list_id)
    for constraint, kind in (("pkey", "PRIMARY KEY"), ("once", "UNIQUE")):
        index = f"{name}_{constraint}"
        cursor.execute(f"ALTER TABLE {name} ADD CONSTRAINT {index} {kind} USING INDEX {index}")
    cursor.execute(f"ALTER TABLE {TABLE} ATTACH PARTITION {name} FOR VALUES IN ({list_id})")
    cursor.execute(
        f"CREATE TRIGGER {name}_immutable BEFORE INSERT OR UPDATE OR DELETE "
        f"ON {name} FOR EACH STATEMENT EXECUTE FUNCTION rankings_partition_immutable({list_id})"
    )


# The statistics target of the close's ANALYZE of a new list (PostgreSQL's default: 100).
# A list's columns are keys and near-uniform numbers (player, rank, points), which a
# sample of 3,000 rows describes as well as one of 30,000 for the pages' statements (an
# entry by player, a range of ranks); sampling 30,000 took 40 ms of the close at a quarter
# of a million entries, 3,000 took 9 (docs/performance.md). Autovacuum analyzes the new
# partition again soon after, with the server's default target.
ANALYZE_TARGET = 10


def partition_analyze(list_id: int, *, conn: Any = None) -> None:
    """Refresh the planner's statistics of the list's partition (what a page of that list
    is planned with; on the psycopg connection ``conn`` if given, else Django's), sampled
    at :data:`ANALYZE_TARGET`; the other lists' partitions are unchanged, so they are not
    sampled."""
    with (connection if conn is None else conn).cursor() as cursor:
        # (After a failed ANALYZE the setting stays on the session: it only ever samples.)
        cursor.execute(f"SET default_statistics_target = {ANALYZE_TARGET}")
        cursor.execute(f"ANALYZE {partition_name(list_id)}")
        cursor.execute("RESET default_statistics_target")


def partitions_drop(list_ids: list[int]) -> None:
    """Drop the partitions of discarded lists (their entries already deleted, or never
    published), each in a short transaction of its own: dropping a partition locks the
    parent, so it gives up after a second rather than queue the pages behind a long
    reader (the empty table then stays; it costs nothing but a name)."""
    if connection.vendor != "postgresql" or not list_ids:
        return
    for list_id in list_ids:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '1s'")
                cursor.execute(f"DROP TABLE IF EXISTS {partition_name(list_id)}")
        except DatabaseError:
            logger.warning("could not drop the partition of list %s", list_id, exc_info=True)
