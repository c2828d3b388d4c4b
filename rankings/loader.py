"""The close's raw reader: a month's window of results, whole published lists and the
player order, as NumPy arrays, through PostgreSQL's binary ``COPY``.

In: a discipline and the month R of the list L(R), or the ids of published lists. Out:

- :func:`window_sides` (:class:`rankings.fladub.Sides`): every result of the window, the
  condition of :func:`rankings.sql.window_condition` (the one definition of "counting in
  L(R)"); the player is the ``Player`` primary key (a dense serial, as fladub wants);
- :func:`whole_lists`: published lists in integer cents (the strength lists of
  :func:`rankings.selectors.strength_lists.strength_lists` read whole);
- :func:`player_order`: each player's position in federation-id order (``P-000123``,
  compared as code points, ``COLLATE "C"``), the tie-break within a shared rank;
  :func:`player_order_later` reads it in the background, in the caller's snapshot, on a
  connection of its own (:func:`read_copy_later`), while the close computes.

Two paths give the same arrays. On PostgreSQL the rows travel as ``COPY ... TO STDOUT
(FORMAT binary)``: the raw protocol messages are appended to one buffer and parsed with
a single ``np.frombuffer`` (every field is fixed-width and NOT NULL, so a tuple is a
fixed-size record), never row by row in Python; the window's records are checked and
copied into columns block by block as they arrive, while the rest is still being read
(the raw stream is never held whole). ``streams``
connections read disjoint block ranges of the table in parallel, all inside one exported
snapshot, so they see exactly what a single reader would. Elsewhere (SQLite) the same statements of
:mod:`rankings.sql` feed NumPy. The caller owns the transaction (and its snapshot):
:func:`rankings.selectors.window.window` reads everything in one.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import select
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

from matches.models import Player, SideMember
from matches.months import Month

from . import fladub, sql
from .models import RankingEntry

I64 = npt.NDArray[np.int64]
logger = logging.getLogger(__name__)

PGCOPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
# PostgreSQL dates are days since 2000-01-01; NumPy's since 1970-01-01.
_PG_EPOCH_DAYS = 10957
_EPOCH_MONTH_INDEX = 1970 * 12
_MAX_DAY_SPAN = 1 << 16  # days (180 years): a longer span is converted row by row
_PARSE_BLOCK = 1 << 15  # records (2 MB of the window's) checked and copied at a time
_FLUSH_BYTES = 1 << 20  # the least block _drain_copy hands on (but the last)

# The binary types of sql.WINDOW_SIDE_COLUMNS (NumPy big-endian codes; dates are int32).
_SIDE_TYPES = {
    "match_id": ">i8",
    "month_played": ">i4",
    "counting_month": ">i4",
    "base": ">i2",
    "side_position": ">i2",
    "score": ">i4",
    "player_id": ">i8",
}
SIDE_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (name, _SIDE_TYPES[name]) for name in sql.WINDOW_SIDE_COLUMNS
)


def record_dtype(columns: Iterable[tuple[str, str]]) -> np.dtype[Any]:
    """The record of one binary COPY tuple of fixed-width, NOT NULL ``columns``: a field
    count, then a length word and the value of each column (big-endian)."""
    fields: list[tuple[str, str]] = [("_count", ">i2")]
    for name, code in columns:
        fields += [(f"_len_{name}", ">i4"), (name, code)]
    return np.dtype(fields)


_SIDE_RECORD = record_dtype(SIDE_COLUMNS)


def uses_copy() -> bool:
    return connection.vendor == "postgresql"


def one_snapshot() -> None:
    """Make the transaction just begun ``REPEATABLE READ, READ ONLY`` (PostgreSQL): every
    statement in it, and every connection that imports its snapshot, sees the same data."""
    with connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")


# --- the window's results -------------------------------------------------------------------


def window_sides(
    *,
    discipline: str,
    month: Month,
    streams: int = 2,
    portable: bool = False,
    shard: tuple[int, int] | None = None,
    basis: sql.ErratumBasis | None = None,
) -> fladub.Sides:
    """Every result counting in L(month), in (match, side, player) order; with ``shard``
    = (w, n), only the whole matches of the players of shard w of n (``player % n == w``);
    with ``basis``, an erratum's window instead (:func:`rankings.sql.erratum_condition`),
    each result counting in ``month`` at the latest (a correction made after the month's
    close counts where the result it replaces counted)."""
    if portable or not uses_copy():
        sides = _sides_portable(discipline, month, basis)
        sides = sides if shard is None else fladub.sides_for_worker(sides, *shard)
    else:
        sides = canonical(_sides_copy(discipline, month, max(1, streams), shard, basis))
    if basis is None:
        return sides
    counted = np.minimum(sides.counting_month, month.index).astype(np.int32)
    return dataclasses.replace(sides, counting_month=counted)


def canonical(sides: fladub.Sides) -> fladub.Sides:
    """The rows in (match, side, player) order, the order fladub sums in (the rows of
    :func:`_canonical_order`)."""
    if sides.is_canonical():
        return sides
    return sides.take(_canonical_order(sides))


def _canonical_order(sides: fladub.Sides) -> I64:
    """The permutation that puts the rows in (match, side, player) order.

    ``COPY`` hands rows over in the table's physical order: the order of insertion, except
    for rows rewritten since (a void updates its match's rows, which move). So the rows are
    nearly sorted, and a stable sort (timsort) on one packed key (match << 4 | side: a side
    number is at most 9) takes a fraction of a second where a three-key ``lexsort`` takes
    ten at 12 million rows. Only the members of a team then need ordering by player.
    """
    key = (sides.match_id << 4) | sides.side_no.astype(np.int64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    team = np.flatnonzero(key[1:] == key[:-1])
    if len(team):
        rows = np.union1d(team, team + 1)
        within = np.lexsort((sides.player[order[rows]], key[rows]))
        order[rows] = order[rows][within]
    return order


def _sides_portable(
    discipline: str, month: Month, basis: sql.ErratumBasis | None = None
) -> fladub.Sides:
    rows = sql.fetch(sql.window_sides(discipline, month, basis))
    if not rows:
        return fladub.Sides.empty()
    column = dict(zip(sql.WINDOW_SIDE_COLUMNS, zip(*rows, strict=True), strict=True))
    as_date = sql.converter(SideMember, "month_played")
    return fladub.Sides(
        match_id=np.array(column["match_id"], dtype=np.int64),
        month_played=np.array(
            [Month.of(as_date(d)).index for d in column["month_played"]], np.int32
        ),
        counting_month=np.array(
            [Month.of(as_date(d)).index for d in column["counting_month"]], np.int32
        ),
        base=np.array(column["base"], dtype=np.float64),
        side_no=np.array(column["side_position"], dtype=np.int16),
        score=np.array(column["score"], dtype=np.float64),
        player=np.array(column["player_id"], dtype=np.int64),
    )


def _sides_copy(
    discipline: str,
    month: Month,
    streams: int,
    shard: tuple[int, int] | None = None,
    basis: sql.ErratumBasis | None = None,
) -> fladub.Sides:
    columns = ", ".join(name for name, _ in SIDE_COLUMNS)
    condition, params = sql.window_where(discipline, month, basis)
    if shard is not None:
        condition = f"{condition} AND {sql.shard_condition()}"
        params = {**params, "shard": int(shard[0]), "shards": int(shard[1])}
    where = _literal_where(condition, params)
    query = f"SELECT {columns} FROM {SideMember._meta.db_table} WHERE {where}"  # noqa: S608
    return fladub.Sides(**_ranged_read(query, streams, with_void=False))


def _ranged_read(query: str, streams: int, *, with_void: bool) -> dict[str, Any]:
    """The rows of ``query`` (on the results table) as native columns, read in ``streams``
    ranges of the table's blocks at once (one ``COPY`` each, in one snapshot), each parsed
    as it arrives (:class:`_SideStream`)."""
    pages, per_page = _relation_pages(SideMember._meta.db_table)
    bounds = [pages * i // streams for i in range(streams)] + [pages + 1]
    queries: list[str] = []
    readers: list[_SideStream] = []
    for low, high in itertools.pairwise(bounds):
        pages_read = f"AND ctid >= '({low},0)'::tid AND ctid < '({high},0)'::tid"
        queries.append(query if streams == 1 else f"{query} {pages_read}")
        # The first stream's columns have room for every stream's rows (see below).
        capacity = ((high - low) if readers else pages + 1) * per_page
        readers.append(_SideStream(capacity=capacity, with_void=with_void))
    record = _FRESH_RECORD if with_void else _SIDE_RECORD
    drain_copies(
        [f"COPY ({q}) TO STDOUT (FORMAT binary)" for q in queries],
        [reader.feed for reader in readers],
        block_bytes=_PARSE_BLOCK * record.itemsize,
    )
    total = sum(reader.rows for reader in readers)
    head, *tail = readers
    out: dict[str, Any] = {}
    for name in _FRESH_OUT if with_void else _SIDE_OUT:
        # The other streams' rows are copied after the first stream's, in its columns,
        # column by column, each stream's column freed as soon as it is copied.
        out[name] = column = head.take(name, rows=total)
        start = head.rows
        for reader in tail:
            part = reader.take(name)
            column[start : start + len(part)] = part
            start += len(part)
            del part
    return out


def fresh_sides_and_packs(
    *,
    discipline: str,
    month: Month,
    condition: str,
    params: dict[str, Any],
    pack_statements: list[str],
    pack_sinks: list[Callable[[Any], None]],
    streams: int,
) -> tuple[fladub.Sides, npt.NDArray[np.int32]]:
    """The window's results that also meet ``condition`` (:mod:`rankings.result_packs`:
    those no pack holds), in canonical order, with their void months (month index, or
    :data:`NO_VOID`); meanwhile, on the other connections, the packs' ``COPY``
    statements drained into their sinks, message by message. With no pack, the rows are
    read in ``streams`` ranges of the table's blocks, as :func:`window_sides` does; with
    packs, in one statement (the rows of one month or two: PostgreSQL finds them by index)
    while the packs travel on the other connections, as one row of arrays (``array_agg``
    of each column, in one pass, so they stand in the same order): a message per row
    would cost this process a loop turn per result, where the arrays are read by NumPy at
    once (a million results: 0.8 s against 1.6 s, on the reference machine while loaded)."""
    window, window_params = sql.window_where(discipline, month)
    where = _literal_where(f"{window} AND {condition}", {**window_params, **params})
    columns = ", ".join([name for name, _ in SIDE_COLUMNS] + [_FRESH_SELECT])
    query = f"SELECT {columns} FROM {SideMember._meta.db_table} WHERE {where}"  # noqa: S608
    if not pack_statements:
        return _fresh_sides(_ranged_read(query, max(1, streams), with_void=True))
    arrays = _ArraysSink()
    drain_copies(
        [_arrays_copy(query), *pack_statements],
        [arrays.feed, *pack_sinks],
        streams=max(1, streams),
        block_bytes=0,
        settings=["SET LOCAL jit = off"],
    )
    return _fresh_sides(arrays.columns())


def _fresh_sides(out: dict[str, Any]) -> tuple[fladub.Sides, npt.NDArray[np.int32]]:
    void = out.pop("void_month")
    void[void == out["counting_month"]] = NO_VOID
    sides = fladub.Sides(**out)
    if sides.is_canonical():
        return sides, void
    order = _canonical_order(sides)
    del sides
    # Column by column, each let go of as soon as its permuted copy is made: the rows are
    # held once and one column more, not twice (the first close after the result packs'
    # upgrade reads 12 million rows here: 0.5 GB less at its peak).
    for name in out:
        out[name] = out[name][order]
    return fladub.Sides(**out), void[order]


class _ArraysSink:
    """One row of arrays (``array_agg`` of each of :data:`FRESH_COLUMNS`, in binary
    ``COPY``), collected message by message, read into the native columns of
    :data:`_FRESH_OUT` (dates as month indices)."""

    def __init__(self) -> None:
        self._messages: list[Any] = []

    def feed(self, message: Any) -> None:
        self._messages.append(message)

    def columns(self) -> dict[str, Any]:
        stream = memoryview(b"".join(self._messages))
        self._messages = []
        at = header_length(stream)
        if int.from_bytes(stream[at : at + 2], "big", signed=True) != len(FRESH_COLUMNS):
            raise ValueError("unexpected field count in binary COPY stream")
        at += 2
        out: dict[str, Any] = {}
        for (key, (_, dtype)), (_, code) in zip(_FRESH_OUT.items(), FRESH_COLUMNS, strict=True):
            values, at = _binary_array(stream, at, code)
            date = dtype is np.int32
            out[key] = pg_dates_to_month_index(values) if date else values.astype(dtype)
        if bytes(stream[at:]) != b"\xff\xff":
            raise ValueError("binary COPY stream of arrays goes on after its row")
        return out


def _binary_array(stream: memoryview, at: int, code: str) -> tuple[Any, int]:
    """The values of the one-dimensional array without NULLs at ``at`` of a binary
    ``COPY`` tuple (its field length word first; a NULL field is an empty array), and
    the position after it."""
    length = int.from_bytes(stream[at : at + 4], "big", signed=True)
    at += 4
    if length < 0:
        return np.zeros(0, dtype=code), at
    end = at + length
    head = np.frombuffer(stream, dtype=">i4", count=3, offset=at)
    ndim, has_null = int(head[0]), int(head[1])
    if ndim == 0:
        return np.zeros(0, dtype=code), end
    if ndim != 1 or has_null:
        raise ValueError("a column's array is not one-dimensional without NULLs")
    size = int(np.frombuffer(stream, dtype=">i4", count=1, offset=at + 12)[0])
    element = np.dtype([("length", ">i4"), ("value", code)])
    items = np.frombuffer(stream, dtype=element, count=size, offset=at + 20)
    if at + 20 + size * element.itemsize != end:
        raise ValueError("a column's array is not of fixed-width values")
    if not (items["length"] == np.dtype(code).itemsize).all():
        raise ValueError("a column's array holds a value of another width (a NULL?)")
    return items["value"], end


# Sides' column -> (the COPY column, its native dtype).
_SIDE_OUT: dict[str, tuple[str, Any]] = {
    "match_id": ("match_id", np.int64),
    "month_played": ("month_played", np.int32),
    "counting_month": ("counting_month", np.int32),
    "base": ("base", np.float64),
    "side_no": ("side_position", np.int16),
    "score": ("score", np.float64),
    "player": ("player_id", np.int64),
}


NO_VOID = -1
"""The void month of a result not voided (:mod:`rankings.result_packs`' format)."""
# The rows a close reads besides its packs carry their void month too (a pack keeps it):
# COALESCE(void_effective_month, counting_month), since a result of the window voided at
# all is voided after the month (void > R >= counting month), so "equal" means "none".
FRESH_COLUMNS: tuple[tuple[str, str], ...] = (*SIDE_COLUMNS, ("void_month", ">i4"))
_FRESH_RECORD = record_dtype(FRESH_COLUMNS)
_FRESH_OUT = {**_SIDE_OUT, "void_month": ("void_month", np.int32)}
_FRESH_SELECT = "COALESCE(void_effective_month, counting_month) AS void_month"


class _SideStream:
    """One stream's rows of the window, parsed block by block while the rows still arrive.

    :func:`drain_copies` hands :meth:`feed` the stream's bytes in blocks of whole protocol
    messages: the first block begins with the binary COPY header, the last one ends with
    the trailer (a message of its own), every other message is one fixed-size record. Each
    block is checked (:func:`check_binary_records`) and copied into native columns at once,
    so the raw stream (some 60 bytes a row) is never held whole and its parsing overlaps
    the reading of the rest.

    The columns are allocated for ``capacity`` rows (as many as the pages read can hold;
    the first stream's for every stream's, so that the others' rows are copied after its
    own and its columns are the window's): memory the kernel only provides where rows
    are written, so that no column is ever reallocated or pieced together (freed pieces
    fragment the heap, and the process's peak grows by the columns' size). More rows
    than that (impossible for a table's page range) would grow the columns."""

    def __init__(self, capacity: int, *, with_void: bool = False) -> None:
        self.rows = 0
        self._header_seen = False
        self._trailer_seen = False
        self._record, self._spec, self._out = (
            (_FRESH_RECORD, FRESH_COLUMNS, _FRESH_OUT)
            if with_void
            else (_SIDE_RECORD, SIDE_COLUMNS, _SIDE_OUT)
        )
        self._columns = {name: np.empty(capacity, dtype) for name, (_, dtype) in self._out.items()}

    def feed(self, block: bytearray) -> None:
        view = memoryview(block)
        if not self._header_seen:
            view = view[header_length(view) :]
            self._header_seen = True
        if self._trailer_seen:
            raise ValueError("binary COPY stream goes on after its trailer")
        size = self._record.itemsize
        if len(view) % size == 2 and bytes(view[-2:]) == b"\xff\xff":
            view, self._trailer_seen = view[:-2], True
        if len(view) % size:
            raise ValueError("binary COPY stream is not made of fixed-size tuples (a NULL?)")
        records = np.frombuffer(view, dtype=self._record)
        self._reserve(self.rows + len(records))
        for low in range(0, len(records), _PARSE_BLOCK):
            part = records[low : low + _PARSE_BLOCK]
            check_binary_records(part, self._spec)
            rows = slice(self.rows, self.rows + len(part))
            for name, (column, dtype) in self._out.items():
                if dtype is np.int32:  # a date
                    pg_dates_to_month_index(part[column], self._columns[name][rows])
                else:
                    self._columns[name][rows] = part[column]
            self.rows += len(part)

    def _reserve(self, rows: int) -> None:
        for name, column in self._columns.items():
            if len(column) < rows:
                grown = np.empty(max(rows, 2 * len(column)), dtype=column.dtype)
                grown[: self.rows] = column[: self.rows]
                self._columns[name] = grown

    def take(self, name: str, rows: int | None = None) -> Any:
        """The column's rows (once: the stream lets go of it); with ``rows``, its first
        ``rows`` slots, the stream's rows first (the column grown when it has fewer)."""
        if not self._trailer_seen:
            raise ValueError("binary COPY stream without its trailer")
        if rows is not None:
            self._reserve(rows)
        return self._columns.pop(name)[: self.rows if rows is None else rows]


def player_sides(statement: sql.Statement) -> dict[str, Any]:
    """The rows of :func:`rankings.sql.player_match_sides_columns` (PostgreSQL) as native
    columns, by the names of :class:`rankings.fladub.Sides` plus ``void_month`` (dates as
    month indices): one binary ``COPY`` on Django's connection of one row of arrays
    (``array_agg`` of each column, as :func:`fresh_sides_and_packs` reads the rows no pack
    holds), read by NumPy at once. A busy player's 6,579 rows: no Python object per value,
    and no loop turn per row (the rows as tuples of dates and ints cost more CPU than the
    statement itself)."""
    connection.ensure_connection()
    query = _literal_where(statement.sql, dict(statement.params))
    arrays = _ArraysSink()
    _drain_copy(connection.connection, _arrays_copy(query), arrays.feed, block_bytes=0)
    return arrays.columns()


def _arrays_copy(query: str) -> str:
    """A binary ``COPY`` of one row: each of :data:`FRESH_COLUMNS` of ``query``'s rows as an
    array (``array_agg`` in one pass, so the arrays stand in the same order), what
    :class:`_ArraysSink` reads."""
    aggregated = ", ".join(f"array_agg({name})" for name, _ in FRESH_COLUMNS)
    return f"COPY (SELECT {aggregated} FROM ({query}) r) TO STDOUT (FORMAT binary)"  # noqa: S608


def pg_dates_to_month_index(
    days: npt.NDArray[Any], out: npt.NDArray[np.int32] | None = None
) -> npt.NDArray[np.int32]:
    """PostgreSQL binary dates (days since 2000-01-01) -> month indices (year * 12 + m - 1),
    into ``out`` when given.

    The dates of a window span a few hundred days: the calendar is worked out once per day
    of that span (a small table) and every row is one lookup in it, where converting each
    row through ``datetime64[D]`` and ``datetime64[M]`` costs several passes, one of them
    slow (about 1 s for the two date columns of 12 million rows, against 0.1 s)."""
    native = days.astype(np.int32)  # big-endian and strided -> native, contiguous
    if out is None:
        out = np.empty(len(native), dtype=np.int32)
    if not len(native):
        return out
    low, high = int(native.min()), int(native.max())
    if high - low > _MAX_DAY_SPAN:  # not a window's dates: convert row by row
        out[:] = _month_index_of_days(native.astype(np.int64))
        return out
    table = _month_index_of_days(np.arange(low, high + 1, dtype=np.int64))
    native -= low
    # mode="clip": every index lies in the table; "raise" would buffer the whole output.
    return np.take(table, native, out=out, mode="clip")


def _month_index_of_days(days: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
    as_days = (days + _PG_EPOCH_DAYS).astype("datetime64[D]")
    months = as_days.astype("datetime64[M]").astype(np.int64) + _EPOCH_MONTH_INDEX
    return months.astype(np.int32)


def _literal_where(template: str, params: dict[str, Any]) -> str:
    """Bind parameters client-side (COPY takes no server-side parameters), safely quoted."""
    from psycopg import sql

    raw = connection.connection
    assert raw is not None  # noqa: S101 - ensure_connection() ran
    literals = {key: sql.Literal(value).as_string(raw) for key, value in params.items()}
    return template % literals


def _relation_pages(table: str) -> tuple[int, int]:
    """The table's size in pages and the most tuples a page can hold (PostgreSQL's
    ``MaxHeapTuplesPerPage``: a page header of 24 bytes, then per tuple a 4-byte line
    pointer and a header of at least 24 bytes)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size(%s::regclass) / current_setting('block_size')::int, "
            "(current_setting('block_size')::int - 24) / 28",
            [table],
        )
        pages, per_page = cursor.fetchone()
    return int(pages), int(per_page)


# --- raw binary COPY --------------------------------------------------------------------------


def read_copies(statements: list[str], streams: int | None = None) -> list[bytearray]:
    """Run ``COPY ... TO STDOUT`` statements on ``streams`` connections in parallel (default:
    one per statement): Django's, in its transaction, and extra ones that import its
    snapshot, so that every statement sees the same data. Results in statement order."""
    results = [bytearray() for _ in statements]

    def keeper(index: int) -> Callable[[bytearray], None]:
        def keep(whole: bytearray) -> None:  # called once: block_bytes is None
            results[index] = whole

        return keep

    drain_copies(statements, [keeper(i) for i in range(len(statements))], streams=streams)
    return results


def drain_copies(
    statements: list[str],
    sinks: list[Callable[[bytearray], None]],
    *,
    streams: int | None = None,
    block_bytes: int | None = None,
    settings: Sequence[str] = (),
) -> None:
    """:func:`read_copies`, each statement's bytes handed to its sink as they arrive: in
    blocks of whole protocol messages of at least ``block_bytes`` (:func:`_drain_copy`),
    or with ``block_bytes`` None whole, in one call, or with 0 message by message, each
    as libpq's buffer (no copy). A sink runs in the thread
    that reads its statement, while the other streams go on reading. ``settings``:
    statements run on every connection first (``SET LOCAL ...``: for its transaction)."""
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None  # noqa: S101
    count = len(statements)
    workers = count if streams is None else max(1, min(streams, count))

    def drain(conn: Any, index: int) -> None:
        _drain_copy(conn, statements[index], sinks[index], block_bytes=block_bytes)

    for setting in settings:
        with raw.cursor() as cursor:
            cursor.execute(setting)

    if workers <= 1:
        for index in range(count):
            drain(raw, index)
        return
    snapshot = _export_snapshot(raw)
    pending = iter(range(count))
    lock = threading.Lock()
    extras = [extra_connection() for _ in range(workers - 1)]

    def work(_stream: int, conn: Any, failed: threading.Event) -> None:
        while not failed.is_set():
            with lock:
                index = next(pending, None)
            if index is None:
                return
            drain(conn, index)

    def prepare() -> None:
        for extra in extras:
            _import_snapshot(extra, snapshot)
            for setting in settings:
                extra.execute(setting)

    run_on_connections(raw, extras, work, prepare=prepare)


def run_on_connections(
    main: Any,
    extras: list[Any],
    work: Callable[[int, Any, threading.Event], None],
    *,
    prepare: Callable[[], None] | None = None,
) -> None:
    """Call ``work(stream, conn, failed)`` for each connection at once: ``main`` (stream 0)
    in this thread, each of ``extras`` (streams 1, 2, ...) in a thread of its own. After
    ``prepare`` (if any) ran; ``failed`` is set as soon as one call raised, so that the
    others may stop early. Waits for all, closes ``extras`` (also if ``prepare`` failed)
    and raises, in this thread, the first error any call raised. The parallel readers
    here and the parallel writers of :mod:`rankings.writer` share it."""
    errors: list[BaseException] = []
    failed = threading.Event()

    def run(stream: int, conn: Any) -> None:
        try:
            work(stream, conn, failed)
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)
            failed.set()

    try:
        if prepare is not None:
            prepare()
        threads = [
            threading.Thread(target=run, args=(stream, extra), daemon=True)
            for stream, extra in enumerate(extras, start=1)
        ]
        for thread in threads:
            thread.start()
        run(0, main)
        for thread in threads:
            thread.join()
    finally:
        for extra in extras:
            extra.close()
    if errors:
        raise errors[0]


def _export_snapshot(raw: Any) -> str:
    with raw.cursor() as cursor:
        cursor.execute("SELECT pg_export_snapshot()")
        row = cursor.fetchone()
        assert row is not None  # noqa: S101
        return str(row[0])


def _import_snapshot(extra: Any, snapshot: str) -> None:
    extra.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    extra.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")


def read_copy_later(statement: str, parse: Callable[[bytearray], Any]) -> Future[Any]:
    """Start ``statement`` (a ``COPY ... TO STDOUT``) on an extra connection in the snapshot
    of the caller's transaction (PostgreSQL, the outermost, ``REPEATABLE READ`` one: see
    :func:`one_snapshot`), drained in a thread; the future holds ``parse(bytes)``.

    The snapshot is imported before this returns, so the caller may end its transaction at
    once: the extra connection keeps seeing the same data. The connection closes when the
    read ends, whether or not anyone waits for the result."""
    connection.ensure_connection()
    snapshot = _export_snapshot(connection.connection)
    extra = extra_connection()
    try:
        _import_snapshot(extra, snapshot)
    except BaseException:
        extra.close()
        raise

    def read() -> Any:
        try:
            return parse(_read_copy(extra, statement))
        finally:
            extra.close()

    return in_thread(read, name="fido-copy-later")


def in_thread(work: Callable[[], Any], *, name: str) -> Future[Any]:
    """``work()`` in a thread of its own (a daemon: it never holds the process up); the
    future holds what it returns or raises."""
    future: Future[Any] = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:  # handed to whoever waits
            future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def extra_connection() -> Any:
    """A new autocommit psycopg connection with Django's connection parameters (the
    parallel readers here, the parallel writers of :mod:`rankings.writer`)."""
    import psycopg

    params = connection.get_connection_params()
    for key in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(key, None)
    return psycopg.connect(**params, autocommit=True)


def _read_copy(conn: Any, statement: str) -> bytearray:
    """The raw bytes of a ``COPY ... TO STDOUT``: the protocol's messages, appended (the
    whole output of :func:`_drain_copy`, one block)."""
    blocks: list[bytearray] = []
    _drain_copy(conn, statement, blocks.append, block_bytes=None)
    return blocks[0] if blocks else bytearray()


def _copy_finish(conn: Any, copy: Any, nbytes: int) -> None:
    """End a COPY TO drained from libpq: raise the server's error if it failed (``nbytes``
    -2, or a result other than COMMAND_OK), else collect its results and close ``copy``.
    :func:`_drain_copy` calls it."""
    from psycopg import errors as pg_errors
    from psycopg import generators
    from psycopg.pq import ExecStatus

    pgconn = conn.pgconn
    if nbytes == -2:
        raise pg_errors.OperationalError(pgconn.get_error_message())
    results = conn.wait(generators.fetch_many(pgconn))
    copy._finished = True
    for result in results:
        if result.status != ExecStatus.COMMAND_OK:
            raise pg_errors.error_from_result(result, encoding=pgconn._encoding)


def _drain_copy(
    conn: Any,
    statement: str,
    flush: Callable[[Any], None],
    *,
    block_bytes: int | None = _FLUSH_BYTES,
) -> None:
    """Run a ``COPY ... TO STDOUT`` and hand its raw bytes (the protocol's messages,
    appended) to ``flush``: in blocks of at least ``block_bytes`` (the last one shorter),
    or, ``block_bytes`` None, whole in one call (none for no output), or, ``block_bytes``
    0, message by message as the ``memoryview`` of libpq's buffer (a large message, such
    as a result pack, is never copied).

    The server sends one message per row; psycopg's ``Copy`` iteration costs several
    generator steps per message, so rows are drained straight from libpq here (a tight
    loop that only appends), waiting on the socket (GIL released) when libpq has nothing.
    A block is handed on only at such a wait, never per message: a block is what had
    arrived by then (about ``block_bytes``, more by at most one read of the socket)."""
    buffer = bytearray()
    with conn.cursor() as cursor, cursor.copy(statement) as copy:
        pgconn = conn.pgconn
        get = pgconn.get_copy_data
        while True:
            nbytes, data = get(1)
            if nbytes > 0:
                if block_bytes == 0:
                    flush(data)
                    continue
                buffer += data
            elif nbytes == 0:
                if block_bytes is not None and len(buffer) >= block_bytes:
                    flush(buffer)
                    buffer = bytearray()
                select.select([pgconn.socket], [], [])
                pgconn.consume_input()
            else:
                break
        _copy_finish(conn, copy, nbytes)
    if buffer:
        flush(buffer)


def parse_binary_copy(buffer: bytearray | bytes, columns: Iterable[tuple[str, str]]) -> Any:
    """A structured NumPy view of a binary COPY of fixed-width, NOT NULL columns.

    Checks the signature, the trailer, and every tuple's field count and field lengths, so
    a NULL or an unexpected type fails loudly instead of shifting the columns.
    """
    columns = list(columns)
    view = memoryview(buffer)
    start = header_length(view)
    if bytes(view[-2:]) != b"\xff\xff":
        raise ValueError("binary COPY stream without its trailer")
    dtype = record_dtype(columns)
    body = view[start:-2]
    if len(body) % dtype.itemsize:
        raise ValueError("binary COPY stream is not made of fixed-size tuples (a NULL?)")
    records = np.frombuffer(body, dtype=dtype)
    check_binary_records(records, columns)
    return records


def header_length(view: memoryview) -> int:
    """The length of a binary COPY stream's header (signature, flags, extension area);
    ValueError when ``view`` does not begin with one."""
    if len(view) < 19 or bytes(view[:11]) != PGCOPY_SIGNATURE:
        raise ValueError("not a binary COPY stream")
    return 19 + int.from_bytes(view[15:19], "big")


def check_binary_records(records: Any, columns: Iterable[tuple[str, str]]) -> None:
    """Raise ValueError unless every record has the field count and field lengths of
    ``columns`` (records of :func:`parse_binary_copy`)."""
    columns = list(columns)
    if not len(records):
        return
    if not (records["_count"] == len(columns)).all():
        raise ValueError("unexpected field count in binary COPY stream")
    for name, code in columns:
        if not (records[f"_len_{name}"] == np.dtype(code).itemsize).all():
            raise ValueError(f"unexpected length of {name} in binary COPY stream (NULL?)")


# --- published lists and the player order -------------------------------------------------------


def whole_lists(
    list_ids: dict[int, int], *, streams: int = 1, portable: bool = False
) -> dict[int, fladub.PublishedList]:
    """The entries of published lists (month index -> list id), whole: month index ->
    list (cents), players in no particular order."""
    if portable or not uses_copy():
        published: dict[int, fladub.PublishedList] = {}
        for index, list_id in list_ids.items():
            rows = sql.STRENGTH.rows(sql.list_strengths(list_id))
            published[index] = fladub.PublishedList(
                player=np.array([r.player for r in rows], dtype=np.int64),
                fladub_cents=np.array([r.fladub_cents for r in rows], dtype=np.int64),
            )
        return published
    statements = [_list_statement(i) for i in list_ids.values()]
    buffers = read_copies(statements, streams=streams)
    published = {}
    for index, buffer in zip(list_ids, buffers, strict=True):
        records = parse_binary_copy(buffer, [("player_id", ">i8"), ("fladub_cents", ">i8")])
        published[index] = fladub.PublishedList(
            player=records["player_id"].astype(np.int64),
            fladub_cents=records["fladub_cents"].astype(np.int64),
        )
    return published


def _list_statement(list_id: int) -> str:
    # No ORDER BY: a published list's order does not matter here, and sorting it costs.
    table = RankingEntry._meta.db_table
    return (
        f"COPY (SELECT player_id, fladub_cents::int8 FROM {table} "  # noqa: S608
        f"WHERE ranking_list_id = {int(list_id)}) TO STDOUT (FORMAT binary)"
    )


def _player_order_from(pks: I64) -> I64 | None:
    if not len(pks):
        return None
    order = np.zeros(int(pks.max()) + 1, dtype=np.int64)
    order[pks] = np.arange(len(pks), dtype=np.int64)
    return order


def player_order(*, portable: bool = False) -> I64 | None:
    """``order[pk]`` = the player's position in federation-id order (code points)."""
    if portable or not uses_copy():
        ids = [
            pk
            for _, pk in sorted(
                Player.objects.values_list("player_id", "pk"), key=lambda row: row[0]
            )
        ]
        return _player_order_from(np.array(ids, dtype=np.int64))
    (buffer,) = read_copies([_player_order_statement()])
    return _player_order_of_copy(buffer)


