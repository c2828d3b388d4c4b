"""The monthly close at one million players and twelve million results, end to end, on
PostgreSQL, side by side with the same list computed by one SQL window-function query.

    .venv/bin/python bench/close_month.py                # 1,000,000 players, 12,000,000 results
    .venv/bin/python bench/close_month.py --scale 0.01   # 10,000 players, 120,000 results
    .venv/bin/python bench/close_month.py --lists 12     # also the 12 earlier lists (steady state)

What it does, in a dedicated database (``--database``, default ``fido_bench_close``, not the
``fido_bench`` the submission and page benchmarks share, since this one truncates its tables;
created with ``createdb -O fido`` if missing, then migrated):

1. Generates (unless the same data is already there) clubs, players, submissions, matches,
   sides and one SideMember row per result, every row valid for the schema, 12 months of
   matches ending in the closed month 2026-03 (3% of them late), tables of 2 to 9 sides,
   some teams of two, a skewed activity (many players above 20 results); and the published
   list of 2026-02 (``--lists N``: of the N months before) for opponent strength and the
   previous rank. Everything goes in with binary ``COPY`` built by NumPy; foreign-key
   triggers are off during the load (superuser ``session_replication_role = replica``),
   the data being valid by construction. Not timed.
2. Closes 2026-03 with ``rankings.services.month_close`` in a fresh process (so its peak
   RSS, ``ru_maxrss``, is the close's alone): freeze, load (binary COPY into NumPy),
   compute (rankings.fladub), write (binary COPY), publish. Timed end to end and per stage.
3. Computes the same list with one SQL statement (CTEs and window functions: opponent
   strength from the published lists, match points by a self-join of the sides, weights,
   ``row_number()`` for the best 20, ``sum``, ``rank()``) into a new table, timed, and
   compares it with the published list row by row.

Writes ``bench/results/close_month.json`` (or ``--out``) and prints a summary.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CLOSE_YEAR, CLOSE_MONTH = 2026, 3
PG_EPOCH = dt.date(2000, 1, 1)
PG_EPOCH_TS = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
CHUNK = 1_000_000
COUNTRIES = [b"DE", b"AT", b"FR", b"IT", b"ES", b"NL", b"BE", b"PL", b"CZ", b"DK", b"SE", b"CH"]
BASES = np.array([10, 20, 40, 80, 160], dtype=np.int16)
CATEGORIES = [b"club", b"league", b"national", b"international", b"world"]


def month_index(year: int, month: int) -> int:
    return year * 12 + month - 1


def first_day(index: int) -> dt.date:
    return dt.date(index // 12, index % 12 + 1, 1)


CLOSE = month_index(CLOSE_YEAR, CLOSE_MONTH)


# --- binary COPY ------------------------------------------------------------------------------


def fixed_text(prefix: bytes, numbers: np.ndarray, width: int) -> np.ndarray:
    """``prefix + zero-padded number`` as a fixed-width bytes array (no Python loop)."""
    n = len(numbers)
    out = np.empty((n, len(prefix) + width), dtype=np.uint8)
    out[:, : len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    x = numbers.astype(np.int64)
    for i in range(width - 1, -1, -1):
        out[:, len(prefix) + i] = 48 + x % 10
        x //= 10
    return out.view(f"S{len(prefix) + width}").ravel()


def pick_text(choices: list[bytes], index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Variable-width text chosen per row: (lengths, bytes padded to the longest)."""
    width = max(len(c) for c in choices)
    table = np.array(choices, dtype=f"S{width}")
    lengths = np.array([len(c) for c in choices], dtype=np.int32)
    return lengths[index], table[index]


