"""A stand-alone peer of the monthly close: FLADUB v1 by binary COPY, NumPy and one COPY back.

    .venv/bin/python bench/close_pipeline.py --dsn postgres://fido@127.0.0.1/fido_bench_close \\
        --month 2026-03 [--discipline fido] [--streams 2] [--table bench_pipeline_list]

What a competent engineer would write outside the service to compute the same list as fast
as possible, with nothing of the service imported (only psycopg and NumPy):

1. Reads, in one exported snapshot on ``--streams`` connections: the window's rows of
   ``matches_sidemember`` (``COPY ... TO STDOUT (FORMAT binary)`` of disjoint block ranges,
   drained straight from libpq) and the published lists L(M - 1) of every month M of the
   window (player, FLADUB in cents; ranks of L(R - 1)).
2. Computes FLADUB v1 (SPEC.md section 4) vectorised: opponent strength q = F / F_max from
   L(M - 1), a team's q its members' mean, match points
   ``B * sum over U != T of S_TU * (1 + q_U) / (k - 1)`` for every table size at once
   (a (matches, k, k) comparison per size), weights ``(12 - a) / 12``, the 20 best of each
   player (only players with more than 20 scoring results are sorted), rounding half away
   from zero to cents, rank with ties (1, 2, 2, 4), previous rank.
3. Writes the list into an UNLOGGED table ``--table`` (rank, player_id, fladub_cents,
   results_counted, previous_rank; 0 = new) with one binary COPY: no index, no WAL, no
   publication. Within a shared rank rows are in player-id order (the service orders
   them by federation id; the benchmark compares rank, FLADUB, results counted and previous
   rank per player, which do not depend on that order).

Exactness: weighted points are float64, quantised to integer units of 2**-39 point before
summing (so the sums do not depend on order), and rounded with the same 48-unit slack the
FLADUB definition's implementation documents (an exact half cent whose float64 value came
out a hair below still rounds up). Prints ``PIPELINE {json}`` with the stage timings and
this process's peak memory (``VmHWM``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import queue
import select
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

PG_EPOCH_MONTH = 2000 * 12  # PostgreSQL dates count days from 2000-01-01
BEST = 20
UNIT_BITS = 39
SLACK_UNITS = 48
VALUE_BITS = 48  # 320 points * 2**39 < 2**48
BLOCK_BITS = 64 - VALUE_BITS
SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def tuple_dtype(columns: list[tuple[str, str]]) -> np.dtype[Any]:
    """A binary COPY tuple of fixed-width NOT NULL columns: a field count, then for each
    column a length word and the value (big-endian)."""
    fields: list[tuple[str, str]] = [("n", ">i2")]
    for name, code in columns:
        fields += [(f"l_{name}", ">i4"), (name, code)]
    return np.dtype(fields)


WINDOW_COLUMNS = [("match", ">i8"), ("played", ">i4"), ("base", ">i2"), ("side", ">i2")]
WINDOW_COLUMNS += [("score", ">i4"), ("player", ">i8")]
WINDOW = tuple_dtype(WINDOW_COLUMNS)
LISTED = tuple_dtype([("player", ">i8"), ("cents", ">i4"), ("rank", ">i4")])
OUT_COLUMNS = [("rank", ">i4"), ("player", ">i8"), ("cents", ">i4"), ("counted", ">i4")]
OUT_COLUMNS += [("previous", ">i4")]


def month_start(index: int) -> str:
    return f"{index // 12:04d}-{index % 12 + 1:02d}-01"


# --- reading ------------------------------------------------------------------------------------


def drain(conn: psycopg.Connection[Any], statement: str) -> bytearray:
    """The raw bytes of one ``COPY ... TO STDOUT``, drained from libpq in a tight loop."""
    from psycopg import generators

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
            raise psycopg.OperationalError(str(pgconn.get_error_message()))
        for result in conn.wait(generators.fetch_many(pgconn)):
            if result.error_message:
                raise psycopg.OperationalError(result.error_message.decode())
        copy._finished = True
    return buffer


def read_all(dsn: str, statements: list[str], streams: int) -> list[bytearray]:
    """Run the COPY statements on ``streams`` connections sharing one snapshot."""
    first = psycopg.connect(dsn)
    first.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    snapshot = first.execute("SELECT pg_export_snapshot()").fetchone()[0]  # type: ignore[index]
    conns = [first]
    for _ in range(max(1, streams) - 1):
        extra = psycopg.connect(dsn, autocommit=True)
        extra.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        extra.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot)))
        conns.append(extra)
    work: queue.Queue[int] = queue.Queue()
    for i in range(len(statements)):
        work.put(i)
    out: list[bytearray] = [bytearray()] * len(statements)
    errors: list[BaseException] = []

    def run(conn: psycopg.Connection[Any]) -> None:
        try:
            while not errors:
                try:
                    i = work.get_nowait()
                except queue.Empty:
                    return
                out[i] = drain(conn, statements[i])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(c,)) for c in conns[1:]]
    for thread in threads:
        thread.start()
    run(first)
    for thread in threads:
        thread.join()
    for conn in conns:
        conn.close()
    if errors:
        raise errors[0]
    return out


def records(buffer: bytearray, dtype: np.dtype[Any]) -> Any:
    if bytes(buffer[:11]) != SIGNATURE or bytes(buffer[-2:]) != b"\xff\xff":
        raise SystemExit("unexpected binary COPY stream")
    start = 19 + int.from_bytes(buffer[15:19], "big")
    body = memoryview(buffer)[start:-2]
    if len(body) % dtype.itemsize:
        raise SystemExit("binary COPY stream of unexpected row size (a NULL?)")
    return np.frombuffer(body, dtype=dtype)


# --- FLADUB v1 ----------------------------------------------------------------------------------


def side_points(score: Any, oq: Any, base: Any, match_start: Any, k: Any) -> Any:
    """pts of every side: B * sum over U != T of S_TU (1 + q_U) / (k - 1), by table size."""
    points = np.empty(len(score), dtype=np.float64)
    for size in np.unique(k).tolist():
        starts = match_start[k == size]
        for lo in range(0, len(starts), 65536):
            seat = starts[lo : lo + 65536, None] + np.arange(size)
            s = score[seat]
            beats = np.sign(s[:, :, None] - s[:, None, :])  # (matches, T, U): 1, 0, -1
            beats += 1.0
            beats *= 0.5
            q = oq[seat]
            earned = np.einsum("nab,nb->na", beats, q)
            earned -= 0.5 * q  # S_TT = 1/2 is not a pair
            earned *= base[seat]
            earned /= size - 1
            points[seat] = earned
    return points


def best_twenty(player: Any, units: Any, size: int) -> tuple[Any, Any]:
    """Per player: (results counted, sum of the 20 largest units)."""
    counted = np.bincount(player, minlength=size)
    scoring = np.bincount(player, weights=units > 0, minlength=size).astype(np.int64)
    total = np.bincount(player, weights=units, minlength=size)  # exact: < 2**53 when <= 20
    many = scoring > BEST
    total[many] = 0
    sums = total.astype(np.int64)
    rows = many[player] & (units > 0)
    big = np.flatnonzero(many)
    dense = (np.cumsum(many) - 1)[player[rows]]
    key = (dense & ((1 << BLOCK_BITS) - 1)).astype(np.uint64) << np.uint64(VALUE_BITS)
    key |= ((1 << VALUE_BITS) - 1 - units[rows]).astype(np.uint64)
    block = dense >> BLOCK_BITS
    best = np.empty(len(big), dtype=np.int64)
    for b in range((len(big) >> BLOCK_BITS) + 1):
        part = np.sort(key[block == b])
        players = slice(b << BLOCK_BITS, (b + 1) << BLOCK_BITS)
        groups = scoring[big[players]]
        starts = np.cumsum(groups) - groups
        top = part[starts[:, None] + np.arange(BEST)] & np.uint64((1 << VALUE_BITS) - 1)
        best[players] = BEST * ((1 << VALUE_BITS) - 1) - top.sum(axis=1).astype(np.int64)
    sums[big] = best
    return counted, sums


BLOCK = 1 << 18  # rows per step: a block's temporaries stay in the CPU's caches


class AgeOfDay:
    """A date's age in months (close - month of the date) by a lookup table over the window."""

    def __init__(self, close: int) -> None:
        epoch = np.datetime64("2000-01-01", "D")
        self.first = int((np.datetime64(month_start(close - 11), "D") - epoch).astype(np.int64))
        end = int((np.datetime64(month_start(close + 1), "D") - epoch).astype(np.int64))
        day = np.arange(self.first, end) + epoch
        months = day.astype("datetime64[M]").astype(np.int64) + 1970 * 12
        self.table = (close - months).astype(np.int64)

    def __call__(self, pg_days: Any) -> Any:
        return self.table[pg_days.astype(np.int64) - self.first]


