"""The ranking job's input: a month's window of results and the published lists, as arrays.

In: a discipline and the month R of the list L(R). Out: :class:`Window`, the inputs of
:func:`rankings.fladub.compute_list`:

- ``sides`` (:class:`rankings.fladub.Sides`): every :class:`~matches.models.SideMember` row
  of the discipline with ``counting_month <= R``, ``R - 11 <= month_played <= R`` and not
  voided before L(R) (``void_effective_month IS NULL OR void_effective_month > R``); the
  player is the ``Player`` primary key (a dense serial, as fladub wants);
- ``published``: the published lists L(M - 1) for every month M played in the window
  (opponent strength), which includes L(R - 1) (previous ranks), in integer cents;
- ``player_order``: each player's position in federation-id order (``P-000123``, compared
  as code points, ``COLLATE "C"``), the tie-break within a shared rank.

Two paths give the same arrays. On PostgreSQL the rows travel as ``COPY ... TO STDOUT
(FORMAT binary)``: the raw protocol messages are appended to one buffer and parsed with
a single ``np.frombuffer`` (every field is fixed-width and NOT NULL, so a tuple is a
fixed-size record), never row by row in Python. ``streams`` connections read disjoint
block ranges of the table in parallel, all inside one exported snapshot, so they see
exactly what a single reader would. Elsewhere (SQLite) ``values_list`` feeds NumPy.
"""

from __future__ import annotations

import itertools
import logging
import select
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction

from matches.models import Player, SideMember
from matches.months import Month

from . import fladub
from .models import RankingEntry, RankingList

I64 = npt.NDArray[np.int64]
logger = logging.getLogger(__name__)

PGCOPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
# PostgreSQL dates are days since 2000-01-01; NumPy's since 1970-01-01.
_PG_EPOCH_DAYS = 10957
_EPOCH_MONTH_INDEX = 1970 * 12

# Columns of the window query: (name, PostgreSQL binary type as a NumPy big-endian code).
SIDE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("match_id", ">i8"),
    ("month_played", ">i4"),  # date
    ("counting_month", ">i4"),  # date
    ("base", ">i2"),
    ("side_position", ">i2"),
    ("score", ">i4"),
    ("player_id", ">i8"),
)

WINDOW_WHERE = (
    "discipline = %(discipline)s AND counting_month <= %(month)s "
    "AND month_played >= %(first)s AND month_played <= %(month)s "
    "AND (void_effective_month IS NULL OR void_effective_month > %(month)s)"
)


@dataclass(frozen=True, eq=False)
class Window:
    discipline: str
    month: Month
    sides: fladub.Sides
    published: dict[int, fladub.PublishedList]
    player_order: I64 | None

    @property
    def month_index(self) -> int:
        return self.month.index


def uses_copy() -> bool:
    return connection.vendor == "postgresql"


def load_window(
    *, discipline: str, month: Month, streams: int = 2, portable: bool | None = None
) -> Window:
    """Everything the close of L(month) computes from, read in one consistent snapshot."""
    fast = uses_copy() if portable is None else not portable
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if fast and outermost:
            # One snapshot for every query below (and for the parallel readers).
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        if not outermost:
            streams = 1  # other connections cannot see the enclosing transaction's rows
        started = time.perf_counter()
        sides = load_sides(discipline=discipline, month=month, streams=streams, portable=not fast)
        loaded = time.perf_counter()
        played = np.unique(sides.month_played).tolist() if len(sides) else []
        wanted = {Month.from_index(m - 1) for m in played} | {month.prev()}
        if fast:
            # The published lists and the player order, spread over the same streams.
            lists = _published_ids(discipline, wanted)
            statements = [_player_order_statement()]
            statements += [_published_statement(i) for i in lists.values()]
            buffers = read_copies(statements, streams=streams)
            pks = parse_binary_copy(buffers.pop(0), [("id", ">i8")])["id"].astype(np.int64)
            player_order = _player_order_from(pks)
            published = _published_from(lists, buffers)
            del buffers
        else:
            published = load_published(discipline=discipline, months=wanted, portable=True)
            player_order = load_player_order(portable=True)
        logger.info(
            "loaded %s %s: %d results in %.2f s (%d streams), %d published lists and the "
            "player order in %.2f s",
            discipline,
            month,
            len(sides),
            loaded - started,
            streams if fast else 0,
            len(published),
            time.perf_counter() - loaded,
        )
    return Window(
        discipline=discipline,
        month=month,
        sides=sides,
        published=published,
        player_order=player_order,
    )