def copy_in(conn: Any, table: str, columns: list[tuple[str, str, Any]]) -> int:
    """Binary COPY of columns (name, kind, values); kinds: i2 i4 i8 date ts S (fixed text)
    or V (variable text given as (lengths, padded bytes))."""
    names = ", ".join(name for name, _, _ in columns)
    n = len(columns[0][2][1] if columns[0][1] == "V" else columns[0][2])
    with (
        conn.cursor() as cursor,
        cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT binary)") as copy,
    ):
        copy.write(SIGNATURE)
        for start in range(0, n, CHUNK):
            stop = min(n, start + CHUNK)
            copy.write(_records(columns, start, stop))
        copy.write(b"\xff\xff")
    return n


def _records(columns: list[tuple[str, str, Any]], start: int, stop: int) -> bytes:
    n = stop - start
    fields: list[tuple[str, str]] = [("count", ">i2")]
    for i, (_, kind, values) in enumerate(columns):
        if kind == "V":
            fields += [(f"l{i}", ">i4"), (f"v{i}", values[1].dtype.str)]
        elif kind == "S":
            fields += [(f"l{i}", ">i4"), (f"v{i}", values.dtype.str)]
        else:
            code = {"i2": ">i2", "i4": ">i4", "i8": ">i8", "date": ">i4", "ts": ">i8"}[kind]
            fields += [(f"l{i}", ">i4"), (f"v{i}", code)]
    dtype = np.dtype(fields)
    rec = np.empty(n, dtype=dtype)
    rec["count"] = len(columns)
    variable: list[tuple[int, np.ndarray]] = []
    for i, (_, kind, values) in enumerate(columns):
        if kind == "V":
            lengths, padded = values
            rec[f"l{i}"] = lengths[start:stop]
            rec[f"v{i}"] = padded[start:stop]
            variable.append((i, lengths[start:stop]))
        else:
            rec[f"l{i}"] = dtype[f"v{i}"].itemsize
            rec[f"v{i}"] = values[start:stop]
    if not variable:
        return rec.tobytes()
    # Cut the padding of variable-width texts: keep each row's bytes up to its length.
    raw = rec.view(np.uint8).reshape(n, dtype.itemsize)
    keep = np.ones(raw.shape, dtype=bool)
    for i, lengths in variable:
        offset = dtype.fields[f"v{i}"][1]  # type: ignore[index]
        width = dtype[f"v{i}"].itemsize
        cut = np.arange(width)[None, :] >= lengths[:, None]
        keep[:, offset : offset + width] &= ~cut
    return raw[keep].tobytes()


def days(dates: np.ndarray) -> np.ndarray:
    """numpy datetime64[D] -> PostgreSQL date (days since 2000-01-01)."""
    return (dates - np.datetime64(PG_EPOCH)).astype(np.int64).astype(np.int32)


def micros(stamps: np.ndarray) -> np.ndarray:
    """numpy datetime64[us] (UTC) -> PostgreSQL timestamptz (microseconds since 2000)."""
    return (stamps - np.datetime64("2000-01-01T00:00:00", "us")).astype(np.int64)


# --- the data ---------------------------------------------------------------------------------