def in_match_order(parts: list[Any]) -> bool:
    """Whether the rows, parts concatenated, come in (match, side) order (the table's
    physical order as the service inserts them; a void's rewritten rows break it)."""
    previous: tuple[int, int] | None = None
    for part in parts:
        if not len(part):
            continue
        match, side = part["match"], part["side"]
        if previous is not None and (int(match[0]), int(side[0])) < previous:
            return False
        if (match[1:] < match[:-1]).any():
            return False
        if ((match[1:] == match[:-1]) & (side[1:] < side[:-1])).any():
            return False
        previous = (int(match[-1]), int(side[-1]))
    return True


def blocks(parts: list[Any]) -> Any:
    """Record blocks of about BLOCK rows holding whole matches (a match cut by a part's end
    is carried into the next block)."""
    carry = None
    for part in parts:
        start = 0
        while start < len(part):
            stop = min(len(part), start + BLOCK)
            if stop < len(part):
                # Move the cut back to where the match at the cut begins.
                cut = int(part["match"][stop])
                back = stop
                while back > start and int(part["match"][back - 1]) == cut:
                    back -= 1
                stop = back if back > start else stop
            chunk = part[start:stop]
            if carry is not None:
                chunk = np.concatenate([carry, chunk])
                carry = None
            if stop == len(part):
                # The part's last match may continue in the next part: hold it back.
                last = int(chunk["match"][-1])
                tail = len(chunk)
                while tail > 0 and int(chunk["match"][tail - 1]) == last:
                    tail -= 1
                carry, chunk = chunk[tail:], chunk[:tail]
            if len(chunk):
                yield chunk
            start = stop
    if carry is not None and len(carry):
        yield carry


