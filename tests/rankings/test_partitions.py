"""PostgreSQL: each list written by the close is a partition of its own
(:mod:`rankings.partitions`), indexed like the parent, attached for its list only, and
immutable once published even when the partition itself is named."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from django.db import IntegrityError, connection, transaction

from matches import clock
from matches.audit import recording
from rankings import partitions, sql, writer
from rankings.models import RankingEntry, RankingList
from rankings.services.projection import projection_refresh
from tests.rankings.factories import close
from tests.rankings.test_projection import history
from tests.rankings.test_services_close import abcd, rows, worked_example_table  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def fetch(sql: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall()


def test_a_closed_list_is_its_own_partition_with_the_parents_indexes(club, abcd) -> None:  # noqa: F811
    worked_example_table(club, abcd)
    march = close("2026-03")
    name = partitions.partition_name(march.pk)
    bound = fetch(
        "SELECT pg_get_expr(c.relpartbound, c.oid) FROM pg_class c "
        "JOIN pg_inherits i ON i.inhrelid = c.oid "
        "WHERE i.inhparent = %s::regclass AND c.relname = %s",
        [partitions.TABLE, name],
    )
    assert bound == [(f"FOR VALUES IN ('{march.pk}')",)]
    # Each of the parent's indexes has this partition's built index as its part.
    adopted = fetch(
        "SELECT parent.relname FROM pg_inherits i "
        "JOIN pg_class child ON child.oid = i.inhrelid "
        "JOIN pg_class parent ON parent.oid = i.inhparent "
        "JOIN pg_index x ON x.indexrelid = child.oid "
        "WHERE x.indrelid = %s::regclass ORDER BY 1",
        [name],
    )
    assert adopted == [
        ("entry_list_order",),
        ("entry_once_per_list",),
        ("rankings_rankingentry_pkey",),
    ]
    assert fetch(f"SELECT count(*) FROM {name}") == [(3,)]  # noqa: S608
    assert fetch(f"SELECT count(*) FROM {partitions.DEFAULT_PARTITION}") == [(0,)]  # noqa: S608
    assert [r[:2] for r in rows(march)] == [("P-A", "10.00"), ("P-B", "5.00"), ("P-C", "5.00")]


def test_a_published_lists_partition_refuses_changes_named_directly(club, abcd) -> None:  # noqa: F811
    worked_example_table(club, abcd)
    march = close("2026-03")
    name = partitions.partition_name(march.pk)
    insert = (
        f"INSERT INTO {name} (rank, fladub_cents, results_counted, player_id, ranking_list_id) "  # noqa: S608
        f"VALUES (9, 1, 1, {abcd[3].pk}, {march.pk})"
    )
    for statement in (f"UPDATE {name} SET fladub_cents = 1", f"DELETE FROM {name}", insert):  # noqa: S608
        with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
            fetch(statement)
    assert len(rows(march)) == 3


def test_a_partition_holds_its_list_only_and_orm_rows_go_to_the_default(club, abcd) -> None:  # noqa: F811
    worked_example_table(club, abcd)
    may = {"discipline": "fido", "month": dt.date(2026, 5, 1), "version": 1}
    with recording():  # a computing list, filled by the ORM
        computing = RankingList.objects.create(**may, created_at=clock.now())
        RankingEntry.objects.create(
            ranking_list=computing, player=abcd[0], rank=1, fladub_cents=100, results_counted=1
        )
    assert fetch(f"SELECT ranking_list_id FROM {partitions.DEFAULT_PARTITION}") == [  # noqa: S608
        (computing.pk,)
    ]
    march = close("2026-03")  # attaching its partition checks the default's rows: none of it
    assert [r[0] for r in rows(march)] == ["P-A", "P-B", "P-C"]
    with connection.cursor() as cursor:  # a table being written: only its list's rows
        table = partitions.partition_create(cursor, computing.pk + 1)
    with pytest.raises(IntegrityError, match=f"{table}_list"), transaction.atomic():
        fetch(
            f"INSERT INTO {table} (rank, fladub_cents, results_counted, player_id, "  # noqa: S608
            f"ranking_list_id) VALUES (9, 1, 1, {abcd[3].pk}, {computing.pk})"
        )


def test_a_replaced_projection_leaves_no_partition_behind() -> None:
    history(5)
    first = projection_refresh(discipline="fido", now=dt.datetime(2026, 4, 20, tzinfo=dt.UTC))
    assert fetch("SELECT to_regclass(%s) IS NOT NULL", [partitions.partition_name(first.pk)]) == [
        (True,)
    ]
    second = projection_refresh(discipline="fido", now=dt.datetime(2026, 4, 21, tzinfo=dt.UTC))
    names = [partitions.partition_name(x.pk) for x in (first, second)]
    assert fetch("SELECT to_regclass(%s) IS NOT NULL, to_regclass(%s) IS NOT NULL", names) == [
        (False, True)
    ]


@pytest.mark.parametrize("streams", [1, 2, 3, 4])
def test_the_streams_build_each_index_once(streams: int) -> None:
    built = [s for stream in range(streams) for s in writer.build_share(stream, streams)]
    assert sorted(built) == sorted(partitions.INDEX_BUILDS)
    if streams > 1:  # the biggest build alone on its stream
        assert writer.build_share(0, streams) == (partitions.INDEX_BUILDS[0],)


def partitions_read(statement) -> set[str]:
    """The entry partitions the plan of ``statement`` reads (PostgreSQL ``EXPLAIN``)."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + statement.sql, statement.params)
        plan = cursor.fetchone()[0]
    found: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            name = node.get("Relation Name", "")
            if name.startswith(partitions.TABLE):
                found.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(plan)
    return found