def generate(conn: Any, *, n_players: int, n_rows: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    n_clubs = max(10, n_players // 200)

    # Matches: table sizes and teams roughly as a club evening looks.
    k_values = np.array([2, 3, 4, 5, 6, 7, 8, 9])
    k_weights = np.array([0.22, 0.15, 0.45, 0.06, 0.05, 0.03, 0.02, 0.02])
    n_matches = int(n_rows / 3.9) + 1000
    k = rng.choice(k_values, size=n_matches, p=k_weights)
    team = np.where((k <= 4) & (rng.random(n_matches) < 0.1), 2, 1)
    members = k * team
    n_matches = int(np.searchsorted(np.cumsum(members), n_rows, side="right"))
    k, team, members = k[:n_matches], team[:n_matches], members[:n_matches]
    n = int(members.sum())

    # Skewed activity; a player sits at most once at a table (redraw repeats).
    activity = rng.lognormal(0.0, 1.1, n_players)
    cdf = np.cumsum(activity / activity.sum())
    match_of_row = np.repeat(np.arange(n_matches, dtype=np.int64), members)
    player = np.minimum(np.searchsorted(cdf, rng.random(n)), n_players - 1).astype(np.int64)
    while True:
        key = np.sort(match_of_row << 24 | player)
        repeated = np.flatnonzero(np.diff(key) == 0) + 1
        if not len(repeated):
            break
        player = key & ((1 << 24) - 1)
        player[repeated] = rng.integers(0, n_players, len(repeated))
        match_of_row = key >> 24
    position = np.arange(n) - np.repeat(np.cumsum(members) - members, members)
    side = position % np.repeat(k, members)
    # Rows in (match, side, player) order, as the rows of a match are inserted.
    key = np.sort(match_of_row << 28 | side << 24 | player)
    match_of_row, side, player = key >> 28, (key >> 24) & 15, key & ((1 << 24) - 1)
    del key, position

    age = rng.integers(0, 12, n_matches)
    played = CLOSE - age
    late = (rng.random(n_matches) < 0.03) & (age > 0)
    counting = np.where(late, played + 1, played)
    base_index = rng.choice(5, n_matches, p=[0.7, 0.15, 0.1, 0.04, 0.01])
    club = rng.integers(0, n_clubs, n_matches)
    month_start = np.array(
        [np.datetime64(first_day(m)) for m in range(CLOSE - 12, CLOSE + 2)], dtype="datetime64[D]"
    )
    played_day = month_start[played - (CLOSE - 12)] + rng.integers(0, 28, n_matches)
    received = np.where(
        late,
        month_start[counting - (CLOSE - 12)] + 2,
        played_day,
    ).astype("datetime64[us]") + np.timedelta64(18, "h")
    k_start = np.cumsum(k) - k
    n_sides = int(k.sum())
    side_score = rng.integers(-50, 150, n_sides).astype(np.int32)
    side_match = np.repeat(np.arange(n_matches, dtype=np.int64), k)
    side_position = (np.arange(n_sides) - np.repeat(k_start, k) + 1).astype(np.int16)
    counting_day = month_start[counting - (CLOSE - 12)]
    played_first = month_start[played - (CLOSE - 12)]
    print(f"  arrays: {n:,} results, {n_matches:,} matches in {time.perf_counter() - t0:.1f} s")

    now = np.datetime64("2026-04-01T00:00:00", "us")
    timings: dict[str, float] = {}

    def timed(name: str, fn: Any) -> None:
        t = time.perf_counter()
        rows = fn()
        timings[name] = round(time.perf_counter() - t, 1)
        print(f"  {name}: {rows:,} rows in {timings[name]:.1f} s", flush=True)

    clubs = np.arange(n_clubs)
    timed(
        "clubs",
        lambda: copy_in(
            conn,
            "matches_club",
            [
                ("id", "i8", clubs + 1),
                ("club_id", "S", fixed_text(b"CLUB-", clubs + 1, 6)),
                ("name", "S", fixed_text(b"Club ", clubs + 1, 6)),
                ("country", "V", pick_text(COUNTRIES, clubs % len(COUNTRIES))),
                ("city", "V", pick_text([b""], np.zeros(n_clubs, dtype=np.int64))),
                ("created_at", "ts", np.full(n_clubs, micros(np.array([now]))[0])),
            ],
        ),
    )
    people = np.arange(n_players)
    timed(
        "players",
        lambda: copy_in(
            conn,
            "matches_player",
            [
                ("id", "i8", people + 1),
                ("player_id", "S", fixed_text(b"P-", people + 1, 7)),
                ("name", "S", fixed_text(b"Player ", people + 1, 7)),
                ("country", "V", pick_text(COUNTRIES, rng.integers(0, len(COUNTRIES), n_players))),
                ("created_at", "ts", np.full(n_players, micros(np.array([now]))[0])),
                ("club_id", "i8", rng.integers(0, n_clubs, n_players) + 1),
            ],
        ),
    )
    # One submission per club and counting month.
    sub_month = np.tile(np.arange(12), n_clubs)
    sub_club = np.repeat(clubs, 12)
    timed(
        "submissions",
        lambda: copy_in(
            conn,
            "matches_submission",
            [
                ("id", "i8", sub_club * 12 + sub_month + 1),
                ("received_at", "ts", micros(month_start[sub_month + 1].astype("datetime64[us]"))),
                ("channel", "V", pick_text([b"import"], np.zeros(len(sub_club), dtype=np.int64))),
                ("club_id", "i8", sub_club + 1),
            ],
        ),
    )
    matches = np.arange(n_matches)
    timed(
        "matches",
        lambda: copy_in(
            conn,
            "matches_match",
            [
                ("id", "i8", matches + 1),
                ("external_id", "S", fixed_text(b"m", matches + 1, 9)),
                ("revision", "i2", np.ones(n_matches, dtype=np.int16)),
                ("date_played", "date", days(played_day)),
                ("discipline", "V", pick_text([b"fido"], np.zeros(n_matches, dtype=np.int64))),
                ("category", "V", pick_text(CATEGORIES, base_index)),
                ("received_at", "ts", micros(received)),
                ("status", "V", pick_text([b"on_time", b"late"], late.astype(np.int64))),
                ("counting_month", "date", days(counting_day)),
                ("void_reason", "V", pick_text([b""], np.zeros(n_matches, dtype=np.int64))),
                ("club_id", "i8", club + 1),
                ("submission_id", "i8", club * 12 + (counting - (CLOSE - 11)) + 1),
            ],
        ),
    )
    timed(
        "sides",
        lambda: copy_in(
            conn,
            "matches_side",
            [
                ("id", "i8", np.arange(n_sides, dtype=np.int64) + 1),
                ("position", "i2", side_position),
                ("score", "i4", side_score),
                ("match_id", "i8", side_match + 1),
            ],
        ),
    )
    side_id = k_start[match_of_row] + side
    timed(
        "side members",
        lambda: copy_in(
            conn,
            "matches_sidemember",
            [
                ("id", "i8", np.arange(n, dtype=np.int64) + 1),
                ("discipline", "V", pick_text([b"fido"], np.zeros(n, dtype=np.int64))),
                ("month_played", "date", days(played_first)[match_of_row]),
                ("counting_month", "date", days(counting_day)[match_of_row]),
                ("base", "i2", BASES[base_index][match_of_row]),
                ("side_position", "i2", (side + 1).astype(np.int16)),
                ("score", "i4", side_score[side_id]),
                ("match_id", "i8", match_of_row + 1),
                ("player_id", "i8", player + 1),
                ("side_id", "i8", side_id + 1),
            ],
        ),
    )
    return {"players": n_players, "results": n, "matches": n_matches, "timings": timings}


def publish_previous_lists(*, n_players: int, lists: int, seed: int) -> None:
    """Published lists for the ``lists`` months before the close (90% of players on each)."""
    from django.db import connection, transaction

    from matches.models import ClosedMonth
    from matches.months import Month
    from rankings import fladub, writer
    from rankings.models import CurrentList, RankingList

    rng = np.random.default_rng(seed + 1)
    at = dt.datetime(2026, 3, 1, 0, 10, tzinfo=dt.UTC)
    previous_ranks: np.ndarray | None = None
    for month in range(CLOSE - lists, CLOSE):
        listed = np.flatnonzero(rng.random(n_players) < 0.9) + 1
        cents = np.maximum(1, rng.lognormal(8.0, 1.0, len(listed))).astype(np.int64)
        order = np.lexsort((listed, -cents))
        listed, cents = listed[order], cents[order]
        ranks = fladub.PublishedList(player=listed, fladub_cents=cents).ranks()
        prev = np.zeros(len(listed), dtype=np.int64)
        if previous_ranks is not None:
            prev = previous_ranks[listed]
        ranking = fladub.RankingList(
            month=month,
            player=listed,
            fladub_cents=cents,
            rank=ranks,
            results_counted=rng.integers(1, 40, len(listed)),
            previous_rank=prev,
        )
        with transaction.atomic():
            row = RankingList.objects.create(
                discipline="fido", month=first_day(month), version=1, created_at=at
            )
            writer.write_entries(ranking_list=row, ranking=ranking)
            RankingList.objects.filter(pk=row.pk).update(
                status="published", published_at=at, entry_count=len(listed)
            )
            ClosedMonth.objects.get_or_create(
                discipline="fido", month=first_day(month), defaults={"closed_at": at}
            )
            CurrentList.objects.update_or_create(
                discipline="fido", defaults={"ranking_list_id": row.pk, "updated_at": at}
            )
        previous_ranks = np.zeros(n_players + 1, dtype=np.int64)
        previous_ranks[listed] = ranks
        print(f"  published list {Month.from_index(month)}: {len(listed):,} entries", flush=True)
    connection.close()


# --- phases -----------------------------------------------------------------------------------


def database_url(args: argparse.Namespace, user: str) -> str:
    return f"postgres://{user}@{args.host}:{args.port}/{args.database}"


def superuser(args: argparse.Namespace) -> Any:
    import psycopg

    return psycopg.connect(
        host=args.host, port=args.port, user=args.superuser, dbname=args.database, autocommit=True
    )


def ensure_database(args: argparse.Namespace) -> None:
    import psycopg

    with psycopg.connect(
        host=args.host, port=args.port, user=args.superuser, dbname="postgres", autocommit=True
    ) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [args.database]
        ).fetchone()
    if not exists:
        subprocess.run(
            [
                "createdb",
                "-h",
                args.host,
                "-p",
                str(args.port),
                "-U",
                args.superuser,
                "-O",
                args.user,
                args.database,
            ],
            check=True,
        )
    env = {**os.environ, "DATABASE_URL": database_url(args, args.user)}
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)


