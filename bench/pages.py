"""Latency of the public pages and their API on the close benchmark's data (1M players, 12M
results), under concurrent clients, against a production-like server.

Usage::

    .venv/bin/python bench/pages.py [--database fido_bench_close] [--scale 1]
        [--requests 200] [--warmup 20] [--concurrency 4] [--seed 7] [--out FILE]
        [--kind KIND ...] [--explain] [--update-docs]

What it does, every step bounded and on the loopback interface only:

1. The data of ``bench/close_month.py``: ``bench/close_data.py ensure`` (a child process:
   1,000,000 players, 12,000,000 results at ``--scale 1``, kept between runs), then, unless
   the list of 2026-03 is published already, ``manage.py close_month 2026-03 --inline``:
   the pages read the list the close publishes; the projection of 2026-04; the packs of
   the busiest players' points (``manage.py pack_lists``, what a worker does after a
   close: :mod:`rankings.player_packs`); then ``VACUUM (ANALYZE)`` of the entries,
   as autovacuum does soon after a close on a default server; then a ``CHECKPOINT`` and a
   wait (at most a minute) for the CPUs to be quiet (``bench.common.settle``): the dirty
   buffers of the close and the vacuum are not written during the timed requests, nor
   the steps of ``make bench`` before this one still running.
2. Picks what a reader asks for: the ranking's first page; a deep page (rank 500,000, or
   half the list at a smaller scale); name searches (a full name: one player; five or
   three digits of the number in the names, found in about 100 and about 10,000 names:
   a rare and the commonest surname); the
   player pages of the 2,000 players with the most results in the window; the page of the
   club with the most players; and the API's equivalents (the list's first and deep page,
   the same searches, a player's history and results). No API answers for a club.
3. Collects the static files as a release does (into ``var/bench-static``), starts
   gunicorn as deploy/ does (``-c deploy/gunicorn.conf.py``: two processes per CPU,
   2 threads each) on the production settings (``fido.settings.production``, ``DEBUG``
   off, persistent connections; TLS redirect off: plain HTTP on the loopback), with Redis as
   in production (``BENCH_REDIS_URL``, default ``redis://127.0.0.1:6379/13``, flushed first: the
   API's throttle counters and the ETags of published lists live there; without it they
   would go to the file cache, two file writes a request that production never pays).
4. After an untimed warm-up, ``--requests`` GETs of each kind (of the kinds named by
   ``--kind``, repeatable, if given: e.g. ``--kind page:whatif --kind api:whatif``), shuffled, from
   ``--concurrency`` clients (one keep-alive connection each); every response must be
   200; the time is taken to the last byte of the body.
5. Writes p50/p95/p99/max per kind to ``--out`` (default ``bench/results/pages.json``),
   with what the timed requests cost in CPU (``cpu``: gunicorn's workers, PostgreSQL and
   Redis, the clients, in ms a request; the share of the machine's CPUs they kept busy;
   each worker's share of gunicorn's CPU, since a client's keep-alive connection stays
   with the worker that accepted it), with ``--explain`` the statements of the two
   slowest kinds with their ``EXPLAIN (ANALYZE, BUFFERS)`` beside it (``pages_explain.txt``, by
   ``bench/pages_explain.py``), and with ``--update-docs`` a generated block of
   docs/performance.md.

Targets (issue 12): p95 < 50 ms and p99 < 100 ms for each kind; the what-if (issue 13:
one player's number and rank in the next list, the page and ``POST /api/rankings/fido/
whatif`` with one table of three; the projection of 2026-04 made once in step 1):
p95 < 100 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import math
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402
    GUNICORN_CONF,
    LOOPBACK,
    CpuSample,
    close_data,
    ensure_database,
    gunicorn_layout,
    loopback_only,
    machine,
    performance_block_write,
    run_main,
    settle,
    start_gunicorn,
    stop_server,
)

PROG = "pages.py"
DOCS_KEY = "pages"
CLOSE_MONTH = "2026-03"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/13"
OPEN_MONTH = "2026-04"  # the month the projection is of, and the what-if asks about
TOP_PLAYERS = 2_000
TARGET_P95_MS, TARGET_P99_MS = 50, 100
WHATIF_TARGET_P95_MS = 100
POST_KINDS = {"api:whatif"}
PAGE_SIZE = 50
STATIC_ROOT = ROOT / "var" / "bench-static"  # collectstatic's output, as a release makes it


# --- set-up: the close benchmark's data and its list -----------------------------------------


def database_url(args: argparse.Namespace) -> str:
    return f"postgres://{args.user}@{args.host}:{args.port}/{args.database}"


def server_env(args: argparse.Namespace) -> dict[str, str]:
    """The production settings on the loopback: plain HTTP, Redis as the cache, throttles
    out of the way (a benchmark's four clients are not four abusers)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(args),
        "DJANGO_SETTINGS_MODULE": "fido.settings.production",
        "SECRET_KEY": "bench-" + "k3y-not-for-production-" * 3,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        "CONN_MAX_AGE": "600",
        "FIDO_THROTTLE_ANON": "1000000/min",
        "FIDO_THROTTLE_USER": "1000000/min",
        "STATIC_ROOT": str(STATIC_ROOT),
        "PYTHONPATH": str(ROOT),
    }
    env["REDIS_URL"] = redis_url()
    return env


