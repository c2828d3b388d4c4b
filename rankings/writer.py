"""Stores the rows of a computed list as :class:`~rankings.models.RankingEntry` rows.

In: a :class:`~rankings.models.RankingList` (status ``computing``) and the
:class:`rankings.fladub.RankingList` computed for it. Out: the number of rows written.
The caller owns the transaction (with several streams: each stream is its own).

On PostgreSQL the list gets a partition of its own (:mod:`rankings.partitions`): a table
with no index, filled by ``COPY ... FROM STDIN (FORMAT binary)``, then indexed in sorted
builds and attached to the entries table. NumPy builds the ``COPY`` buffer whole: a tuple
is a fixed-size record except that ``previous_rank`` and ``movement`` are NULL (a length
word of -1, no data) for players new to the list, so each row is a 78-byte record of
which new players' rows keep the first 70 bytes. Outside any transaction the rows carry
their ids, a block reserved at once (:func:`rankings.partitions.entry_ids_reserve`),
numbered in row order; inside one (a projection, a close in a caller's transaction) the
record has no id (66 and 58 bytes) and the partition's default draws one per row, so
that the sequence is never locked for the length of someone's transaction. Elsewhere
``bulk_create`` in batches.
With ``streams`` > 1 the rows are split into that many contiguous slices, never inside a
tie (:func:`stream_bounds`), written by as many connections at once, which then build the
partition's indexes at once (:func:`write_entries`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import Any

import numpy as np
from django.db import connection, transaction

from . import fladub, partitions
from .loader import PGCOPY_SIGNATURE, extra_connection, in_thread, run_on_connections
from .models import RankingEntry, RankingList

ENTRY_COLUMNS = (
    "id",
    "ranking_list_id",
    "player_id",
    "rank",
    "fladub_cents",
    "results_counted",
    "previous_rank",
    "movement",
)
_RECORD = np.dtype(
    [
        ("count", ">i2"),
        ("l_id", ">i4"),
        ("id", ">i8"),
        ("l_list", ">i4"),
        ("list", ">i8"),
        ("l_player", ">i4"),
        ("player", ">i8"),
        ("l_rank", ">i4"),
        ("rank", ">i4"),
        ("l_fladub", ">i4"),
        ("fladub", ">i4"),
        ("l_counted", ">i4"),
        ("counted", ">i4"),
        ("l_previous", ">i4"),
        ("previous", ">i4"),
        ("l_movement", ">i4"),
        ("movement", ">i4"),
    ]
)
# The record without the id (the partition's default numbers the rows).
_RECORD_NO_ID = np.dtype([field for field in _RECORD.descr if field[0] not in ("l_id", "id")])
_CHUNK_BYTES = 8 * 1024 * 1024
_BATCH = 2000
logger = logging.getLogger(__name__)


def write_entries(
    *,
    ranking_list: RankingList,
    ranking: fladub.RankingList,
    streams: int = 1,
    meanwhile: Callable[[Any, str], Any] | None = None,
    analyze: bool = False,
) -> int:
    """Write the entries; ``streams`` > 1 (PostgreSQL, outside any transaction, the list
    row committed): that many ``COPY`` streams on as many connections at once, each its
    own transaction, so that the server checks the rows and builds the indexes on several
    cores. Entries committed by some streams when another fails stay in the unpublished
    list's unattached table until the next close discards them (as after a crash).

    ``meanwhile(conn, table)``: called (with several streams) once every row is in, on a
    connection of its own, in a thread, while the indexes are built; ``table`` holds the
    list's rows (its partition, not attached yet). The caller keeps what it finds (a
    closure); an error it raises is raised here, once the streams are done.

    ``analyze``: the new entries' statistics too (:func:`analyze_entries`); with several
    streams by the stream that builds its last index last, while ``meanwhile`` may still
    run (an ``ANALYZE`` waits for every index build of its table, a read does not)."""
    if connection.vendor != "postgresql":
        return _write_bulk(ranking_list, ranking)
    if streams > 1 and len(ranking) >= 2 * streams and not connection.in_atomic_block:
        return _write_parallel(ranking_list, ranking, streams, meanwhile, analyze)
    count = _write_copy(ranking_list, ranking)
    if analyze:
        analyze_entries(ranking_list.pk)
    return count


def analyze_entries(list_id: int, *, conn: Any = None) -> None:
    """Refresh the planner's statistics of list ``list_id``'s entries (PostgreSQL: its
    partition; elsewhere nothing), on the psycopg connection ``conn`` if given. Until then
    a fresh list's entries are unknown to the planner, which with autovacuum off or behind
    planned the new list's pages (a club, a name search) and the seal's CSV statement for
    an empty list: seconds a request, until an ``ANALYZE``. It runs before the seal and the
    publication."""
    if connection.vendor != "postgresql":
        return
    partitions.partition_analyze(list_id, conn=conn)


def _slice(ranking: fladub.RankingList, rows: slice) -> fladub.RankingList:
    return fladub.RankingList(
        month=ranking.month,
        player=ranking.player[rows],
        fladub_cents=ranking.fladub_cents[rows],
        rank=ranking.rank[rows],
        results_counted=ranking.results_counted[rows],
        previous_rank=ranking.previous_rank[rows],
    )


def stream_bounds(rank: Any, streams: int) -> list[int]:
    """Row positions cutting a list (ranks non-decreasing) into ``streams`` slices of
    about equal size, each cut moved back to where its rank begins: a tie is written by
    one stream, whose rows draw their ids in row order, so ``(rank, id)`` (the order the
    pages and the download read) is the list order. Cut inside a tie, the streams' ids
    interleave and that tie came back out of federation-id order."""
    n = len(rank)
    bounds = [0]
    for i in range(1, streams):
        cut = n * i // streams
        if 0 < cut < n:
            cut = int(np.searchsorted(rank, rank[cut], side="left"))
        bounds.append(max(cut, bounds[-1]))
    return [*bounds, n]


def _write_parallel(
    ranking_list: RankingList,
    ranking: fladub.RankingList,
    streams: int,
    meanwhile: Callable[[Any, str], Any] | None = None,
    analyze: bool = False,
) -> int:
    n = len(ranking)
    bounds = stream_bounds(ranking.rank, streams)
    parts = [_slice(ranking, slice(lo, hi)) for lo, hi in itertools.pairwise(bounds)]
    started = time.perf_counter()
    connection.ensure_connection()  # before the extras: a failure here leaves none open
    raw: Any = connection.connection
    with raw.cursor() as cursor:  # committed (autocommit) before the streams write into it
        table = partitions.partition_create(cursor, ranking_list.pk)
    first_id = partitions.entry_ids_reserve(raw, n)
    extras = [extra_connection() for _ in range(streams - 1)]
    marks: dict[str, float] = {}
    side: list[Future[Any]] = []  # ``meanwhile``, started once every row is in

    def start_meanwhile() -> None:
        side.append(
            in_thread(
                lambda: _on_own_connection(meanwhile, table, marks), name="fido-write-meanwhile"
            )
        )

    copied = threading.Barrier(streams, action=None if meanwhile is None else start_meanwhile)
    built = threading.Barrier(streams)

    def work(stream: int, conn: Any, _failed: object) -> None:
        try:
            _copy_slice(conn, ranking_list.pk, parts[stream], table, first_id + bounds[stream])
        except BaseException:
            copied.abort()  # the others stop waiting and build nothing
            raise
        try:
            copied.wait()
        except threading.BrokenBarrierError:
            return  # another stream failed: its error is the one raised
        marks["copied"] = time.perf_counter()
        _build_share(conn, ranking_list.pk, stream, built, analyze=analyze, marks=marks)

    # Django's connection (autocommit: one transaction) writes the first part.
    try:
        run_on_connections(raw, extras, work)
    finally:
        wait(side)  # its error, if any, is raised below, not in place of the streams'
    for done in side:
        done.result()
    with raw.transaction(), raw.cursor() as cursor:
        partitions.partition_attach(cursor, ranking_list.pk)
    times = sorted(marks.items(), key=lambda mark: mark[1])
    logger.info(
        "wrote %d entries of list %s in %d streams: %.2f s (%s)",
        *(n, ranking_list.pk, streams, time.perf_counter() - started),
        ", ".join(f"{what} at {at - started:.2f}" for what, at in times),
    )
    return n


def _build_share(
    conn: Any,
    list_id: int,
    stream: int,
    built: threading.Barrier,
    *,
    analyze: bool,
    marks: dict[str, float],
) -> None:
    """Stream ``stream``'s index builds (:func:`build_share`); then, with ``analyze``, one
    stream analyses the partition once every stream's builds are done (``built``)."""
    try:
        for statement in build_share(stream, built.parties):
            partitions.index_build(conn, list_id, statement, helpers=False)
    except BaseException:
        built.abort()  # the others stop waiting
        raise
    marks[f"built {stream}"] = time.perf_counter()
    try:
        last = built.wait() == 0
    except threading.BrokenBarrierError:
        return  # another stream failed: its error is the one raised
    if analyze and last:
        analyze_entries(list_id, conn=conn)
        marks["analyzed"] = time.perf_counter()