def _window_params(discipline: str, month: Month) -> dict[str, Any]:
    return {
        "discipline": discipline,
        "month": month.first_day,
        "first": (month + (1 - fladub.WINDOW_MONTHS)).first_day,
    }


# --- the window's results -------------------------------------------------------------------


def load_sides(
    *, discipline: str, month: Month, streams: int = 2, portable: bool = False
) -> fladub.Sides:
    if portable or not uses_copy():
        return _sides_portable(discipline, month)
    return canonical(_sides_copy(discipline, month, max(1, streams)))


def canonical(sides: fladub.Sides) -> fladub.Sides:
    """The rows in (match, side, player) order, the order fladub sums in.

    ``COPY`` hands rows over in the table's physical order: the order of insertion, except
    for rows rewritten since (a void updates its match's rows, which move). So the rows are
    nearly sorted, and a stable sort (timsort) on one packed key (match << 4 | side: a side
    number is at most 9) takes a fraction of a second where a three-key ``lexsort`` takes
    ten at 12 million rows. Only the members of a team then need ordering by player.
    """
    if sides.is_canonical():
        return sides
    key = (sides.match_id << 4) | sides.side_no.astype(np.int64)
    order = np.argsort(key, kind="stable")
    key = key[order]
    team = np.flatnonzero(key[1:] == key[:-1])
    if len(team):
        rows = np.union1d(team, team + 1)
        within = np.lexsort((sides.player[order[rows]], key[rows]))
        order[rows] = order[rows][within]
    del key
    return sides.take(order)


def _sides_portable(discipline: str, month: Month) -> fladub.Sides:
    params = _window_params(discipline, month)
    rows = (
        SideMember.objects.filter(
            discipline=discipline,
            counting_month__lte=params["month"],
            month_played__gte=params["first"],
            month_played__lte=params["month"],
        )
        .exclude(void_effective_month__lte=params["month"])
        .order_by("match_id", "side_position", "player_id")
        .values_list(
            "match_id",
            "month_played",
            "counting_month",
            "base",
            "side_position",
            "score",
            "player_id",
        )
    )
    data = list(rows)
    if not data:
        return _empty_sides()
    match_id, played, counting, base, side, score, player = zip(*data, strict=True)
    return fladub.Sides(
        match_id=np.array(match_id, dtype=np.int64),
        month_played=np.array([Month.of(d).index for d in played], dtype=np.int32),
        counting_month=np.array([Month.of(d).index for d in counting], dtype=np.int32),
        base=np.array(base, dtype=np.float64),
        side_no=np.array(side, dtype=np.int16),
        score=np.array(score, dtype=np.float64),
        player=np.array(player, dtype=np.int64),
    )


def _empty_sides() -> fladub.Sides:
    empty: Any = np.zeros(0)
    return fladub.Sides(empty, empty, empty, empty, empty, empty, empty)