def block_units(chunk: Any, age_of: AgeOfDay, strength: Any, size: int) -> tuple[Any, Any]:
    """(player, quantised weighted points) of a block of rows of whole matches."""
    match, side = chunk["match"].astype(np.int64), chunk["side"]
    player, age = chunk["player"].astype(np.int64), age_of(chunk["played"])
    index = age * size
    index += player
    q = strength.take(index)
    new_side = np.empty(len(match), dtype=bool)
    new_side[:1] = True
    np.not_equal(match[1:], match[:-1], out=new_side[1:])
    new_side[1:] |= side[1:] != side[:-1]
    side_start = np.flatnonzero(new_side)
    members = np.diff(side_start, append=len(match))
    oq = np.add.reduceat(q, side_start)
    oq /= members
    oq += 1.0
    side_match = match[side_start]
    new_match = np.empty(len(side_start), dtype=bool)
    new_match[:1] = True
    np.not_equal(side_match[1:], side_match[:-1], out=new_match[1:])
    match_start = np.flatnonzero(new_match)
    k = np.diff(match_start, append=len(side_start))
    sides = chunk[side_start]
    pts = side_points(
        sides["score"].astype(np.float64), oq, sides["base"].astype(np.float64), match_start, k
    )
    weighted = np.repeat(pts, members) if len(side_start) < len(match) else pts
    weighted *= 12 - age
    weighted /= 12
    weighted *= float(1 << UNIT_BITS)
    return player, np.rint(weighted, out=weighted).astype(np.int64)


def compute(parts: list[Any], lists: dict[int, Any], close: int, size: int) -> dict[str, Any]:
    """The list from the window's record arrays (one per stream, in stream order)."""
    if not in_match_order(parts):
        whole = np.concatenate(parts)
        order = np.argsort(
            whole["match"].astype(np.int64) << 4 | whole["side"].astype(np.int64), kind="stable"
        )
        parts = [whole[order]]
        del whole, order
    n = sum(len(p) for p in parts)

    # q of each row's player in L(played - 1): one gather through an (age, player) table.
    strength = np.zeros((12, size), dtype=np.float64)
    for month, listed in lists.items():
        if 0 <= close - (month + 1) < 12:
            inside = listed["player"] < size
            strength[close - (month + 1), listed["player"][inside]] = (
                listed["cents"][inside] / listed["cents"].max()
            )
    flat = strength.ravel()
    age_of = AgeOfDay(close)
    player = np.empty(n, dtype=np.int64)
    units = np.empty(n, dtype=np.int64)
    done = 0
    for chunk in blocks(parts):
        rows = slice(done, done + len(chunk))
        player[rows], units[rows] = block_units(chunk, age_of, flat, size)
        done += len(chunk)
    del strength, flat, parts
    counted, sums = best_twenty(player, units, size)
    del player, units
    cents = (sums * 100 + (1 << (UNIT_BITS - 1)) + 100 * SLACK_UNITS) >> UNIT_BITS

    listed = np.flatnonzero(cents > 0)
    order = np.argsort(((1 << 20) - 1 - cents[listed]) << 43 | listed)
    ranked = listed[order]
    value = cents[ranked]
    first_of_value = np.ones(len(ranked), dtype=bool)
    first_of_value[1:] = value[1:] != value[:-1]
    rank = np.maximum.accumulate(np.where(first_of_value, np.arange(len(ranked)), 0)) + 1
    previous = np.zeros(len(ranked), dtype=np.int64)
    before = lists.get(close - 1)
    if before is not None and len(before):
        table = np.zeros(max(size, int(before["player"].max()) + 1), dtype=np.int64)
        table[before["player"]] = before["rank"]
        previous = table[ranked]
    return {
        "rank": rank,
        "player": ranked,
        "cents": value,
        "counted": counted[ranked],
        "previous": previous,
    }