def player_order_later() -> Future[I64 | None]:
    """:func:`player_order` as a future (PostgreSQL, inside the outermost ``REPEATABLE
    READ`` transaction), read in the background in the same snapshot
    (:func:`read_copy_later`): the close computes while PostgreSQL sorts the federation
    ids and the rows arrive."""
    return read_copy_later(_player_order_statement(), _player_order_of_copy)


def _player_order_statement() -> str:
    return (
        f'COPY (SELECT id FROM {Player._meta.db_table} ORDER BY player_id COLLATE "C") '  # noqa: S608
        "TO STDOUT (FORMAT binary)"
    )


def _player_order_of_copy(buffer: bytearray) -> I64 | None:
    return _player_order_from(parse_binary_copy(buffer, [("id", ">i8")])["id"].astype(np.int64))


# --- a list's CSV download, written by PostgreSQL (the seal) -----------------------------------


def list_csv_sha256(
    list_id: int, header: bytes, *, conn: Any = None, table: str | None = None
) -> str | None:
    """SHA-256 of ``header`` followed by the list's rows as PostgreSQL's ``COPY ... (FORMAT
    csv)`` writes them, which are the bytes :func:`rankings.export.csv_pieces` writes (the
    download) with one exception: PostgreSQL quotes a field holding a carriage return,
    Python's ``csv`` module (line terminator ``\\n``) does not. So None when the output holds
    a carriage return (the caller then hashes the export itself).

    Why the rest is equal (tests/rankings/test_seal_csv.py proves it on awkward names):
    both quote a field holding a comma, a double quote (doubled) or a line feed and
    nothing else; PostgreSQL quotes an empty string (``""``), Python does not, hence
    ``NULLIF(.., '')`` (a NULL is written as nothing); ``fladub_cents * 0.01`` is a numeric
    of scale 2, the export's ``cents_text``; a new player's ``previous_rank`` (NULL, or 0)
    is nothing; rows in ``(rank, id)`` order as :func:`export_rows`; UTF-8 both.

    ``conn``: a psycopg connection of its own (default Django's); ``table``: where the
    list's entries are (default the entries table; the close names the list's partition
    while it is not yet attached, and reads it while its indexes are built: the join to
    the players is then a hash join, whatever the planner knows of a table that has no
    statistics yet).
    """
    import hashlib

    digest = hashlib.sha256(header)
    carriage_return = False

    def flush(block: bytearray) -> None:
        nonlocal carriage_return
        carriage_return = carriage_return or b"\r" in block
        digest.update(block)

    if conn is None:
        connection.ensure_connection()
        _drain_copy(connection.connection, _list_csv_statement(list_id), flush)
    else:
        with conn.transaction(), conn.cursor() as cursor:
            cursor.execute("SET LOCAL enable_nestloop = off")
            cursor.execute("SET LOCAL enable_mergejoin = off")
            _drain_copy(conn, _list_csv_statement(list_id, table), flush)
    return None if carriage_return else digest.hexdigest()