def wanted_meta(args: argparse.Namespace) -> dict[str, Any]:
    return {"scale": args.scale, "seed": args.seed, "lists": args.lists, "version": 1}


def stored_meta(conn: Any) -> dict[str, Any] | None:
    conn.execute("CREATE TABLE IF NOT EXISTS bench_meta (data jsonb NOT NULL)")
    row = conn.execute("SELECT data FROM bench_meta LIMIT 1").fetchone()
    return row[0] if row else None


GENERATED_TABLES = (
    "matches_club",
    "matches_player",
    "matches_submission",
    "matches_match",
    "matches_side",
    "matches_sidemember",
)


def drop_secondary_indexes(conn: Any, tables: tuple[str, ...]) -> list[str]:
    """Drop every index but the primary keys (and the unique constraints they back) of
    ``tables``; return the statements that rebuild them."""
    rebuild: list[str] = []
    for table in tables:
        constraints = conn.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'u'",
            [table],
        ).fetchall()
        owned = {
            name
            for (name,) in conn.execute(
                "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass", [table]
            ).fetchall()
        }
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s", [table]
        ).fetchall()
        for name, definition in constraints:
            conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
            rebuild.append(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
        for name, definition in indexes:
            if name in owned:
                continue
            conn.execute(f'DROP INDEX "{name}"')
            rebuild.append(definition)
    return rebuild


def regenerate(args: argparse.Namespace) -> dict[str, Any]:
    n_players = int(1_000_000 * args.scale)
    n_rows = int(12_000_000 * args.scale)
    with superuser(args) as conn:
        conn.execute(
            "TRUNCATE matches_sidemember, matches_side, matches_matchevent, matches_match, "
            "matches_submission, matches_idempotencyrecord, matches_playermerge, "
            "matches_secretary, matches_player, matches_club, matches_closedmonth, "
            "rankings_currentlist, rankings_closerun, rankings_rankingentry, "
            "rankings_rankinglist, bench_meta RESTART IDENTITY CASCADE"
        )
        conn.execute("SET session_replication_role = replica")  # no FK triggers: valid data
        conn.execute("SET synchronous_commit = off")
        conn.execute("SET maintenance_work_mem = '1GB'")
        # Load without the secondary indexes and unique constraints, then build them in bulk.
        rebuild = drop_secondary_indexes(conn, GENERATED_TABLES)
        info = generate(conn, n_players=n_players, n_rows=n_rows, seed=args.seed)
        t = time.perf_counter()
        for statement in rebuild:
            conn.execute(statement)
        print(f"  indexes and constraints rebuilt in {time.perf_counter() - t:.1f} s", flush=True)
        for table in GENERATED_TABLES:
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT coalesce(max(id), 1) FROM {table}))"
            )
    _django(args)
    publish_previous_lists(n_players=n_players, lists=args.lists, seed=args.seed)
    with superuser(args) as conn:
        t = time.perf_counter()
        conn.execute("VACUUM ANALYZE")
        print(f"  vacuum analyze: {time.perf_counter() - t:.1f} s", flush=True)
        meta = json.dumps({**wanted_meta(args), **info})
        conn.execute("INSERT INTO bench_meta VALUES (%s)", [meta])
    return info


