"""Result submission through the REST API under concurrent clients (SPEC.md section 6).

Usage::

    .venv/bin/python bench/submit.py [--scenario 1x16 --scenario 10x2] [--matches 6000]
        [--duration 60] [--workers 4] [--threads 2] [--no-key] [--out FILE] [--update-docs]

What it does, every step bounded and on the loopback interface only:

1. PostgreSQL ``DATABASE_URL`` (default
   ``postgres://fido@127.0.0.1:5432/fido_bench_submit``, apart from the page benchmark's
   data; the role and the database are created when missing) and Redis ``REDIS_URL``
   (default ``redis://127.0.0.1:6379/14``, flushed: it holds only this benchmark's cache
   and throttle counters). Sets the database's ``commit_delay`` (``--commit-delay``, 300 us,
   as deploy/postgresql.conf recommends; 0 for PostgreSQL's default) as ``postgres``.
2. ``manage.py migrate``, then seeds (``bulk_create``) 40 clubs, 4,000 players and one
   secretary with an API token per club; kept between runs. Counts the SQL statements of
   one one-match request (in process).
3. Starts ``gunicorn --workers CPUS --threads 4 -b 127.0.0.1:PORT fido.wsgi`` (a free port;
   deploy/gunicorn.conf.py's defaults)
   with the per-user throttle raised through ``FIDO_THROTTLE_USER`` (the submissions scope
   falls back to it), waits for ``/healthz``.
4. For each ``--scenario BATCHxCLIENTS`` (default ``1x4``, ``1x8``, ``1x16``: one match a
   request from 4, 8 and 16 clients; ``10x2``: batches of 10 from 2 clients): the
   clients (2 processes of threads, one keep-alive HTTP connection and one secretary
   token each) POST ``--matches`` matches, each a four-player FIDO table of the client's
   club with a fresh id, with an ``Idempotency-Key`` (unless ``--no-key``), after a short
   untimed warm-up;
   a scenario stops at the count or after ``--duration`` seconds.
5. Reports matches accepted per second (201s over the wall time of the timed phase) and
   the latency percentiles of the requests; checks that every accepted match was stored;
   writes the JSON to ``--out`` and, with ``--update-docs``, the table into
   docs/performance.md. Stops the server it started.

Target: >= 300 matches/s accepted, p99 < 150 ms, on the 2-core reference machine where
the server, PostgreSQL, Redis and these clients share the two cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing as mp
import os
import random
import re
import shlex
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import cpu_pressure, machine, migrated_database, start_gunicorn, stop_server  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://fido@127.0.0.1:5432/fido_bench_submit"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"
N_CLUBS = 40
PLAYERS_PER_CLUB = 100
DOCS = ROOT / "docs" / "performance.md"
DOCS_SECTION = "## Result submission through the API (`bench/submit.py`)"


def _cpu_by_pid(wanted: Any) -> dict[int, float]:
    """User + system CPU so far of each process for which ``wanted(comm, ppid)`` holds."""
    found: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        if wanted(comm, int(fields[1])):
            found[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return found


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU spent between two samples by the processes alive at the second (all of it for
    those started in between, such as the backends of new connections)."""
    return sum(spent - before.get(pid, 0.0) for pid, spent in after.items())


def server_cpu(server: subprocess.Popen[bytes]) -> dict[int, float]:
    """The gunicorn workers (the children of the master)."""
    return _cpu_by_pid(lambda _comm, ppid: ppid == server.pid)


def database_cpu() -> dict[int, float]:
    """The PostgreSQL and Redis server processes (the server's persistent connections keep
    their backends; anything else using PostgreSQL meanwhile is counted too)."""
    return _cpu_by_pid(lambda comm, _ppid: comm == "postgres" or comm.startswith("redis-serv"))


# --- set-up: database, seed, server ------------------------------------------------------


