"""The data set of the monthly-close benchmark: generated once, kept, reset between runs.

    .venv/bin/python bench/close_data.py ensure --database fido_bench_close --scale 1 --lists 1
    .venv/bin/python bench/close_data.py reset --database fido_bench_close

Run as a child of ``bench/close_month.py`` (so that the process that times the close never
held the generator's arrays). ``ensure`` generates the data unless the database already
holds it for the same ``--scale`` and ``--seed``: clubs, players, submissions, matches,
sides and one SideMember row per result, every row valid for the schema, 12 months of
matches ending in the closed month 2026-03 (3% of them late), tables of 2 to 9 sides, some
teams of two, a skewed activity (many players above 20 results). Everything goes in with
binary ``COPY`` built by NumPy, foreign-key triggers off (superuser
``session_replication_role = replica``; the data are valid by construction), secondary
indexes built after the load. Then it publishes the ``--lists`` lists of the months before
2026-03 (opponent strength and previous ranks; 90% of the players on each, random FLADUB):
when only the number of lists differs from what is stored, only the lists are rebuilt.
Each list gets its pack as the close would have stored it (:mod:`rankings.list_packs`),
and ``ensure`` packs any list that has none (``manage.py pack_lists``); with
``--no-packs`` it removes the packs instead, the cold case of lists published before packs
existed. The ``META`` line says how many of those lists have a pack (``packs``).
``reset`` removes what a close or a peer of an earlier run left for 2026-03. Not timed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.synthetic import synthetic_tables  # noqa: E402

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

    tables = synthetic_tables(rng, n_players=n_players, n_rows=n_rows, player_bits=24)
    n_matches, k = tables.n_matches, tables.sides
    match_of_row, side, player = tables.match_of_row, tables.side, tables.player
    n = len(player)

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
    # Numbered in the order they are received, as the service numbers them: the match
    # facts are drawn independently of the tables they are given to, so sorting them by
    # receipt before handing them out changes no distribution (DATA_VERSION 2; version 1
    # numbered matches in random month order, a table no service would write).
    by_receipt = np.argsort(received, kind="stable")
    age, played, late, counting = (
        age[by_receipt],
        played[by_receipt],
        late[by_receipt],
        counting[by_receipt],
    )
    base_index, club = base_index[by_receipt], club[by_receipt]
    played_day, received = played_day[by_receipt], received[by_receipt]
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

    from matches import audit
    from matches.models import ClosedMonth
    from matches.months import Month
    from rankings import fladub, list_packs, writer
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
        # The earlier lists as the close would have published them (matches.audit: only
        # the services write lists; the generator stands in for them).
        with transaction.atomic(), audit.recording():
            row = RankingList.objects.create(
                discipline="fido", month=first_day(month), version=1, created_at=at
            )
            writer.write_entries(ranking_list=row, ranking=ranking)
            RankingList.objects.filter(pk=row.pk).update(
                status="published", published_at=at, entry_count=len(listed)
            )
            list_packs.pack_insert(row.pk, ranking.to_published())  # as list_publish does
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


# --- the database -----------------------------------------------------------------------------


def database_url(args: argparse.Namespace, user: str) -> str:
    return f"postgres://{user}@{args.host}:{args.port}/{args.database}"


def superuser(args: argparse.Namespace) -> Any:
    import psycopg

    return psycopg.connect(
        host=args.host, port=args.port, user=args.superuser, dbname=args.database, autocommit=True
    )


DATA_VERSION = 2


def wanted_meta(args: argparse.Namespace) -> dict[str, Any]:
    return {"scale": args.scale, "seed": args.seed, "version": DATA_VERSION}


def stored_meta(conn: Any) -> dict[str, Any] | None:
    conn.execute("CREATE TABLE IF NOT EXISTS bench_meta (data jsonb NOT NULL)")
    row = conn.execute("SELECT data FROM bench_meta LIMIT 1").fetchone()
    return row[0] if row else None


def store_meta(conn: Any, meta: dict[str, Any]) -> None:
    conn.execute("DELETE FROM bench_meta")
    conn.execute("INSERT INTO bench_meta VALUES (%s)", [json.dumps(meta)])


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
            "rankings_listpack, rankings_resultpack, rankings_memberchange, "
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
        store_meta(conn, {**wanted_meta(args), **info, "lists": 0})
    return info


def remove_lists(
    args: argparse.Namespace, *, before: dt.date | None = None, result_packs: bool = True
) -> None:
    """Delete the lists of the closed month and later (``before`` None: every list), the
    result packs of the same months (``result_packs`` False: every result pack), and the
    players' packs of points made after those lists' closes."""
    from rankings.partitions import partition_name

    where, params = ("WHERE month >= %s", [first_day(CLOSE)]) if before is None else ("", [])
    with superuser(args) as conn:
        conn.execute("SET session_replication_role = replica")  # past the immutability triggers
        lists = f"SELECT id FROM rankings_rankinglist {where}"
        conn.execute(
            f"DELETE FROM rankings_rankingentry WHERE ranking_list_id IN ({lists})", params
        )
        conn.execute(f"DELETE FROM rankings_listpack WHERE ranking_list_id IN ({lists})", params)
        # The result packs of the month the close packs (every pack, with every list), their
        # chunks by hand (replica: no cascade), and any chunk left without its pack.
        pack_where, pack_params = (where, params) if result_packs else ("", [])
        conn.execute(f"DELETE FROM rankings_resultpack {pack_where}", pack_params)
        conn.execute(
            "DELETE FROM rankings_resultpackchunk c WHERE NOT EXISTS "
            "(SELECT 1 FROM rankings_resultpack p WHERE p.id = c.pack_id)"
        )
        conn.execute(f"DELETE FROM rankings_playerpointspack {where}", params)
        conn.execute(
            f"DELETE FROM rankings_projectionreview WHERE ranking_list_id IN ({lists})", params
        )
        conn.execute("UPDATE rankings_closerun SET ranking_list_id = NULL")
        conn.execute("DELETE FROM rankings_currentlist")
        removed = [row[0] for row in conn.execute(lists, params).fetchall()]
        conn.execute(f"DELETE FROM rankings_rankinglist {where}", params)
        for list_id in removed:  # their partitions (PostgreSQL 0015), now empty
            conn.execute(f"DROP TABLE IF EXISTS {partition_name(list_id)}")
        month_where = "WHERE month >= %s" if before is None else ""
        conn.execute(f"DELETE FROM matches_closedmonth {month_where}", params)
        conn.execute(
            "INSERT INTO rankings_currentlist (discipline, ranking_list_id, updated_at) "
            "SELECT discipline, id, published_at FROM rankings_rankinglist "
            "WHERE status = 'published' ORDER BY month DESC LIMIT 1"
        )
        conn.execute("DELETE FROM rankings_closerun")
        for table in ("bench_sql_list", "bench_pipeline_list"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        # Leave the entries table as a close finds it in production, where lists are only
        # ever added: no dead rows or half-empty index pages left by an earlier run; the
        # same for the result packs.
        conn.execute("VACUUM FULL ANALYZE rankings_rankingentry")
        conn.execute("VACUUM ANALYZE rankings_resultpack, rankings_resultpackchunk")


def ensure(args: argparse.Namespace) -> dict[str, Any]:
    """The data for ``--scale``/``--seed`` with ``--lists`` earlier lists; return the meta."""
    with superuser(args) as conn:
        meta = stored_meta(conn)
    if args.regenerate or not meta or any(meta.get(k) != v for k, v in wanted_meta(args).items()):
        print("generating data (not timed)", flush=True)
        t = time.perf_counter()
        regenerate(args)
        print(f"generated in {time.perf_counter() - t:.0f} s", flush=True)
        with superuser(args) as conn:
            meta = stored_meta(conn)
    assert meta is not None  # noqa: S101
    if meta.get("lists") != args.lists:
        print(f"publishing the {args.lists} list(s) before 2026-03 (not timed)", flush=True)
        remove_lists(args, before=first_day(CLOSE))
        _django(args)
        publish_previous_lists(n_players=int(meta["players"]), lists=args.lists, seed=args.seed)
        with superuser(args) as conn:
            t = time.perf_counter()
            conn.execute("VACUUM ANALYZE")
            print(f"  vacuum analyze: {time.perf_counter() - t:.1f} s", flush=True)
            meta["lists"] = args.lists
            store_meta(conn, meta)
    meta["packs"] = packs_ensure(args)
    meta["result_packs"] = result_packs_ensure(args)
    return meta


def result_packs_ensure(args: argparse.Namespace) -> int:
    """Pack the counted results as the close of 2026-02 would have (``manage.py
    pack_lists`` does the same after an upgrade: the window of the latest list, the months
    no pack holds), or, with ``--no-result-packs``, remove them (the first close after the
    upgrade); return how many months have a pack."""
    if args.result_packs:
        _django(args)
        from rankings.services.packs import result_packs_backfill

        t = time.perf_counter()
        packed = result_packs_backfill("fido")
        if packed:
            print(f"  packed the results of {packed} month(s) in {time.perf_counter() - t:.1f} s")
    else:
        with superuser(args) as conn:
            conn.execute("SET session_replication_role = replica")  # past the pack guard
            conn.execute("DELETE FROM rankings_resultpackchunk")
            conn.execute("DELETE FROM rankings_resultpack")
    with superuser(args) as conn:
        # As autovacuum leaves packs a month after they were written: statistics, hint bits.
        conn.execute("VACUUM ANALYZE rankings_resultpack, rankings_resultpackchunk")
    with superuser(args) as conn:
        row = conn.execute(
            "SELECT count(*) FROM rankings_resultpack WHERE month < %s", [first_day(CLOSE)]
        ).fetchone()
    return int(row[0]) if row else 0


def packs_ensure(args: argparse.Namespace) -> int:
    """Pack the lists before 2026-03 that have no pack (``--packs``, as ``manage.py
    pack_lists`` would), or remove their packs (``--no-packs``); return how many of them
    have one now."""
    before = [first_day(CLOSE)]
    if args.packs:
        _django(args)
        from rankings.services.packs import packs_backfill

        t = time.perf_counter()
        packed = packs_backfill()
        if packed:
            print(f"  packed {packed} list(s) in {time.perf_counter() - t:.1f} s", flush=True)
    else:
        with superuser(args) as conn:
            conn.execute("SET session_replication_role = replica")  # past the pack guard
            conn.execute(
                "DELETE FROM rankings_listpack WHERE ranking_list_id IN "
                "(SELECT id FROM rankings_rankinglist WHERE month < %s)",
                before,
            )
            conn.execute("VACUUM rankings_listpack")  # no dead packs left for the next reads
    with superuser(args) as conn:
        row = conn.execute(
            "SELECT count(*) FROM rankings_listpack p JOIN rankings_rankinglist l "
            "ON l.id = p.ranking_list_id WHERE l.month < %s",
            before,
        ).fetchone()
    return int(row[0]) if row else 0


def _django(args: argparse.Namespace) -> None:
    os.environ["DATABASE_URL"] = database_url(args, args.user)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fido.settings.base")
    import django

    django.setup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["ensure", "reset"])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=20260331)
    parser.add_argument("--lists", type=int, default=1)
    parser.add_argument("--database", default="fido_bench_close")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5432)
    parser.add_argument("--user", default="fido")
    parser.add_argument("--superuser", default="postgres")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--no-packs", dest="packs", action="store_false", help="the earlier lists without packs"
    )
    parser.add_argument(
        "--no-result-packs",
        dest="result_packs",
        action="store_false",
        help="the earlier months' results without packs",
    )
    args = parser.parse_args()
    if args.action == "reset":
        remove_lists(args, result_packs=args.result_packs)
        return
    meta = ensure(args)
    print("META " + json.dumps(meta), flush=True)


if __name__ == "__main__":
    import psycopg

    try:
        main()
    except psycopg.Error as exc:  # a missing database, role or server: one line
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        sys.exit(f"close_data.py: {reason}")