def _sides_copy(discipline: str, month: Month, streams: int) -> fladub.Sides:
    columns = ", ".join(name for name, _ in SIDE_COLUMNS)
    table = SideMember._meta.db_table
    where = _literal_where(WINDOW_WHERE, _window_params(discipline, month))
    queries: list[str] = []
    if streams == 1:
        queries.append(f"SELECT {columns} FROM {table} WHERE {where}")  # noqa: S608
    else:
        pages = _relation_pages(table)
        bounds = [pages * i // streams for i in range(streams)] + [pages + 1]
        for low, high in itertools.pairwise(bounds):
            queries.append(
                f"SELECT {columns} FROM {table} WHERE {where} "  # noqa: S608
                f"AND ctid >= '({low},0)'::tid AND ctid < '({high},0)'::tid"
            )
    buffers = read_copies([f"COPY ({q}) TO STDOUT (FORMAT binary)" for q in queries])
    records = [parse_binary_copy(buf, SIDE_COLUMNS) for buf in buffers]
    total = sum(len(r) for r in records)
    out: dict[str, Any] = {
        "match_id": np.empty(total, dtype=np.int64),
        "month_played": np.empty(total, dtype=np.int32),
        "counting_month": np.empty(total, dtype=np.int32),
        "base": np.empty(total, dtype=np.float64),
        "side_no": np.empty(total, dtype=np.int16),
        "score": np.empty(total, dtype=np.float64),
        "player": np.empty(total, dtype=np.int64),
    }
    start = 0
    while records:
        part = records.pop(0)
        buffers.pop(0)
        stop = start + len(part)
        out["match_id"][start:stop] = part["match_id"]
        out["month_played"][start:stop] = pg_dates_to_month_index(part["month_played"])
        out["counting_month"][start:stop] = pg_dates_to_month_index(part["counting_month"])
        out["base"][start:stop] = part["base"]
        out["side_no"][start:stop] = part["side_position"]
        out["score"][start:stop] = part["score"]
        out["player"][start:stop] = part["player_id"]
        del part
        start = stop
    return fladub.Sides(**out)


def pg_dates_to_month_index(days: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """PostgreSQL binary dates (days since 2000-01-01) -> month indices (year * 12 + m - 1)."""
    as_days = (days.astype(np.int64) + _PG_EPOCH_DAYS).astype("datetime64[D]")
    months = as_days.astype("datetime64[M]").astype(np.int64) + _EPOCH_MONTH_INDEX
    return months.astype(np.int32)


def _literal_where(template: str, params: dict[str, Any]) -> str:
    """Bind parameters client-side (COPY takes no server-side parameters), safely quoted."""
    from psycopg import sql

    raw = connection.connection
    assert raw is not None  # noqa: S101 - ensure_connection() ran
    literals = {key: sql.Literal(value).as_string(raw) for key, value in params.items()}
    return template % literals


def _relation_pages(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_relation_size(%s::regclass) / current_setting('block_size')::int", [table]
        )
        (pages,) = cursor.fetchone()
    return int(pages)


# --- raw binary COPY --------------------------------------------------------------------------


def read_copies(statements: list[str], streams: int | None = None) -> list[bytearray]:
    """Run ``COPY ... TO STDOUT`` statements on ``streams`` connections in parallel (default:
    one per statement): Django's, in its transaction, and extra ones that import its
    snapshot, so that every statement sees the same data. Results in statement order."""
    connection.ensure_connection()
    raw = connection.connection
    assert raw is not None  # noqa: S101
    count = len(statements)
    workers = count if streams is None else max(1, min(streams, count))
    if workers <= 1:
        return [_read_copy(raw, statement) for statement in statements]
    with raw.cursor() as cursor:
        cursor.execute("SELECT pg_export_snapshot()")
        row = cursor.fetchone()
        assert row is not None  # noqa: S101
        snapshot = row[0]
    results: list[bytearray | None] = [None] * count
    errors: list[BaseException] = []
    pending = iter(range(count))
    lock = threading.Lock()
    extras = [_extra_connection() for _ in range(workers - 1)]
    try:
        for extra in extras:
            extra.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            extra.execute(f"SET TRANSACTION SNAPSHOT '{snapshot}'")

        def run(conn: Any) -> None:
            try:
                while not errors:
                    with lock:
                        index = next(pending, None)
                    if index is None:
                        return
                    results[index] = _read_copy(conn, statements[index])
            except BaseException as exc:  # re-raised in the caller's thread
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(extra,), daemon=True) for extra in extras]
        for thread in threads:
            thread.start()
        run(raw)
        for thread in threads:
            thread.join()
    finally:
        for extra in extras:
            extra.close()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


def _extra_connection() -> Any:
    import psycopg

    params = connection.get_connection_params()
    for key in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(key, None)
    return psycopg.connect(**params, autocommit=True)


def _read_copy(conn: Any, statement: str) -> bytearray:
    """The raw bytes of a ``COPY ... TO STDOUT``: the protocol's messages, appended.

    The server sends one message per row; psycopg's ``Copy`` iteration costs several
    generator steps per message, so rows are drained straight from libpq here (a tight
    loop that only appends), waiting on the socket (GIL released) when libpq has nothing.
    """
    from psycopg import errors as pg_errors
    from psycopg import generators
    from psycopg.pq import ExecStatus

    buffer = bytearray()
    with conn.cursor() as cursor, cursor.copy(statement) as copy:
        pgconn = conn.pgconn
        get = pgconn.get_copy_data
        while True:
            nbytes, data = get(1)
            if nbytes > 0:
                buffer += data
            elif nbytes == 0:
                select.select([pgconn.socket], [], [])
                pgconn.consume_input()
            else:
                break
        if nbytes == -2:
            raise pg_errors.OperationalError(pgconn.get_error_message())
        results = conn.wait(generators.fetch_many(pgconn))
        copy._finished = True
        for result in results:
            if result.status != ExecStatus.COMMAND_OK:
                raise pg_errors.error_from_result(result, encoding=pgconn._encoding)
    return buffer