def redis_url() -> str:
    """The benchmark's own Redis database, on the loopback only."""
    return loopback_only(os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL), "pages.py")


def manage_env(args: argparse.Namespace) -> dict[str, str]:
    env = {**server_env(args), "DJANGO_SETTINGS_MODULE": "fido.settings.base"}
    env["LOG_LEVEL"] = "INFO"
    return env


def run_step(what: str, command: list[str], env: dict[str, str] | None, timeout: int) -> str:
    """A child process; its stdout, or a one-line reason why it failed."""
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, text=True, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise SystemExit(f"{PROG}: {what} took longer than {timeout} s") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise SystemExit(f"{PROG}: {what} failed: {' '.join(tail)}")
    return done.stdout


def prepare(args: argparse.Namespace) -> None:
    """The close benchmark's data, migrated, with the list of 2026-03 published."""
    ensure_database(database_url(args))
    run_step(
        "migrate",
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        manage_env(args),
        1800,
    )
    run_step(
        "collectstatic",
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        server_env(args),
        600,
    )
    print("the close benchmark's data (generated once, 3 to 10 minutes)", flush=True)
    close_data(
        args.database,
        args.scale,
        host=args.host,
        port=args.port,
        user=args.user,
        superuser=args.superuser,
    )
    close = [sys.executable, "manage.py", "close_month", CLOSE_MONTH]
    close += ["--discipline", "fido", "--inline"]
    out = run_step("the close of 2026-03", close, manage_env(args), 3600)
    print("  " + (out.strip().splitlines() or ["closed"])[0], flush=True)
    out = run_step("the projection of 2026-04", [*MANAGE_SHELL, PROJECT], manage_env(args), 3600)
    print("  " + (out.strip().splitlines() or ["projected"])[0], flush=True)
    # What a worker does after a close: the busiest players' packs of points (once).
    started = time.perf_counter()
    packs = [sys.executable, "manage.py", "pack_lists", "--discipline", "fido"]
    out = run_step("the packs of the busiest players' points", packs, manage_env(args), 3600)
    said = [line for line in out.splitlines() if "points" in line]
    print(f"  {(said or ['packed'])[0]} ({time.perf_counter() - started:.1f} s)", flush=True)
    import psycopg

    # What autovacuum does within a minute or so of the close on a default server (the
    # CI configuration turns it off): the new list's statistics and visibility map.
    with psycopg.connect(database_url(args), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) rankings_rankingentry")


MANAGE_SHELL = [sys.executable, "manage.py", "shell", "-v", "0", "-c"]
PROJECT = (
    "from rankings.selectors.projection import projected_list\n"
    "from rankings.services.projection import projection_refresh\n"
    "found = projected_list('fido')\n"
    "if found is None:\n"
    "    made = projection_refresh(discipline='fido')\n"
    "    print(f'projected {made.month:%Y-%m}: {made.entry_count} entries')\n"
    "else:\n"
    "    print(f'the projection of {found.ranking_list.month:%Y-%m} exists')\n"
)
"""The open month's projected list (the what-if's ranks), unless there is one."""


# --- what a reader asks for -----------------------------------------------------------------