def seed() -> list[dict[str, Any]]:
    """Clubs, players and secretaries with tokens (kept between runs); one entry per club."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from rest_framework.authtoken.models import Token

    from matches.models import Club, Player, Secretary

    user_model = get_user_model()
    club_ids = [f"CLUB-B{n:03d}" for n in range(N_CLUBS)]
    Club.objects.bulk_create(
        [Club(club_id=c, name=f"Bench club {c}", country="DE", city="Berlin") for c in club_ids],
        ignore_conflicts=True,
    )
    clubs = {c.club_id: c for c in Club.objects.filter(club_id__in=club_ids)}
    Player.objects.bulk_create(
        [
            Player(player_id=f"P-B{n:03d}{m:03d}", name=f"Player {n}.{m}", country="DE", club=club)
            for n, club in enumerate(clubs[c] for c in club_ids)
            for m in range(PLAYERS_PER_CLUB)
        ],
        ignore_conflicts=True,
    )
    unusable = make_password(None)
    user_model.objects.bulk_create(
        [user_model(username=f"bench-{c}", password=unusable) for c in club_ids],
        ignore_conflicts=True,
    )
    users = {u.username: u for u in user_model.objects.filter(username__startswith="bench-")}
    Secretary.objects.bulk_create(
        [Secretary(user=users[f"bench-{c}"], club=clubs[c]) for c in club_ids],
        ignore_conflicts=True,
    )
    Token.objects.bulk_create(
        [Token(user=users[f"bench-{c}"], key=Token.generate_key()) for c in club_ids],
        ignore_conflicts=True,
    )
    tokens = dict(
        Token.objects.filter(user__username__startswith="bench-").values_list(
            "user__username", "key"
        )
    )
    return [
        {
            "club": c,
            "token": tokens[f"bench-{c}"],
            "players": [f"P-B{n:03d}{m:03d}" for m in range(PLAYERS_PER_CLUB)],
        }
        for n, c in enumerate(club_ids)
    ]


def set_commit_delay(url: str, microseconds: int) -> None:
    """``ALTER DATABASE ... SET commit_delay`` (a superuser setting: as ``postgres``)."""
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    with psycopg.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user="postgres",
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(
            sql.SQL("ALTER DATABASE {} SET commit_delay = {}").format(
                sql.Identifier(parts.path.lstrip("/")), sql.Literal(int(microseconds))
            )
        )


# --- clients -----------------------------------------------------------------------------


class KeepAlive:
    """A minimal HTTP/1.1 client on one keep-alive connection: the load generator must not
    take the CPU that the server is measured on (http.client parses every response's
    headers with the email package, about a quarter of a millisecond)."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buffer += chunk

    def exchange(self, request: bytes) -> tuple[int, bytes]:
        """Send one request; (status, body) of its response."""
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = b""
            while True:
                while b"\r\n" not in self.buffer:
                    self._fill()
                size_line, self.buffer = self.buffer.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buffer) < size + 2:
                    self._fill()
                body, self.buffer = body + self.buffer[:size], self.buffer[size + 2 :]
                if size == 0:
                    return status, body
        length = int(fields.get(b"content-length", b"0"))
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body

    def close(self) -> None:
        self.sock.close()