def _on_own_connection(
    meanwhile: Callable[[Any, str], Any] | None, table: str, marks: dict[str, float]
) -> None:
    conn = extra_connection()
    try:
        assert meanwhile is not None  # noqa: S101
        meanwhile(conn, table)
        marks["meanwhile"] = time.perf_counter()
    finally:
        conn.close()


def build_share(stream: int, streams: int) -> tuple[str, ...]:
    """The index builds stream ``stream`` of ``streams`` runs once every row is in: the
    biggest (the first of :data:`rankings.partitions.INDEX_BUILDS`) alone on stream 0, the
    others dealt out among the other streams (all on stream 0 when it is the only one)."""
    first, rest = partitions.INDEX_BUILDS[0], partitions.INDEX_BUILDS[1:]
    if streams == 1:
        return partitions.INDEX_BUILDS
    if stream == 0:
        return (first,)
    return rest[stream - 1 :: streams - 1]


def _copy_slice(
    conn: Any, list_id: int, part: fladub.RankingList, table: str, first_id: int
) -> None:
    """``COPY`` one stream's slice of the list into ``table``, its rows numbered from
    ``first_id`` in row order."""
    _copy(conn, binary_copy_buffer(list_id, part, first_id=first_id), table, ids=True)


def _copy(conn: Any, buffer: bytes, table: str, *, ids: bool) -> None:
    """``COPY`` the whole ``buffer`` (:func:`binary_copy_buffer`; ``ids``: its records
    carry the id) into ``table``, in blocks."""
    stream = memoryview(buffer)
    columns = ENTRY_COLUMNS if ids else ENTRY_COLUMNS[1:]
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT binary)"
    with conn.cursor() as cursor, cursor.copy(statement) as copy:
        for start in range(0, len(stream), _CHUNK_BYTES):
            copy.write(stream[start : start + _CHUNK_BYTES])