def window_players(conn: Any, list_id: int, count: int) -> list[str]:
    """The federation ids of the ``count`` listed players with the most results in the
    window of the current list."""
    return [
        row[0]
        for row in conn.execute(
            """
            SELECT p.player_id FROM (
                SELECT player_id, count(*) AS results FROM matches_sidemember
                WHERE discipline = 'fido' AND counting_month <= %(month)s
                  AND month_played > %(month)s - interval '12 months'
                  AND month_played <= %(month)s
                  AND (void_effective_month IS NULL OR void_effective_month > %(month)s)
                GROUP BY player_id ORDER BY results DESC, player_id LIMIT %(count)s
            ) top
            JOIN matches_player p ON p.id = top.player_id
            JOIN rankings_rankingentry e
              ON e.player_id = top.player_id AND e.ranking_list_id = %(list)s
            """,
            {"month": dt.date(2026, 3, 1), "count": count, "list": list_id},
        ).fetchall()
    ]


def targets(conn: Any, seed: int) -> dict[str, Any]:
    """The list, the deep rank, the searches, the busiest players and the biggest club."""
    row = conn.execute(
        """
        SELECT l.id, l.entry_count FROM rankings_currentlist c
        JOIN rankings_rankinglist l ON l.id = c.ranking_list_id
        WHERE c.discipline = 'fido' AND l.status = 'published'
        """
    ).fetchone()
    if row is None or not row[1]:
        raise SystemExit(f"{PROG}: no current FIDO list in the database")
    list_id, entries = row
    rng = random.Random(seed)
    # 50 listed players drawn at random (by primary key: a drawn rank is often no rank at
    # all, ties leave gaps, and the searches came out short of the 30 below).
    (top,) = conn.execute("SELECT max(id) FROM matches_player").fetchone()
    drawn = rng.sample(range(1, top + 1), min(top, 400))
    listed = dict(
        conn.execute(
            "SELECT p.id, p.name FROM rankings_rankingentry e JOIN matches_player p "
            "ON p.id = e.player_id WHERE e.ranking_list_id = %s AND e.player_id = ANY(%s)",
            (list_id, drawn),
        ).fetchall()
    )
    names = [listed[pk] for pk in drawn if pk in listed][:50]
    # Names here are "Player 0123456": the whole name finds one player; the number is what
    # tells them apart, as a surname does (no real search matches every player): five of
    # its digits find about a hundred players, three some ten thousand (as many as the
    # commonest surname of a registry of a million).
    digits = [n.split()[-1] for n in names]
    searches = names[:10] + [d[1:6] for d in digits[10:20]] + [d[2:5] for d in digits[20:30]]
    club = conn.execute(
        "SELECT c.club_id FROM matches_club c JOIN matches_player p ON p.club_id = c.id "
        "GROUP BY c.club_id ORDER BY count(*) DESC, c.club_id LIMIT 1"
    ).fetchone()
    players = window_players(conn, list_id, TOP_PLAYERS)
    if not players or club is None or not searches:
        raise SystemExit(f"{PROG}: the database holds no players with results, or no clubs")
    deep = 500_000 if entries >= 500_000 else max(1, entries // 2)
    return {
        "list_id": list_id,
        "entries": entries,
        "deep_rank": deep,
        "searches": searches,
        "players": players,
        "club": club[0],
    }


KINDS = (
    "page:ranking-first",
    "page:ranking-deep",
    "page:search",
    "page:player",
    "page:club",
    "api:list-first",
    "api:list-deep",
    "api:search",
    "api:player-history",
    "api:player-results",
    "page:whatif",
    "api:whatif",
)


def request_path(kind: str, found: dict[str, Any], rng: random.Random) -> str:
    """A path of ``kind``, drawn with ``rng``."""
    deep_page = (found["deep_rank"] - 1) // PAGE_SIZE + 1
    player = quote(rng.choice(found["players"]))
    search = {"q": rng.choice(found["searches"])}
    paths = {
        "page:ranking-first": "/ranking/fido/",
        "page:ranking-deep": f"/ranking/fido/?page={deep_page}",
        "page:search": "/ranking/fido/?" + urlencode(search),
        "page:player": f"/players/{player}/",
        "page:club": f"/clubs/{quote(found['club'])}/",
        "api:list-first": "/api/rankings/fido",
        "api:list-deep": f"/api/rankings/fido?page={deep_page}",
        "api:search": "/api/rankings/fido?" + urlencode(search),
        "api:player-history": f"/api/rankings/fido/players/{player}",
        "api:player-results": f"/api/rankings/fido/players/{player}/results",
        "page:whatif": "/ranking/fido/whatif/?" + urlencode(whatif_query(found, rng)),
        "api:whatif": "/api/rankings/fido/whatif",
    }
    return paths[kind]


def _whatif_players(found: dict[str, Any], rng: random.Random) -> list[str]:
    """A busy player and two opponents (three different federation ids)."""
    return rng.sample(found["players"], 3)


def whatif_query(found: dict[str, Any], rng: random.Random) -> dict[str, str]:
    """The calculator page's form: one table of three, the player first."""
    me, first, second = _whatif_players(found, rng)
    return {
        "player": me,
        "month": OPEN_MONTH,
        "r0-category": "national",
        "r0-by": "placing",
        "r0-own": "1",
        "r0-opp1": first,
        "r0-res1": "2",
        "r0-opp2": second,
        "r0-res2": "3",
    }


def request_body(kind: str, found: dict[str, Any], rng: random.Random) -> bytes | None:
    """The JSON body of a POST kind (the what-if API), None for a GET."""
    if kind != "api:whatif":
        return None
    me, first, second = _whatif_players(found, rng)
    result = {
        "category": "national",
        "placing": 1,
        "opponents": [{"player_id": first, "placing": 2}, {"player_id": second, "placing": 3}],
    }
    body = {"player_id": me, "month": OPEN_MONTH, "results": [result]}
    return json.dumps(body).encode()


Planned = tuple[str, str, bytes | None]


def plan_requests(
    found: dict[str, Any], per_kind: int, seed: int, kinds: tuple[str, ...] = KINDS
) -> list[Planned]:
    """(kind, path, body) of every request: ``per_kind`` of each of ``kinds``, shuffled; a
    body (the what-if API's) is sent as a POST. A kind's requests are those a run of every
    kind makes (all are drawn, those of other kinds dropped)."""
    rng = random.Random(seed)
    plan = [
        (kind, request_path(kind, found, rng), request_body(kind, found, rng))
        for kind in KINDS
        for _ in range(per_kind)
    ]
    plan = [planned for planned in plan if planned[0] in kinds]
    rng.shuffle(plan)
    return plan


# --- the clients ------------------------------------------------------------------------------


def summary(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, math.ceil(p * len(ordered)) - 1)], 1)

    return {
        "requests": len(ordered),
        "p50_ms": pct(0.50),
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "max_ms": round(ordered[-1], 1),
        "mean_ms": round(statistics.fmean(ordered), 1),
    }