def client_process(
    slot: int,
    clients: list[dict[str, Any]],
    config: dict[str, Any],
    start: Any,
    ready: Any,
    results: Any,
) -> None:
    """One process of client threads; puts (latencies, statuses, first, last) on ``results``."""
    lock = threading.Lock()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    bounds = [float("inf"), 0.0]
    quota = config["quota"][slot]
    remaining = [quota]

    def take(n: int) -> int:
        with lock:
            granted = min(n, remaining[0])
            remaining[0] -= granted
            return granted

    def body_for(
        client: dict[str, Any], rng: random.Random, count: int, tag: str | None = None
    ) -> bytes:
        day = config["date"]
        matches = []
        for _ in range(count):
            seated = rng.sample(client["players"], 4)
            scores = [rng.randint(-20, 80) for _ in seated]
            matches.append(
                {
                    "id": f"{client['club']}/{day}/{tag or config['run']}-{uuid.uuid4().hex[:12]}",
                    "date": day,
                    "club": client["club"],
                    "discipline": "fido",
                    "category": "club",
                    "sides": [
                        {"players": [p], "score": s} for p, s in zip(seated, scores, strict=True)
                    ],
                }
            )
        payload: Any = matches[0] if config["batch"] == 1 else {"matches": matches}
        return json.dumps(payload).encode()

    def post(conn: KeepAlive, client: dict[str, Any], body: bytes) -> int:
        key = f"Idempotency-Key: {uuid.uuid4().hex}\r\n" if config["key"] else ""
        head = (
            f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Token {client['token']}\r\nContent-Type: application/json\r\n"
            f"{key}Content-Length: {len(body)}\r\n\r\n"
        )
        status, text = conn.exchange(head.encode() + body)
        if status != 201 and len(errors) < 5:
            errors.append(f"{status}: {text[:300]!r}")
        return status

    def run(client: dict[str, Any], seed: int) -> None:
        rng = random.Random(seed)
        conn = KeepAlive("127.0.0.1", config["port"])
        for _ in range(config["warmup"]):
            post(conn, client, body_for(client, rng, config["batch"], "warmup"))
        with ready.get_lock():
            ready.value += 1
        start.wait()
        stop_at = time.monotonic() + config["duration"]
        while time.monotonic() < stop_at:
            n = take(config["batch"])
            if n == 0:
                break
            body = body_for(client, rng, n)
            began = time.perf_counter()
            status = post(conn, client, body)
            ended = time.perf_counter()
            with lock:
                latencies.append(ended - began)
                statuses[status] = statuses.get(status, 0) + n
                bounds[0] = min(bounds[0], began)
                bounds[1] = max(bounds[1], ended)
        conn.close()

    threads = [
        threading.Thread(target=run, args=(client, slot * 1000 + i))
        for i, client in enumerate(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put(
        {
            "cpu_seconds": time.process_time(),
            "latencies": latencies,
            "statuses": statuses,
            "errors": errors,
            # perf_counter is the same monotonic clock in every process on Linux.
            "first": bounds[0],
            "last": bounds[1],
        }
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def drive(
    args: argparse.Namespace, seeded: list[dict[str, Any]], run: str, batch: int, clients: int
) -> dict[str, Any]:
    """One timed scenario: ``clients`` clients post ``--matches`` matches, ``batch`` a request."""
    processes = min(args.processes, clients)
    per_process = [seeded[i::processes] for i in range(processes)]
    per_process = [
        group[: clients // processes + (1 if i < clients % processes else 0)]
        for i, group in enumerate(per_process)
    ]
    quota = [
        args.matches // processes + (1 if i < args.matches % processes else 0)
        for i in range(processes)
    ]
    day = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)
    config = {
        "port": args.port,
        "batch": batch,
        "key": not args.no_key,
        "duration": args.duration,
        "warmup": args.warmup,
        "quota": quota,
        "date": day.isoformat(),
        "run": run,
    }
    context = mp.get_context("fork")
    start = context.Event()
    ready = context.Value("i", 0)
    results = context.Queue()
    workers = [
        context.Process(
            target=client_process, args=(i, per_process[i], config, start, ready, results)
        )
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    total = sum(len(c) for c in per_process)
    until = time.monotonic() + 120
    while ready.value < total and time.monotonic() < until:  # warm-up is not timed
        time.sleep(0.05)
    start.set()
    collected = [results.get(timeout=args.duration + 120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    latencies = [x for c in collected for x in c["latencies"]]
    statuses: dict[int, int] = {}
    for c in collected:
        for code, n in c["statuses"].items():
            statuses[code] = statuses.get(code, 0) + n
    wall = max(c["last"] for c in collected) - min(c["first"] for c in collected)
    accepted = statuses.get(201, 0)
    return {
        "batch": batch,
        "client_cpu_seconds": round(sum(c["cpu_seconds"] for c in collected), 2),
        "accepted": accepted,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "errors_sample": [e for c in collected for e in c["errors"]][:5],
        "requests": len(latencies),
        "wall_seconds": round(wall, 3),
        "matches_per_second": round(accepted / wall, 1) if wall > 0 else 0.0,
        "requests_per_second": round(len(latencies) / wall, 1) if wall > 0 else 0.0,
        "latency_ms": {
            "p50": round(percentile(latencies, 50) * 1000, 1),
            "p90": round(percentile(latencies, 90) * 1000, 1),
            "p99": round(percentile(latencies, 99) * 1000, 1),
            "max": round(max(latencies) * 1000, 1) if latencies else None,
        },
        "clients": sum(len(c) for c in per_process),
    }


def queries_per_match(seeded: list[dict[str, Any]], run: str) -> int:
    """The SQL statements of one accepted POST (token auth, idempotency, submission)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(SERVER_NAME="127.0.0.1")
    bench = seeded[-1]
    day = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    counted = 0
    for n in range(2):  # the second one: caches warm as in a long-running worker
        body = {
            "id": f"{bench['club']}/{day}/queries-{run}-{n}",
            "date": day,
            "club": bench["club"],
            "discipline": "fido",
            "category": "club",
            "sides": [
                {"players": [p], "score": 10 - i} for i, p in enumerate(bench["players"][:4])
            ],
        }
        with CaptureQueriesContext(connection) as queries:
            response = client.post(
                "/api/matches",
                data=json.dumps(body),
                content_type="application/json",
                headers={
                    "Authorization": f"Token {bench['token']}",
                    "Idempotency-Key": uuid.uuid4().hex,
                },
            )
        if response.status_code != 201:
            raise SystemExit(
                f"the query-count request failed: {response.status_code} {response.content[:300]!r}"
            )
        counted = len(queries)
    return counted


def stored_count(run: str) -> int:
    from matches.models import Match

    return Match.objects.filter(external_id__contains=f"/{run}-").count()


def meets(run: dict[str, Any]) -> bool:
    return run["matches_per_second"] >= 300 and run["latency_ms"]["p99"] < 150


BEGIN_MARK = "<!-- bench/submit.py: begin -->"
END_MARK = "<!-- bench/submit.py: end -->"


def update_docs(result: dict[str, Any]) -> None:
    """Replace the generated part of this benchmark's section in docs/performance.md
    (between its two markers; the prose around them is written by hand)."""
    text = DOCS.read_text()
    section = text.index(DOCS_SECTION)
    start = text.index(BEGIN_MARK, section) + len(BEGIN_MARK)
    end = text.index(END_MARK, start)
    lines = [
        "",
        f"gunicorn {result['server']}; PostgreSQL 15 (`commit_delay` "
        f"{result.get('postgresql_commit_delay_us', 0)} us, as deploy/postgresql.conf "
        "recommends) and Redis on the same 2-core machine, "
        "which also runs the clients; token auth; an `Idempotency-Key` on every POST: "
        f"{'yes' if result['idempotency_key'] else 'no'}; "
        f"{result['queries_per_request']} statements logged by Django for a one-match request "
        "(BEGIN and COMMIT included).",
        "",
        "| matches per request | clients | matches/s accepted | requests/s | p50 ms | p90 ms "
        "| p99 ms | CPU ms per request: server / PostgreSQL+Redis / clients | target |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run in result["runs"]:
        lat = run["latency_ms"]
        cpu = (
            f"{run['server_cpu_ms_per_request']} / {run['database_cpu_ms_per_request']} / "
            f"{run['client_cpu_ms_per_request']}"
        )
        lines.append(
            f"| {run['batch']} | {run['clients']} | **{run['matches_per_second']:.0f}** | "
            f"{run['requests_per_second']:.0f} | {lat['p50']} | {lat['p90']} | {lat['p99']} | "
            f"{cpu} | {'met' if meets(run) else 'NOT met'} |"
        )
    lines += [
        "",
        f"Measured {result['date']}; 1-minute load average before / after: "
        f"{result['load_average_before']} / {result['load_average_after']} (the benchmark "
        "itself keeps both cores busy); CPU pressure (PSI avg10, % of time tasks waited for "
        f"a CPU) before: {result['cpu_pressure_before']}. Command:",
        "",
        f"    {result['command']}",
        "",
        "Raw output: `bench/results/submit.json`.",
        "",
    ]
    wrapped = [
        line if line.startswith(("|", "    ")) or not line else textwrap.fill(line, width=92)
        for line in lines
    ]
    DOCS.write_text(text[:start] + "\n".join(wrapped) + text[end:])


def scenario(text: str) -> tuple[int, int]:
    batch, _, clients = text.partition("x")
    try:
        parsed = int(batch), int(clients)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected BATCHxCLIENTS, e.g. 1x16, not {text!r}"
        ) from None
    if not (1 <= parsed[0] <= 500 and 1 <= parsed[1] <= N_CLUBS):
        raise argparse.ArgumentTypeError(f"batch 1..500 and clients 1..{N_CLUBS}: {text!r}")
    return parsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenario",
        type=scenario,
        action="append",
        help="BATCHxCLIENTS: matches per request x concurrent clients (repeatable); "
        "default 1x4, 1x8, 1x16 and 10x2",
    )
    parser.add_argument("--matches", type=int, default=6000, help="matches per scenario")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--duration", type=float, default=60.0, help="upper bound, seconds")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests per client")
    parser.add_argument(
        "--workers", type=int, default=max(2, os.cpu_count() or 2), help="as in production"
    )
    parser.add_argument("--threads", type=int, default=4, help="as in production")
    parser.add_argument("--no-key", action="store_true", help="no Idempotency-Key header")
    parser.add_argument(
        "--commit-delay",
        type=int,
        default=300,
        help="PostgreSQL commit_delay (microseconds) for the database, as deploy/postgresql.conf "
        "recommends; 0 for PostgreSQL's default",
    )
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--out", default="bench/results/submit.json")
    parser.add_argument("--update-docs", action="store_true")
    parser.add_argument(
        "--docs-only", action="store_true", help="rewrite the docs section from --out, no run"
    )
    args = parser.parse_args()
    if args.docs_only:
        update_docs(json.loads((ROOT / args.out).read_text()))
        return
    for flag, value, low, high in (
        ("--matches", args.matches, 1, 10_000_000),
        ("--processes", args.processes, 1, 64),
        ("--warmup", args.warmup, 0, 10_000),
        ("--workers", args.workers, 1, 64),
        ("--threads", args.threads, 1, 64),
        ("--commit-delay", args.commit_delay, 0, 100_000),
        ("--port", args.port, 0, 65535),
    ):
        if not low <= value <= high:
            raise SystemExit(f"submit.py: {flag} must be {low}..{high}, not {value}")
    if not args.duration > 0:
        raise SystemExit(f"submit.py: --duration must be above 0, not {args.duration:g}")
    scenarios = args.scenario or [(1, 4), (1, 8), (1, 16), (10, 2)]
    if args.port == 0:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            args.port = probe.getsockname()[1]

    database_url = os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL)
    redis_url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    for url in (database_url, redis_url):
        host = re.sub(r"^\w+://(?:[^@/]*@)?([^:/]+).*$", r"\1", url)
        if host not in {"127.0.0.1", "localhost", "::1"}:
            raise SystemExit(f"loopback only: {url}")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "FIDO_THROTTLE_USER": "10000000/min",
        "DJANGO_SETTINGS_MODULE": "fido.settings.base",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    os.environ.update(env)

    migrated_database(database_url, env, timeout=300)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    set_commit_delay(database_url, args.commit_delay)
    seeded = seed()
    stamp = dt.datetime.now(dt.UTC).strftime("r%Y%m%d%H%M%S")
    queries = queries_per_match(seeded, stamp)
    from django.db import connection

    connection.close()  # no open connection across the fork of the clients

    load_before = round(os.getloadavg()[0], 2)
    pressure_before = cpu_pressure()
    runs = []
    server = start_gunicorn(
        args.port,
        env,
        [
            *("--workers", str(args.workers), "--threads", str(args.threads)),
            *("--backlog", "256", "--keep-alive", "30"),
        ],
    )
    try:
        for n, (batch, clients) in enumerate(scenarios):
            tag = f"{stamp}s{n}"
            cpu_before, db_before = server_cpu(server), database_cpu()
            run = drive(args, seeded, tag, batch, clients)
            server_used = cpu_used(cpu_before, server_cpu(server))
            db_used = cpu_used(db_before, database_cpu())
            run["cpu_pressure_after"] = cpu_pressure()
            # Includes the untimed warm-up requests, so divide by every request sent.
            sent = run["requests"] + clients * args.warmup
            run["server_cpu_ms_per_request"] = round(server_used / sent * 1000, 1)
            run["database_cpu_ms_per_request"] = round(db_used / sent * 1000, 1)
            run["client_cpu_ms_per_request"] = round(run["client_cpu_seconds"] / sent * 1000, 2)
            run["stored_rows_check"] = stored_count(tag)
            connection.close()
            if run["stored_rows_check"] != run["accepted"]:
                print(
                    f"WARNING: {run['accepted']} accepted but {run['stored_rows_check']} stored",
                    file=sys.stderr,
                )
            print(
                f"{batch} a request, {clients} clients: {run['matches_per_second']} matches/s, "
                f"p50 {run['latency_ms']['p50']} ms, p99 {run['latency_ms']['p99']} ms",
                flush=True,
            )
            runs.append(run)
    finally:
        stop_server(server)

    result = {
        "benchmark": "POST /api/matches, four-player FIDO tables, token auth, PostgreSQL",
        "runs": runs,
        "queries_per_request": queries,
        "server": f"--workers {args.workers} --threads {args.threads}",
        "postgresql_commit_delay_us": args.commit_delay,
        "idempotency_key": not args.no_key,
        "target": {"matches_per_second": 300, "p99_ms": 150},
        "load_average_before": load_before,
        "load_average_after": round(os.getloadavg()[0], 2),
        "cpu_pressure_before": pressure_before,
        "machine": machine("server, PostgreSQL, Redis and clients share them"),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": ("python bench/submit.py " + shlex.join(sys.argv[1:])).strip(),
    }
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if args.update_docs:
        update_docs(result)


if __name__ == "__main__":
    from bench.common import run_main

    run_main("submit.py", main)