def test_the_pages_statements_read_their_lists_partition_only() -> None:
    # Joined back by entry id alone, a page probed every list's partition per row (13
    # times the buffers with 12 lists); the opponents' strengths, probed by (list, player)
    # pairs from arrays, were planned as a probe of every partition per pair.
    history(5)
    lists = list(RankingList.objects.order_by("month").values_list("pk", flat=True))
    first, last = lists[0], lists[-1]
    own = {partitions.partition_name(last)}
    entry = RankingEntry.objects.filter(ranking_list_id=last).order_by("rank").first()
    assert entry is not None
    assert partitions_read(sql.numbered_page(last, position=1, size=10)) == own
    assert partitions_read(sql.rows_by_ids(last, [entry.pk])) == own
    assert partitions_read(sql.placed_page(last, str(entry.player_id), offset=0, limit=5)) == own
    strengths = sql.strengths_of_players({first: [entry.player_id], last: [entry.player_id]})
    assert partitions_read(strengths) == {partitions.partition_name(x) for x in (first, last)}
    found = sql.STRENGTH.rows(strengths)
    assert {(s.list_id, s.player) for s in found} >= {(last, entry.player_id)}


def test_a_new_lists_statistics_are_sampled_at_the_close_target() -> None:
    """The close's ANALYZE of a new partition samples at ``ANALYZE_TARGET`` (a histogram
    of at most that many buckets, where the server's default of 100 makes 100 of a list
    of 300 ranks), and leaves the session's setting as it found it."""
    from matches.models import Player
    from rankings import fladub

    n = 300
    players = Player.objects.bulk_create(
        Player(player_id=f"P-{i:05d}", name=f"Player {i}", country="AT") for i in range(n)
    )
    with recording():  # a computing list, as the close makes it
        attempt = RankingList.objects.create(
            discipline="fido",
            month=dt.date(2026, 3, 1),
            version=1,
            status=RankingList.Status.COMPUTING,
            created_at=clock.now(),
        )
    ranking = fladub.RankingList(
        month=0,
        player=np.array([p.pk for p in players], dtype=np.int64),
        fladub_cents=np.arange(n, 0, -1, dtype=np.int64) * 100,
        rank=np.arange(1, n + 1, dtype=np.int64),
        results_counted=np.full(n, 3, dtype=np.int64),
        previous_rank=np.zeros(n, dtype=np.int64),
    )
    before = fetch("SHOW default_statistics_target")
    assert writer.write_entries(ranking_list=attempt, ranking=ranking) == n
    writer.analyze_entries(attempt.pk)
    (bounds,) = fetch(
        "SELECT cardinality(histogram_bounds::text::int[]) FROM pg_stats "
        "WHERE tablename = %s AND attname = 'rank'",
        [partitions.partition_name(attempt.pk)],
    )[0]
    assert bounds == 11  # ten buckets, where the server's default target makes 100
    assert fetch("SHOW default_statistics_target") == before