def reset_close(args: argparse.Namespace) -> None:
    """Remove what an earlier run of this benchmark published for the closed month."""
    month = first_day(CLOSE)
    with superuser(args) as conn:
        conn.execute("SET session_replication_role = replica")  # past the immutability triggers
        conn.execute(
            "DELETE FROM rankings_rankingentry WHERE ranking_list_id IN "
            "(SELECT id FROM rankings_rankinglist WHERE month >= %s)",
            [month],
        )
        conn.execute("UPDATE rankings_closerun SET ranking_list_id = NULL")
        conn.execute(
            "UPDATE rankings_currentlist SET ranking_list_id = "
            "(SELECT id FROM rankings_rankinglist WHERE discipline = 'fido' AND month < %s "
            "AND status = 'published' "
            "ORDER BY month DESC LIMIT 1)",
            [month],
        )
        conn.execute("DELETE FROM rankings_rankinglist WHERE month >= %s", [month])
        conn.execute("DELETE FROM matches_closedmonth WHERE month >= %s", [month])
        conn.execute("DELETE FROM rankings_closerun")
        conn.execute("DROP TABLE IF EXISTS bench_sql_list")
        # Leave the entries table as a close finds it in production, where lists are only
        # ever added: no dead rows or half-empty index pages left by an earlier run.
        conn.execute("VACUUM FULL ANALYZE rankings_rankingentry")