# --- writing ------------------------------------------------------------------------------------


def write(dsn: str, table: str, ranking: dict[str, Any]) -> None:
    rows = np.empty(len(ranking["player"]), dtype=tuple_dtype(OUT_COLUMNS))
    rows["n"] = len(OUT_COLUMNS)
    for name, code in OUT_COLUMNS:
        rows[f"l_{name}"] = np.dtype(code).itemsize
        rows[name] = ranking[name]
    payload = SIGNATURE + bytes(8) + rows.tobytes() + b"\xff\xff"
    target = sql.Identifier(table)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(target))
        conn.execute(
            sql.SQL(
                "CREATE UNLOGGED TABLE {} (rank int NOT NULL, player_id bigint NOT NULL, "
                "fladub_cents int NOT NULL, results_counted int NOT NULL, "
                "previous_rank int NOT NULL)"
            ).format(target)
        )
        statement = sql.SQL(
            "COPY {} (rank, player_id, fladub_cents, results_counted, previous_rank) "
            "FROM STDIN (FORMAT binary)"
        ).format(target)
        with conn.cursor() as cursor, cursor.copy(statement) as copy:
            view = memoryview(payload)
            for start in range(0, len(view), 1 << 23):
                copy.write(view[start : start + (1 << 23)])


# --- main ---------------------------------------------------------------------------------------


def peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--month", required=True, help="YYYY-MM of the list")
    parser.add_argument("--discipline", default="fido")
    parser.add_argument("--streams", type=int, default=2)
    parser.add_argument("--table", default="bench_pipeline_list")
    args = parser.parse_args()
    year, month = (int(x) for x in args.month.split("-"))
    close = year * 12 + month - 1
    started = time.perf_counter()
    timings: dict[str, float] = {}

    with psycopg.connect(args.dsn) as conn:
        pages = conn.execute(
            "SELECT pg_relation_size('matches_sidemember') / current_setting('block_size')::int"
        ).fetchone()[0]  # type: ignore[index]
        players = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM matches_player").fetchone()[0]  # type: ignore[index]
        found = conn.execute(
            "SELECT month, id FROM rankings_rankinglist WHERE discipline = %s "
            "AND status = 'published' AND month >= %s AND month < %s ORDER BY month",
            [args.discipline, month_start(close - 12), month_start(close)],
        ).fetchall()
    lists = {m.year * 12 + m.month - 1: list_id for m, list_id in found}
    where = sql.SQL(
        "discipline = {d} AND counting_month <= {r} AND month_played >= {f} "
        "AND month_played <= {r} AND (void_effective_month IS NULL OR void_effective_month > {r})"
    ).format(
        d=sql.Literal(args.discipline),
        r=sql.Literal(month_start(close)),
        f=sql.Literal(month_start(close - 11)),
    )
    bounds = [pages * i // args.streams for i in range(args.streams)] + [pages + 1]
    statements = [
        sql.SQL(
            "COPY (SELECT match_id, month_played, base, side_position, score, player_id "
            "FROM matches_sidemember WHERE {w} AND ctid >= {lo}::tid AND ctid < {hi}::tid) "
            "TO STDOUT (FORMAT binary)"
        )
        .format(w=where, lo=sql.Literal(f"({lo},0)"), hi=sql.Literal(f"({hi},0)"))
        .as_string()
        for lo, hi in itertools.pairwise(bounds)
    ]
    statements += [
        f"COPY (SELECT player_id, fladub_cents, rank FROM rankings_rankingentry "
        f"WHERE ranking_list_id = {int(list_id)}) TO STDOUT (FORMAT binary)"
        for list_id in lists.values()
    ]
    buffers = read_all(args.dsn, statements, args.streams)
    published = {
        month: records(buffer, LISTED).copy()
        for month, buffer in zip(lists, buffers[args.streams :], strict=True)
    }
    parts = [records(b, WINDOW) for b in buffers[: args.streams]]
    rows = sum(len(p) for p in parts)
    timings["read"] = round(time.perf_counter() - started, 3)

    mark = time.perf_counter()
    ranking = compute(parts, published, close, players)
    del parts, buffers, published
    timings["compute"] = round(time.perf_counter() - mark, 3)

    mark = time.perf_counter()
    write(args.dsn, args.table, ranking)
    timings["write"] = round(time.perf_counter() - mark, 3)
    report = {
        "seconds": round(time.perf_counter() - started, 3),
        "stages": timings,
        "results": rows,
        "entries": len(ranking["player"]),
        "peak_rss_mib": round(peak_mib()),
    }
    print("PIPELINE " + json.dumps(report), flush=True)


if __name__ == "__main__":
    try:
        main()
    except psycopg.OperationalError as exc:
        sys.exit(f"close_pipeline: {str(exc).strip().splitlines()[0]}")
