"""PostgreSQL: the close's writer numbers a list's entries itself, from one block of the
entries' identity sequence reserved at once (:func:`rankings.partitions.entry_ids_reserve`),
instead of a ``nextval`` per row: the block is the caller's alone, whoever else draws ids
meanwhile, and the ids follow the list's order whichever stream writes first."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from rankings import partitions
from rankings.loader import extra_connection
from rankings.models import RankingEntry
from tests.rankings.factories import close
from tests.rankings.test_close_worker import (  # noqa: F401  (fixtures)
    TARGET,
    entries,
    history,
    undisturbed,
)
from tests.rankings.test_writer_streams import second_stream_first

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NEXTVAL = "SELECT nextval(pg_get_serial_sequence(%s, 'id')::regclass)"


def draw(conn: Any) -> int:
    """One id drawn as an ORM insert draws it (the column's default)."""
    with conn.cursor() as cursor:
        cursor.execute(NEXTVAL, [partitions.TABLE])
        return int(cursor.fetchone()[0])


def test_a_block_is_the_callers_and_the_sequence_goes_on_by_one() -> None:
    before = draw(connection)
    conn = extra_connection()
    try:
        first = partitions.entry_ids_reserve(conn, 1000)
    finally:
        conn.close()
    assert first == before + 1
    assert draw(connection) == first + 1000  # after the block, one at a time again
    assert draw(connection) == first + 1001


def test_a_block_of_no_id_is_refused() -> None:
    conn = extra_connection()
    try:
        with pytest.raises(ValueError, match="at least one id"):
            partitions.entry_ids_reserve(conn, 0)
    finally:
        conn.close()


def test_blocks_and_single_draws_at_once_never_share_an_id() -> None:
    drawn: list[list[int]] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def reserve(size: int, times: int) -> None:
        conn = extra_connection()
        try:
            start.wait()
            for _ in range(times):
                first = partitions.entry_ids_reserve(conn, size)
                with lock:
                    drawn.append(list(range(first, first + size)))
        finally:
            conn.close()

    def single(times: int) -> None:
        conn = extra_connection()
        try:
            start.wait()
            ids = [draw(conn) for _ in range(times)]
            with lock:
                drawn.append(ids)
        finally:
            conn.close()

    threads = [threading.Thread(target=reserve, args=(size, 40)) for size in (500, 37, 1)]
    threads.append(threading.Thread(target=single, args=(400,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    every = [i for ids in drawn for i in ids]
    assert len(every) == 40 * (500 + 37 + 1) + 400
    assert len(set(every)) == len(every)


def test_the_entries_ids_follow_the_list_order_whichever_stream_writes_first(
    history,  # noqa: F811
    settings,
    monkeypatch,
) -> None:
    # The second stream is made to write first: with a nextval per row its rows drew the
    # lower ids, and the list read by id was out of its order.
    settings.FIDO_CLOSE_WRITE_STREAMS = 2
    expected = undisturbed(TARGET)
    second_stream_first(monkeypatch)
    published = close(TARGET)
    ids = list(
        RankingEntry.objects.filter(ranking_list=published)
        .order_by("rank", "player__player_id")
        .values_list("id", flat=True)
    )
    assert entries(published) == expected
    assert len(ids) == len(expected) > 4
    assert ids == list(range(ids[0], ids[0] + len(ids)))
    assert draw(connection) > ids[-1]