def _django(args: argparse.Namespace) -> None:
    os.environ["DATABASE_URL"] = database_url(args, args.user)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.base")
    import django

    django.setup()


def phase_close(args: argparse.Namespace) -> None:
    """Run in a fresh process: the close, inline, and its peak memory."""
    _django(args)
    import logging

    from django.db import connection

    from matches.months import Month, deadline
    from rankings import services
    from rankings.models import CloseRun
    from rankings.selectors import current_list

    class Collect(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.INFO)
            self.lines: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.lines.append(record.getMessage())

    collect = Collect()
    for name in ("rankings.loader", "rankings.writer"):
        logging.getLogger(name).addHandler(collect)
    connection.ensure_connection()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    month = Month(CLOSE_YEAR, CLOSE_MONTH)
    now = deadline(month, ZoneInfo("Europe/Berlin")) + dt.timedelta(hours=1)
    t = time.perf_counter()
    listed = services.month_close(month=month, discipline="fido", now=now, streams=args.streams)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    run = CloseRun.objects.get(ranking_list=listed)
    assert current_list(discipline="fido") == listed  # noqa: S101
    print(
        "CLOSE "
        + json.dumps(
            {
                "seconds": round(wall, 2),
                "stages": run.timings,
                "peak_rss_mib": round(peak),
                "rss_before_mib": round(before),
                "entries": listed.entry_count,
                "list_id": listed.pk,
                "log": collect.lines,
            }
        )
    )