def drive(port: int, plan: list[Planned], concurrency: int) -> dict[str, Any]:
    """Send ``plan`` from ``concurrency`` clients; the latencies by kind."""
    timings: dict[str, list[float]] = {}
    failures: list[str] = []
    lock = threading.Lock()

    def client(requests: list[Planned]) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for kind, path, body in requests:
            started = time.perf_counter()
            if body is None:
                connection.request("GET", path)
            else:
                headers = {"Content-Type": "application/json"}
                connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                timings.setdefault(kind, []).append(elapsed)
                if response.status != 200:
                    failures.append(f"{response.status} {path}")
        connection.close()

    started = time.perf_counter()
    threads = [
        threading.Thread(target=client, args=(plan[i::concurrency],)) for i in range(concurrency)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "by_kind": {kind: summary(timings[kind]) for kind in KINDS if kind in timings},
        "requests": len(plan),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "failures": failures[:20],
        "failure_count": len(failures),
    }


def cpu_spent(
    before: CpuSample,
    after: CpuSample,
    clients: float,
    requests: int,
    wall_seconds: float,
) -> dict[str, Any]:
    """What the timed requests cost in CPU, from samples of gunicorn's workers and of
    PostgreSQL and Redis taken before and after them, and ``clients``, the CPU seconds this
    process (its clients) spent meanwhile: milliseconds a request on average over the mix,
    the share of every CPU of the machine kept busy over the run (1.0: all of them, all the
    time), and each worker's share of the server's (a keep-alive connection stays with the
    worker that accepted it)."""
    server, database, shares = after.since(before)
    per = 1000 / max(requests, 1)
    capacity = wall_seconds * (os.cpu_count() or 1)
    return {
        "server_ms_per_request": round(server * per, 2),
        "database_ms_per_request": round(database * per, 2),
        "clients_ms_per_request": round(clients * per, 2),
        "busy_share": round((server + database + clients) / capacity, 2) if capacity else None,
        "server_share_by_worker": shares,
    }