def parse_binary_copy(buffer: bytearray | bytes, columns: Iterable[tuple[str, str]]) -> Any:
    """A structured NumPy view of a binary COPY of fixed-width, NOT NULL columns.

    Checks the signature, the trailer, and every tuple's field count and field lengths,
    so a NULL or an unexpected type fails loudly instead of shifting the columns.
    """
    columns = list(columns)
    view = memoryview(buffer)
    if bytes(view[:11]) != PGCOPY_SIGNATURE:
        raise ValueError("not a binary COPY stream")
    extension = int.from_bytes(view[15:19], "big")
    start = 19 + extension
    if bytes(view[-2:]) != b"\xff\xff":
        raise ValueError("binary COPY stream without its trailer")
    fields: list[tuple[str, str]] = [("_count", ">i2")]
    sizes: dict[str, int] = {}
    for name, code in columns:
        fields += [(f"_len_{name}", ">i4"), (name, code)]
        sizes[name] = np.dtype(code).itemsize
    dtype = np.dtype(fields)
    body = view[start:-2]
    if len(body) % dtype.itemsize:
        raise ValueError("binary COPY stream is not made of fixed-size tuples (a NULL?)")
    records = np.frombuffer(body, dtype=dtype)
    if len(records):
        if not (records["_count"] == len(columns)).all():
            raise ValueError("unexpected field count in binary COPY stream")
        for name, size in sizes.items():
            if not (records[f"_len_{name}"] == size).all():
                raise ValueError(f"unexpected length of {name} in binary COPY stream (NULL?)")
    return records


# --- published lists and the player order -------------------------------------------------------


def load_published(
    *, discipline: str, months: Iterable[Month], portable: bool = False, streams: int = 1
) -> dict[int, fladub.PublishedList]:
    """The published lists of those months that have one: month index -> list (cents),
    players in no particular order."""
    lists = _published_ids(discipline, months)
    if portable or not uses_copy():
        published: dict[int, fladub.PublishedList] = {}
        for index, list_id in lists.items():
            rows = list(
                RankingEntry.objects.filter(ranking_list_id=list_id)
                .order_by("player_id")
                .values_list("player_id", "fladub_cents")
            )
            published[index] = fladub.PublishedList(
                player=np.array([r[0] for r in rows], dtype=np.int64),
                fladub_cents=np.array([r[1] for r in rows], dtype=np.int64),
            )
        return published
    buffers = read_copies([_published_statement(i) for i in lists.values()], streams=streams)
    return _published_from(lists, buffers)


def _published_ids(discipline: str, months: Iterable[Month]) -> dict[int, int]:
    """Month index -> id of its published list, oldest first."""
    wanted = sorted(set(months))
    if not wanted:
        return {}
    rows = RankingList.objects.filter(
        discipline=discipline,
        status=RankingList.Status.PUBLISHED,
        month__in=[m.first_day for m in wanted],
    ).values_list("month", "id")
    return {Month.of(day).index: list_id for day, list_id in sorted(rows)}


def _published_statement(list_id: int) -> str:
    # No ORDER BY: a published list's order does not matter here, and sorting it costs.
    table = RankingEntry._meta.db_table
    return (
        f"COPY (SELECT player_id, fladub_cents::int8 FROM {table} "  # noqa: S608
        f"WHERE ranking_list_id = {int(list_id)}) TO STDOUT (FORMAT binary)"
    )


def _published_from(
    lists: dict[int, int], buffers: list[bytearray]
) -> dict[int, fladub.PublishedList]:
    published: dict[int, fladub.PublishedList] = {}
    for index, buffer in zip(lists, buffers, strict=True):
        records = parse_binary_copy(buffer, [("player_id", ">i8"), ("fladub_cents", ">i8")])
        published[index] = fladub.PublishedList(
            player=records["player_id"].astype(np.int64),
            fladub_cents=records["fladub_cents"].astype(np.int64),
        )
    return published


def _player_order_statement() -> str:
    table = Player._meta.db_table
    return (
        f'COPY (SELECT id FROM {table} ORDER BY player_id COLLATE "C") '  # noqa: S608
        "TO STDOUT (FORMAT binary)"
    )


def _player_order_from(pks: I64) -> I64 | None:
    if not len(pks):
        return None
    order = np.zeros(int(pks.max()) + 1, dtype=np.int64)
    order[pks] = np.arange(len(pks), dtype=np.int64)
    return order


def load_player_order(*, portable: bool = False) -> I64 | None:
    """``order[pk]`` = the player's position in federation-id order (code points)."""
    if portable or not uses_copy():
        ids = [
            pk
            for _, pk in sorted(
                Player.objects.values_list("player_id", "pk"), key=lambda row: row[0]
            )
        ]
        return _player_order_from(np.array(ids, dtype=np.int64))
    (buf,) = read_copies([_player_order_statement()])
    return _player_order_from(parse_binary_copy(buf, [("id", ">i8")])["id"].astype(np.int64))