SQL_QUERY = """
CREATE UNLOGGED TABLE bench_sql_list AS
WITH w AS (
    SELECT match_id, side_position, score, base, player_id, month_played,
           {close_index} - (EXTRACT(YEAR FROM month_played)::int * 12
                            + EXTRACT(MONTH FROM month_played)::int - 1) AS age
    FROM matches_sidemember
    WHERE discipline = 'fido' AND counting_month <= DATE '{close}'
      AND month_played >= DATE '{first}' AND month_played <= DATE '{close}'
      AND (void_effective_month IS NULL OR void_effective_month > DATE '{close}')
),
strength AS (
    SELECT (l.month + INTERVAL '1 month')::date AS played, e.player_id,
           e.fladub_cents::float8 / max(e.fladub_cents) OVER (PARTITION BY l.id) AS q
    FROM rankings_rankingentry e JOIN rankings_rankinglist l ON l.id = e.ranking_list_id
    WHERE l.discipline = 'fido' AND l.status = 'published'
      AND l.month >= DATE '{first_list}' AND l.month < DATE '{close}'
),
wq AS (
    SELECT w.*, coalesce(s.q, 0) AS q
    FROM w LEFT JOIN strength s ON s.player_id = w.player_id AND s.played = w.month_played
),
sides AS (
    SELECT match_id, side_position, min(score) AS score, min(base) AS base, avg(q) AS q
    FROM wq GROUP BY match_id, side_position
),
points AS (
    SELECT t.match_id, t.side_position,
           t.base * sum(CASE WHEN t.score > u.score THEN 1.0 WHEN t.score = u.score THEN 0.5
                             ELSE 0.0 END * (1 + u.q)) / count(*) AS pts
    FROM sides t JOIN sides u ON u.match_id = t.match_id AND u.side_position <> t.side_position
    GROUP BY t.match_id, t.side_position, t.base
),
weighted AS (
    SELECT wq.player_id, p.pts * (12 - wq.age) / 12 AS wp,
           row_number() OVER (PARTITION BY wq.player_id
                              ORDER BY p.pts * (12 - wq.age) / 12 DESC) AS n
    FROM wq JOIN points p ON p.match_id = wq.match_id AND p.side_position = wq.side_position
),
totals AS (
    SELECT player_id, round((sum(wp) FILTER (WHERE n <= 20))::numeric, 2) AS fladub,
           count(*) AS results_counted
    FROM weighted GROUP BY player_id
)
SELECT rank() OVER (ORDER BY fladub DESC) AS rank, player_id, fladub, results_counted
FROM totals WHERE fladub > 0
"""