def binary_copy_buffer(
    list_id: int, ranking: fladub.RankingList, *, first_id: int | None = None
) -> bytes:
    """The whole ``COPY ... FROM STDIN (FORMAT binary)`` stream of the list's entries:
    with ``first_id``, the rows' ids are ``first_id``, ``first_id + 1``, ... in row order
    (the columns :data:`ENTRY_COLUMNS`), else they have none (the columns after ``id``)."""
    n = len(ranking)
    dtype = _RECORD_NO_ID if first_id is None else _RECORD
    records = np.empty(n, dtype=dtype)
    records["count"] = len(ENTRY_COLUMNS) - (first_id is None)
    if first_id is not None:
        records["l_id"] = 8
        records["id"] = np.arange(first_id, first_id + n, dtype=np.int64)
    for length_field, size in (
        ("l_list", 8),
        ("l_player", 8),
        ("l_rank", 4),
        ("l_fladub", 4),
        ("l_counted", 4),
        ("l_movement", 4),
    ):
        records[length_field] = size
    records["list"] = list_id
    records["player"] = ranking.player
    records["rank"] = ranking.rank
    records["fladub"] = ranking.fladub_cents
    records["counted"] = ranking.results_counted
    new = ranking.is_new
    records["l_previous"] = np.where(new, -1, 4)
    # For a new player the bytes of ``previous`` are the NULL length word of ``movement``.
    records["previous"] = np.where(new, -1, ranking.previous_rank)
    records["movement"] = ranking.movement
    rows = records.view(np.uint8).reshape(n, dtype.itemsize)
    if new.any():
        # A new player's row ends after the two NULL length words following results_counted.
        keep = np.ones(rows.shape, dtype=bool)
        keep[new, dtype.fields["previous"][1] + 4 :] = False  # type: ignore[index]
        body = rows[keep].tobytes()
    else:
        body = rows.tobytes()
    header = PGCOPY_SIGNATURE + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
    return header + body + b"\xff\xff"


def _write_copy(ranking_list: RankingList, ranking: fladub.RankingList) -> int:
    connection.ensure_connection()
    raw: Any = connection.connection
    started = time.perf_counter()
    # Outside a transaction the ids are reserved at once (and the lock that takes ends at
    # once); inside one, the partition's default draws them.
    first_id = (
        None
        if connection.in_atomic_block or not len(ranking)
        else partitions.entry_ids_reserve(raw, len(ranking))
    )
    buffer = binary_copy_buffer(ranking_list.pk, ranking, first_id=first_id)
    built = time.perf_counter()
    with transaction.atomic():  # one transaction, or a savepoint in the caller's
        with raw.cursor() as cursor:
            table = partitions.partition_create(cursor, ranking_list.pk)
        _copy(raw, buffer, table, ids=first_id is not None)
        copied = time.perf_counter()
        for statement in partitions.INDEX_BUILDS:
            partitions.index_build(raw, ranking_list.pk, statement)
        with raw.cursor() as cursor:
            partitions.partition_attach(cursor, ranking_list.pk)
    logger.info(
        "wrote %d entries of list %s: buffer %.2f s, COPY %.2f s, indexes %.2f s",
        len(ranking),
        ranking_list.pk,
        built - started,
        copied - built,
        time.perf_counter() - copied,
    )
    return len(ranking)


def _write_bulk(ranking_list: RankingList, ranking: fladub.RankingList) -> int:
    new = ranking.is_new.tolist()
    movement = ranking.movement.tolist()
    previous = ranking.previous_rank.tolist()
    entries = [
        RankingEntry(
            ranking_list=ranking_list,
            player_id=player,
            rank=rank,
            fladub_cents=cents,
            results_counted=counted,
            previous_rank=None if is_new else prev,
            movement=None if is_new else move,
        )
        for player, rank, cents, counted, prev, move, is_new in zip(
            ranking.player.tolist(),
            ranking.rank.tolist(),
            ranking.fladub_cents.tolist(),
            ranking.results_counted.tolist(),
            previous,
            movement,
            new,
            strict=True,
        )
    ]
    RankingEntry.objects.bulk_create(entries, batch_size=_BATCH)
    return len(entries)