def verdicts(by_kind: dict[str, dict[str, Any]]) -> dict[str, bool]:
    return {
        kind: s["p95_ms"] < WHATIF_TARGET_P95_MS
        if kind.endswith(":whatif")
        else s["p95_ms"] < TARGET_P95_MS and s["p99_ms"] < TARGET_P99_MS
        for kind, s in by_kind.items()
    }


# --- plans of the slowest -------------------------------------------------------------------


def explain(args: argparse.Namespace, result: dict[str, Any], out: Path) -> Path:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of every statement of one request of each of the two
    slowest kinds (by p95), written by ``bench/pages_explain.py``."""
    gets = [kind for kind in result["by_kind"] if kind not in POST_KINDS]  # explained by GET
    slowest = sorted(gets, key=lambda k: -result["by_kind"][k]["p95_ms"])[:2]
    target = out.with_name(out.stem + "_explain.txt")
    paths = [result["examples"][kind] for kind in slowest]
    command = [sys.executable, "bench/pages_explain.py", "--out", str(target), *paths]
    # The sessions as the web server has them (fido/wsgi.py): no parallel workers.
    run_step("the query plans", command, {**manage_env(args), "FIDO_PG_PARALLEL_WORKERS": "0"}, 600)
    return target


# --- report ---------------------------------------------------------------------------------


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_sentence(result: dict[str, Any]) -> str:
    """The run's CPU in words, for the docs' block (empty for a result without it)."""
    cpu = result.get("cpu")
    if not cpu:
        return ""
    shares = ", ".join(f"{share:.2f}" for share in cpu["server_share_by_worker"])
    return f"""
CPU a request, on average over the mix: gunicorn {cpu["server_ms_per_request"]} ms,
PostgreSQL and Redis {cpu["database_ms_per_request"]} ms, the clients
{cpu["clients_ms_per_request"]} ms; together they kept {cpu["busy_share"]:.0%} of the
machine's CPUs busy over the run. The workers' shares of gunicorn's CPU: {shares}."""


def update_docs(result: dict[str, Any]) -> None:
    """Replace the generated block of docs/performance.md (added if missing)."""
    begin, end = f"<!-- {DOCS_KEY}: begin -->", f"<!-- {DOCS_KEY}: end -->"
    rows = "\n".join(
        f"| `{kind}` | {s['requests']} | {s['p50_ms']} | **{s['p95_ms']}** | "
        f"**{s['p99_ms']}** | {s['max_ms']} | {'met' if result['met'][kind] else 'NOT met'} |"
        for kind, s in result["by_kind"].items()
    )
    target = f"p95 < {TARGET_P95_MS}, p99 < {TARGET_P99_MS}"
    block = f"""{begin}
{result["data"]}; {result["concurrency"]} clients, one keep-alive connection each, time to
the last byte; gunicorn `{result["server"]}` on `fido.settings.production` (`DEBUG` off), no
cache. Measured {result["date"]} at commit `{result["commit"]}`; {result["machine"]}; before
the server started, a `CHECKPOINT` ({result["settled"]["checkpoint_s"]} s) and a wait of
{result["settled"]["waited_s"]} s for the CPU pressure to fall below 5 % (it was
{result["settled"]["cpu_pressure"]}); load average {result["load_average_before"]} before
the timed requests and {result["load_average_after"]} after.{_cpu_sentence(result)}

| kind | requests | p50 ms | p95 ms | p99 ms | max ms | {target} |
|---|---:|---:|---:|---:|---:|---|
{rows}

Query plans of the two slowest kinds: `bench/results/{result["explain_file"] or "-"}`.

    {result["command"]}
{end}"""
    performance_block_write(begin, end, block)