def phase_sql(args: argparse.Namespace, list_id: int) -> dict[str, Any]:
    import psycopg

    def one(sql: str, params: Any = None) -> Any:
        row = conn.execute(sql, params).fetchone()
        assert row is not None  # noqa: S101
        return row

    query = SQL_QUERY.format(
        close_index=CLOSE,
        close=first_day(CLOSE).isoformat(),
        first=first_day(CLOSE - 11).isoformat(),
        first_list=first_day(CLOSE - 12).isoformat(),
    )
    with psycopg.connect(database_url(args, args.user), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_sql_list")
        conn.execute(f"SET work_mem = '{args.sql_work_mem}'")
        t = time.perf_counter()
        conn.execute(query)
        seconds = time.perf_counter() - t
        rows = one("SELECT count(*) FROM bench_sql_list")[0]
        same, only_one, differ = one(
            """
            SELECT count(*) FILTER (WHERE e.fladub_cents = (s.fladub * 100)::int
                                      AND e.rank = s.rank
                                      AND e.results_counted = s.results_counted),
                   count(*) FILTER (WHERE e.player_id IS NULL OR s.player_id IS NULL),
                   count(*) FILTER (WHERE e.fladub_cents <> (s.fladub * 100)::int)
            FROM bench_sql_list s
            FULL JOIN (SELECT * FROM rankings_rankingentry WHERE ranking_list_id = %s) e
              ON e.player_id = s.player_id
            """,
            [list_id],
        )
        settings = {
            name: one(f"SHOW {name}")[0]
            for name in ("work_mem", "max_parallel_workers_per_gather", "shared_buffers")
        }
    return {
        "seconds": round(seconds, 2),
        "rows": rows,
        "identical_rows": same,
        "rows_on_one_side_only": only_one,
        "fladub_differs": differ,
        "settings": settings,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of 1M players x 12M")
    parser.add_argument("--seed", type=int, default=20260331)
    parser.add_argument("--lists", type=int, default=1, help="published lists before the close")
    parser.add_argument("--streams", type=int, default=None, help="parallel COPY readers")
    parser.add_argument("--database", default="fido_bench_close")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5432)
    parser.add_argument("--user", default="fido")
    parser.add_argument("--superuser", default="postgres")
    parser.add_argument("--regenerate", action="store_true", help="generate even if present")
    parser.add_argument("--no-sql", action="store_true", help="skip the SQL query")
    parser.add_argument("--sql-work-mem", default="256MB")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "close_month.json"))
    parser.add_argument("--phase", choices=["close"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.phase == "close":
        phase_close(args)
        return

    print(f"database {args.database}: preparing", flush=True)
    ensure_database(args)
    with superuser(args) as conn:
        meta = stored_meta(conn)
    if args.regenerate or not meta or any(meta.get(k) != v for k, v in wanted_meta(args).items()):
        print("generating data (not timed)", flush=True)
        t = time.perf_counter()
        regenerate(args)
        print(f"generated in {time.perf_counter() - t:.0f} s", flush=True)
        with superuser(args) as conn:
            meta = stored_meta(conn)
    else:
        print("data already present", flush=True)
    assert meta is not None  # noqa: S101
    reset_close(args)

    load_before = [round(x, 2) for x in os.getloadavg()]
    print("closing 2026-03 (month_close, inline, fresh process)", flush=True)
    command = [sys.executable, __file__, "--phase", "close", "--database", args.database]
    command += ["--host", args.host, "--port", str(args.port), "--user", args.user]
    if args.streams:
        command += ["--streams", str(args.streams)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit("the close failed")
    close = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("CLOSE "))[6:])
    print(f"  close: {close['seconds']:.1f} s, peak RSS {close['peak_rss_mib']:,} MiB", flush=True)
    for stage in ("freeze", "load", "compute", "write", "publish"):
        print(f"    {stage:<8} {close['stages'].get(stage, float('nan')):7.2f} s")
    for line in close["log"]:
        print(f"    {line}")

    sql = None
    if not args.no_sql:
        print("the same list by one SQL window-function query", flush=True)
        sql = phase_sql(args, close["list_id"])
        print(
            f"  sql: {sql['seconds']:.1f} s, {sql['rows']:,} rows, identical "
            f"{sql['identical_rows']:,}, FLADUB differs {sql['fladub_differs']:,}, "
            f"on one side only {sql['rows_on_one_side_only']:,}",
            flush=True,
        )

    command_line = " ".join(
        [".venv/bin/python", "bench/close_month.py"]
        + [a for a in sys.argv[1:] if a not in {"--regenerate"}]
    )
    result = {
        "command": command_line,
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "memory_gib": round(
                os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1
            ),
            "python": platform.python_version(),
            # The machine may be shared: the 1/5/15-minute load averages around the run.
            "load_average_before": load_before,
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "data": {k: meta[k] for k in ("players", "results", "matches", "lists") if k in meta},
        "close": close,
        "sql_window_query": sql,
        "targets": {"close_seconds": 60, "peak_rss_gib": 4, "faster_than_sql": True},
        "met": {
            "under_60_s": close["seconds"] < 60,
            "under_4_gib": close["peak_rss_mib"] < 4096,
            "faster_than_sql": None if sql is None else close["seconds"] < sql["seconds"],
        },
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