def players_csv(conn: Any) -> tuple[bytearray, int]:
    """Every player's ``id,player_id,name,country`` as PostgreSQL's ``COPY ... (FORMAT
    csv)`` writes them (the fields of :func:`_list_csv_statement`, quoted as there), in no
    particular order, and how many players there are, both in one snapshot, read on the
    psycopg connection ``conn`` (:func:`rankings.list_csv.player_fields` indexes them)."""
    player = Player._meta.db_table
    with conn.transaction(), conn.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute(f"SELECT count(*) FROM {player}")  # noqa: S608
        rows = int(cursor.fetchone()[0])
        data = _read_copy(
            conn,
            "COPY (SELECT id, NULLIF(player_id, ''), NULLIF(name, ''), "  # noqa: S608
            f"NULLIF(country, '') FROM {player}) TO STDOUT (FORMAT csv, ENCODING 'UTF8')",
        )
    return data, rows


def _list_csv_statement(list_id: int, table: str | None = None) -> str:
    entry, player = table or RankingEntry._meta.db_table, Player._meta.db_table
    return (
        "COPY (SELECT e.rank, NULLIF(p.player_id, ''), NULLIF(p.name, ''), "  # noqa: S608
        "NULLIF(p.country, ''), e.fladub_cents * 0.01, e.results_counted, "
        f"NULLIF(e.previous_rank, 0) FROM {entry} e JOIN {player} p ON p.id = e.player_id "
        f"WHERE e.ranking_list_id = {int(list_id)} ORDER BY e.rank, e.id) "
        "TO STDOUT (FORMAT csv, ENCODING 'UTF8')"
    )