# --- main -------------------------------------------------------------------------------------


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n", 1)[0])
    parser.add_argument("--database", default="fido_bench_close")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of 1M players x 12M")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per kind")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests per kind")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5432)
    parser.add_argument("--user", default="fido")
    parser.add_argument("--superuser", default="postgres")
    parser.add_argument("--out", default="bench/results/pages.json")
    parser.add_argument(
        "--kind",
        action="append",
        dest="kinds",
        metavar="KIND",
        help="time only this kind of request (repeatable; default: every kind)",
    )
    parser.add_argument("--explain", action="store_true", help="plans of the two slowest kinds")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args(argv)
    problems = []
    if not 0 < args.scale <= 4:
        problems.append(f"--scale must be above 0 and at most 4, not {args.scale:g}")
    if not 1 <= args.requests <= 10_000:
        problems.append("--requests must be 1..10000")
    if not 0 <= args.warmup <= 10_000:
        problems.append("--warmup must be 0..10000")
    if not 1 <= args.concurrency <= 32:
        problems.append("--concurrency must be 1..32")
    if args.host not in LOOPBACK:
        problems.append(f"loopback only, not {args.host}")
    unknown = [kind for kind in args.kinds or () if kind not in KINDS]
    if unknown:
        problems.append(
            f"no kind {', '.join(map(repr, unknown))}; the kinds are: {', '.join(KINDS)}"
        )
    if args.kinds and args.update_docs:
        problems.append("--update-docs writes every kind's figures: not with --kind")
    # In the order of KINDS, each once.
    args.kinds = tuple(kind for kind in KINDS if kind in (args.kinds or KINDS))
    if problems:
        parser.error("; ".join(problems))
    return args


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    prepare(args)

    import psycopg

    with psycopg.connect(database_url(args)) as conn:
        found = targets(conn, args.seed)
    print(
        f"list {found['list_id']} ({found['entries']:,} entries), deep rank "
        f"{found['deep_rank']:,}, {len(found['players']):,} busiest players, club "
        f"{found['club']}",
        flush=True,
    )
    plan = plan_requests(found, args.requests, args.seed, args.kinds)
    warmup = plan_requests(found, args.warmup, args.seed + 1, args.kinds) if args.warmup else []
    import redis

    redis.Redis.from_url(redis_url()).flushdb()
    superuser = f"postgres://{args.superuser}@{args.host}:{args.port}/{args.database}"
    settled = settle(superuser)
    print(f"settled: {settled}", flush=True)
    port = free_port()
    gunicorn = ["-c", str(GUNICORN_CONF), "--access-logfile", "/dev/null"]
    server = start_gunicorn(port, server_env(args), gunicorn)
    try:
        drive(port, warmup, args.concurrency)
        load_before = round(os.getloadavg()[0], 2)
        before, clients_before = CpuSample.take(server), time.process_time()
        result = drive(port, plan, args.concurrency)
        after, clients = CpuSample.take(server), time.process_time() - clients_before
        load_after = round(os.getloadavg()[0], 2)
    finally:
        stop_server(server)
    result["cpu"] = cpu_spent(before, after, clients, len(plan), result["wall_seconds"])
    workers, threads = gunicorn_layout()
    result.update(
        {
            "benchmark": "public pages and API on the close benchmark's list",
            "data": (
                f"PostgreSQL `{args.database}` (bench/close_data.py --scale {args.scale:g}, "
                f"closed): list of {found['entries']:,} entries, deep rank "
                f"{found['deep_rank']:,}, {len(found['players']):,} busiest players, "
                f"club {found['club']}"
            ),
            "examples": {kind: request_path(kind, found, random.Random(0)) for kind in KINDS},
            "met": verdicts(result["by_kind"]),
            "server": f"-c deploy/gunicorn.conf.py ({workers} workers x {threads} threads)",
            "concurrency": args.concurrency,
            "target": {"p95_ms": TARGET_P95_MS, "p99_ms": TARGET_P99_MS},
            "load_average_before": load_before,
            "load_average_after": load_after,
            "settled": settled,
            "machine": machine("gunicorn, PostgreSQL and the clients share them"),
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": _commit(),
            "command": ("python bench/pages.py " + shlex.join(argv or sys.argv[1:])).strip(),
            "explain_file": None,
        }
    )
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    if result["failure_count"]:
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        raise SystemExit(f"{PROG}: {result['failure_count']} requests did not answer 200")
    if args.explain:
        result["explain_file"] = explain(args, result, out).name
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: result[k] for k in ("by_kind", "met", "wall_seconds")}, indent=2))
    if args.update_docs:
        update_docs(result)


if __name__ == "__main__":
    run_main(PROG, main)
