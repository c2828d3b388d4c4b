"""The monthly close at one million players and twelve million results, side by side with
two competent peers that compute the same list: one PostgreSQL statement and a stand-alone
COPY + NumPy pipeline. Every contender is timed as a whole process, start-up included.

    .venv/bin/python bench/close_month.py                  # 1,000,000 players, 12,000,000 results
    .venv/bin/python bench/close_month.py --scale 0.25     # 250,000 players, 3,000,000 results
    .venv/bin/python bench/close_month.py --lists 12       # steady state: 12 earlier lists
    .venv/bin/python bench/close_month.py --lists 12 --cold  # the same lists without packs
    .venv/bin/python bench/close_month.py --scale 0.01 --repeat 1 --database fido_bench_close_quick

What it does, in a dedicated database (``--database``, default ``fido_bench_close``: its
tables are truncated; the role and the database are created as ``--superuser`` when
missing, then migrated):

1. ``bench/close_data.py ensure`` (a child process) generates the data once and keeps it
   (3 to 5 minutes at full size, not timed), with ``--lists`` published lists before
   2026-03, each with its pack as the close stores it (``--cold``: without, as lists
   published before packs existed; the result's ``data.packs`` says how many had one).
2. ``--repeat`` rounds, each after ``bench/close_data.py reset``; every timed contender
   but the start-up starts on a settled machine (``bench.common.settle``: a ``CHECKPOINT``,
   then a wait until the CPU pressure falls below 5 %), so that what the step before left
   running (in ``make bench``, the full-size step's) lands on none of them:
   - **the close**: ``manage.py close_month 2026-03 --discipline fido --inline`` in a fresh
     interpreter (``bench/measured.py`` runs it and reports its own ``VmHWM``): settings,
     imports, checks, freeze, load, compute, write, atomic publication, exit;
   - **start-up**: the same command again, which now only answers "already published";
   - **the SQL peer**: ``psql -f bench/close_peer.sql`` (one statement into an unlogged
     table; see that file);
   - **the pipeline peer**: ``bench/close_pipeline.py`` (binary COPY in parallel streams
     into NumPy, written into an unlogged table; see that file).
   Each peer's list is compared with the published one player by player (rank, FLADUB in
   cents, results counted, previous rank): any difference stops the benchmark.
3. ``--explain``: ``EXPLAIN (ANALYZE, BUFFERS)`` of the SQL peer, saved beside ``--out``.

Writes ``bench/results/close_month[_scale..][_lists..].json`` (or ``--out``) with every run,
the minimum and the median of each contender, the load average around each run (the
machine may be shared: prefer the medians of several rounds), and, with ``--update-docs``,
a block of ``docs/performance.md``. Bad flags, an unreachable server or a missing role end
with one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402  (after the path set-up)
    bytecode_compile,
    cpu_pressure,
    machine,
    performance_block_write,
    settle,
)

CLOSE_MONTH = "2026-03"
CLOSE_INDEX = 2026 * 12 + 2
PROG = "close_month.py"
TIMEOUT = 3600


class BenchError(Exception):
    """A one-line reason why the benchmark cannot go on."""


# --- processes ----------------------------------------------------------------------------------


def database_url(args: argparse.Namespace, user: str | None = None) -> str:
    """The bench database's URL, as ``--user`` (or ``user``: ``--superuser`` for settling)."""
    return f"postgres://{user or args.user}@{args.host}:{args.port}/{args.database}"


def django_env(args: argparse.Namespace) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url(args), "LOG_LEVEL": "INFO"}
    env.pop("REDIS_URL", None)  # --inline needs no broker
    env["DJANGO_SETTINGS_MODULE"] = "fido.settings.base"
    if args.streams:
        env["FIDO_CLOSE_LOAD_STREAMS"] = str(args.streams)
    return env


def timed(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a whole process; its wall time, CPU time (user + system) and output."""
    load = round(os.getloadavg()[0], 2)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BenchError(f"{command[0]}: {exc}") from None
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-12:]
        raise BenchError(
            f"{' '.join(command[:4])} ... exited with {done.returncode}: "
            + " | ".join(line.strip() for line in tail)
        )
    return {
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "load_average_1min": load,
        "stdout": done.stdout,
        "stderr": done.stderr,
    }


def marked(output: str, mark: str) -> dict[str, Any]:
    for line in output.splitlines():
        if line.startswith(mark + " "):
            return dict(json.loads(line[len(mark) + 1 :]))
    raise BenchError(f"no {mark} line in the output")


def data_step(args: argparse.Namespace, action: str) -> str:
    command = [sys.executable, "bench/close_data.py", action, "--database", args.database]
    command += ["--host", args.host, "--port", str(args.port), "--user", args.user]
    command += ["--superuser", args.superuser]
    if action == "ensure":
        command += ["--scale", str(args.scale), "--seed", str(args.seed)]
        command += ["--lists", str(args.lists)]
        if args.cold:
            command.append("--no-packs")
        if args.regenerate:
            command.append("--regenerate")
    if args.cold_results:
        command.append("--no-result-packs")
    done = subprocess.run(command, cwd=ROOT, text=True, capture_output=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise BenchError(f"preparing the data ({action}) failed: {' '.join(tail)}")
    return done.stdout


# --- contenders ---------------------------------------------------------------------------------

_STAGE = re.compile(r"^\s+(freeze|load|compute|write|publish)\s+([0-9.]+) s$")
_LIST = re.compile(r"published \(list (\d+),")


def run_close(args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "bench/measured.py", "manage.py", "close_month", CLOSE_MONTH]
    command += ["--discipline", "fido", "--inline"]
    run = timed(command, django_env(args))
    found = _LIST.search(run["stdout"])
    if not found:
        raise BenchError("the close did not report a published list: " + run["stdout"][-300:])
    stages = {
        m.group(1): float(m.group(2))
        for m in (_STAGE.match(line) for line in run["stdout"].splitlines())
        if m
    }
    measured = marked(run["stdout"], "MEASURED")
    log = [line for line in run["stderr"].splitlines() if "rankings." in line]
    return {
        "seconds": run["seconds"],
        "cpu_seconds": run["cpu_seconds"],
        "load_average_1min": run["load_average_1min"],
        "stages": stages,
        "start_up_and_exit": round(run["seconds"] - sum(stages.values()), 3),
        "peak_rss_mib": measured["peak_rss_mib"],
        "list_id": int(found.group(1)),
        "log": [line.split(" ", 3)[-1] for line in log],
    }


# --- the close across workers ---------------------------------------------------------------------

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/13"


def redis_url() -> str:
    return os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)


def start_workers(args: argparse.Namespace) -> list[subprocess.Popen[bytes]]:
    """``--workers`` Celery workers (one process each, solo pool) on the bench database and
    Redis (``REDIS_URL``, default database 13); ready when every one answers a ping."""
    env = {**django_env(args), "REDIS_URL": redis_url()}
    workers = []
    for number in range(args.workers):
        command = [sys.executable, "-m", "celery", "-A", "fido", "worker", "--pool", "solo"]
        command += ["--without-mingle", "--without-gossip", "--loglevel", "WARNING"]
        command += ["--hostname", f"bench{number}@%h"]
        workers.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
    ping = [sys.executable, "-m", "celery", "-A", "fido", "inspect", "ping", "--timeout", "2"]
    give_up = time.monotonic() + 120
    while True:
        done = subprocess.run(ping, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.stdout.count("pong") >= args.workers:
            return workers
        if time.monotonic() > give_up or any(w.poll() is not None for w in workers):
            stop_workers(workers)
            raise BenchError(f"{args.workers} Celery workers did not start on {redis_url()}")
        time.sleep(1)


def stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.terminate()
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()


def keep_list(args: argparse.Namespace, list_id: int) -> None:
    """Copy a published list into ``bench_single_list`` (it survives the reset)."""
    import psycopg

    with psycopg.connect(database_url(args), autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS bench_single_list")
        conn.execute(
            "CREATE UNLOGGED TABLE bench_single_list AS SELECT player_id, rank, fladub_cents, "
            "results_counted, previous_rank FROM rankings_rankingentry "
            "WHERE ranking_list_id = %s",
            [list_id],
        )


def run_sharded(args: argparse.Namespace) -> dict[str, Any]:
    """``close_month --workers N`` as a whole process (the coordinator) with the shards on
    the running workers."""
    command = [sys.executable, "bench/measured.py", "manage.py", "close_month", CLOSE_MONTH]
    command += ["--discipline", "fido", "--workers", str(args.workers)]
    run = timed(command, {**django_env(args), "REDIS_URL": redis_url()})
    found = _LIST.search(run["stdout"])
    if not found:
        raise BenchError("the sharded close did not report a published list")
    stages = {
        m.group(1): float(m.group(2))
        for m in (_STAGE.match(line) for line in run["stdout"].splitlines())
        if m
    }
    return {
        "seconds": run["seconds"],
        "cpu_seconds": run["cpu_seconds"],
        "load_average_1min": run["load_average_1min"],
        "stages": stages,
        "peak_rss_mib": marked(run["stdout"], "MEASURED")["peak_rss_mib"],
        "list_id": int(found.group(1)),
    }


def run_start_up(args: argparse.Namespace) -> dict[str, Any]:
    """The same command once the list is published: start-up, one query, exit."""
    command = [sys.executable, "bench/measured.py", "manage.py", "close_month", CLOSE_MONTH]
    command += ["--discipline", "fido", "--inline"]
    run = timed(command, django_env(args))
    if "already published" not in run["stdout"]:
        raise BenchError("the second close_month did not answer 'already published'")
    return {k: run[k] for k in ("seconds", "cpu_seconds", "load_average_1min")}


def sql_command(args: argparse.Namespace, explain: bool) -> list[str]:
    def month(offset: int) -> str:
        index = CLOSE_INDEX + offset
        return f"{index // 12:04d}-{index % 12 + 1:02d}-01"

    variables = {
        "discipline": "fido",
        "close": month(0),
        "close_index": str(CLOSE_INDEX),
        "first_played": month(-11),
        "first_list": month(-12),
        "previous": month(-1),
        "explain": "1" if explain else "0",
    }
    command = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"]
    for name, value in variables.items():
        command += ["-v", f"{name}={value}"]
    return [*command, "-f", "bench/close_peer.sql", database_url(args)]


def run_sql(args: argparse.Namespace) -> dict[str, Any]:
    run = timed(sql_command(args, explain=False))
    return {k: run[k] for k in ("seconds", "cpu_seconds", "load_average_1min")}


def run_pipeline(args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "bench/close_pipeline.py", "--dsn", database_url(args)]
    command += ["--month", CLOSE_MONTH, "--streams", str(args.streams or 2)]
    # The tuning the service's settings give the close (NumPy's huge pages off: faster on
    # this machine) is the peer's too.
    run = timed(command, {**os.environ, "NUMPY_MADVISE_HUGEPAGE": "0"})
    report = marked(run["stdout"], "PIPELINE")
    return {
        "seconds": run["seconds"],
        "cpu_seconds": run["cpu_seconds"],
        "load_average_1min": run["load_average_1min"],
        "stages": report["stages"],
        "peak_rss_mib": report["peak_rss_mib"],
    }


def compare(args: argparse.Namespace, table: str, list_id: int) -> dict[str, int]:
    """Differences between a peer's table and the published entries, player by player."""
    import psycopg

    query = f"""
        SELECT count(*) FILTER (WHERE e.player_id IS NULL OR s.player_id IS NULL),
               count(*) FILTER (WHERE e.rank <> s.rank),
               count(*) FILTER (WHERE e.fladub_cents <> s.fladub_cents),
               count(*) FILTER (WHERE e.results_counted <> s.results_counted),
               count(*) FILTER (WHERE coalesce(e.previous_rank, 0)
                                      <> coalesce(s.previous_rank, 0)),
               count(e.player_id)
        FROM {table} s
        FULL JOIN (SELECT * FROM rankings_rankingentry WHERE ranking_list_id = %s) e
          ON e.player_id = s.player_id
    """
    with psycopg.connect(database_url(args)) as conn:
        row = conn.execute(query, [list_id]).fetchone()
    assert row is not None  # noqa: S101
    names = ("on_one_side_only", "rank", "fladub_cents", "results_counted", "previous_rank")
    differences = dict(zip(names, row[:5], strict=True))
    if any(differences.values()):
        raise BenchError(f"{table} differs from the published list {list_id}: {differences}")
    return {"entries_compared": row[5], **differences}


# --- the run ------------------------------------------------------------------------------------


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r["seconds"] for r in runs]
    return {
        "runs": len(seconds),
        "min_seconds": min(seconds),
        "median_seconds": round(statistics.median(seconds), 3),
        "max_seconds": max(seconds),
    }


def check_server(args: argparse.Namespace) -> None:
    import psycopg

    try:
        psycopg.connect(
            host=args.host,
            port=args.port,
            user=args.superuser,
            dbname="postgres",
            connect_timeout=5,
        ).close()
    except psycopg.OperationalError as exc:
        reason = str(exc).strip().splitlines()[0]
        raise BenchError(
            f"cannot connect to PostgreSQL at {args.host}:{args.port} as {args.superuser}: {reason}"
        ) from None


def ensure_database(args: argparse.Namespace) -> None:
    from bench.common import migrated_database

    env = django_env(args)
    try:
        migrated_database(database_url(args), env, timeout=600)
    except subprocess.CalledProcessError as exc:
        raise BenchError(f"migrating {args.database} failed (exit {exc.returncode})") from None


def default_out(args: argparse.Namespace) -> Path:
    name = "close_month"
    if args.scale != 1:
        name += f"_scale{args.scale:g}"
    if args.lists != 1:
        name += f"_lists{args.lists}"
    if args.workers > 1:
        name += f"_workers{args.workers}"
    if args.cold:
        name += "_cold"
    if args.cold_results:
        name += "_cold_results"
    return ROOT / "bench" / "results" / f"{name}.json"


def targets(args: argparse.Namespace, result: dict[str, Any]) -> dict[str, Any]:
    close = result["close"]["median_seconds"]
    peak = max(r["peak_rss_mib"] for r in result["runs"]["close"])
    met: dict[str, Any] = {
        "start_up_under_1_s": result["start_up"]["median_seconds"] < 1,
        "spec_under_60_s": close < 60,
        "spec_under_4_gib": peak < 4096,
    }
    if args.scale == 1:
        limit = 12 if args.lists >= 12 else 10
        met[f"close_at_most_{limit}_s"] = close <= limit
        met["peak_at_most_1.2_gib"] = peak <= 1.2 * 1024
    for peer, factor in (("sql", 3.0), ("pipeline", 1.2)):
        if result.get(peer):
            ratio = result[peer]["median_seconds"] / close
            met[f"{factor:g}x_faster_than_{peer}"] = ratio >= factor
            met[f"ratio_{peer}_over_close_median"] = round(ratio, 2)
            met[f"ratio_{peer}_over_close_min"] = round(
                result[peer]["min_seconds"] / result["close"]["min_seconds"], 2
            )
    return met


def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    check_server(args)
    print(f"database {args.database}: preparing", flush=True)
    ensure_database(args)
    meta = marked(data_step(args, "ensure"), "META")
    runs = new_runs()
    workers = start_workers(args) if args.workers > 1 else []
    try:
        rounds(args, runs)
    finally:
        stop_workers(workers)
    return report(args, meta, runs)


def new_runs() -> dict[str, list[dict[str, Any]]]:
    """Every contender's runs, none yet: what :func:`rounds` fills."""
    return {"close": [], "start_up": [], "sql": [], "pipeline": [], "workers": []}


def on_settled_machine(
    run: Callable[[argparse.Namespace], dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    """``run(args)`` once the machine is quiet (``bench.common.settle``), with what settling
    took under ``settled``."""
    quiet = settle(database_url(args, args.superuser))
    return {**run(args), "settled": quiet}


def rounds(args: argparse.Namespace, runs: dict[str, list[dict[str, Any]]]) -> None:
    for round_no in range(1, args.repeat + 1):
        data_step(args, "reset")
        close = on_settled_machine(run_close, args)
        runs["close"].append(close)
        stages = ", ".join(f"{k} {v:.2f}" for k, v in close["stages"].items())
        print(
            f"round {round_no}: close {close['seconds']:.2f} s ({stages}; start-up and exit "
            f"{close['start_up_and_exit']:.2f}), peak {close['peak_rss_mib']:.0f} MiB, "
            f"load {close['load_average_1min']}",
            flush=True,
        )
        runs["start_up"].append(run_start_up(args))
        print(f"  start-up (already published): {runs['start_up'][-1]['seconds']:.2f} s")
        if not args.no_sql:
            sql = on_settled_machine(run_sql, args)
            sql["compared"] = compare(args, "bench_sql_list", close["list_id"])
            runs["sql"].append(sql)
            print(f"  SQL peer: {sql['seconds']:.2f} s, load {sql['load_average_1min']}; equal")
        if not args.no_pipeline:
            pipeline = on_settled_machine(run_pipeline, args)
            pipeline["compared"] = compare(args, "bench_pipeline_list", close["list_id"])
            runs["pipeline"].append(pipeline)
            print(
                f"  pipeline peer: {pipeline['seconds']:.2f} s ({_stages(pipeline)}), "
                f"peak {pipeline['peak_rss_mib']:.0f} MiB, load {pipeline['load_average_1min']}; "
                "equal",
                flush=True,
            )
        if args.workers > 1:
            keep_list(args, close["list_id"])
            data_step(args, "reset")
            sharded = on_settled_machine(run_sharded, args)
            sharded["compared"] = compare(args, "bench_single_list", sharded["list_id"])
            runs["workers"].append(sharded)
            print(
                f"  close on {args.workers} workers: {sharded['seconds']:.2f} s "
                f"({_stages(sharded)}), coordinator peak {sharded['peak_rss_mib']:.0f} MiB; equal",
                flush=True,
            )


def _stages(run: dict[str, Any]) -> str:
    """A run's stage timings on one line: ``load 1.20, compute 3.40, ...``."""
    return ", ".join(f"{k} {v:.2f}" for k, v in run["stages"].items())


def report(
    args: argparse.Namespace, meta: dict[str, Any], runs: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    out = Path(args.out) if args.out else default_out(args)
    if args.explain and not args.no_sql:
        plan = timed(sql_command(args, explain=True))["stdout"]
        out.with_name(out.stem + "_sql_explain.txt").write_text(plan)
        print(f"EXPLAIN written to {out.with_name(out.stem + '_sql_explain.txt')}")
    command = " ".join(
        [".venv/bin/python", "bench/close_month.py"]
        + [a for a in sys.argv[1:] if a not in {"--regenerate", "--update-docs"}]
    )
    result: dict[str, Any] = {
        "command": command,
        "commit": _commit(),
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "description": machine("PostgreSQL and every contender share them"),
            "memory_gib": round(
                os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1
            ),
            "python": platform.python_version(),
            "cpu_pressure_avg10_after": cpu_pressure(),
        },
        "data": {
            k: meta[k]
            for k in ("players", "results", "matches", "lists", "packs", "result_packs")
            if k in meta
        },
        "close": summary(runs["close"]),
        "start_up": summary(runs["start_up"]),
        "sql": summary(runs["sql"]) if runs["sql"] else None,
        "pipeline": summary(runs["pipeline"]) if runs["pipeline"] else None,
        "workers": (
            {"count": args.workers, **summary(runs["workers"])} if runs["workers"] else None
        ),
        "runs": runs,
    }
    result["targets"] = targets(args, result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    print(json.dumps(result["targets"]))
    return result


def _commit() -> str:
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


# --- the docs -----------------------------------------------------------------------------------


def docs_key(args: argparse.Namespace) -> str:
    key = f"bench/close_month.py --scale {args.scale:g} --lists {args.lists}"
    key += " --cold" if args.cold else ""
    key += " --cold-results" if args.cold_results else ""
    return key + (f" --workers {args.workers}" if args.workers > 1 else "")


def update_docs(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Replace this configuration's block of docs/performance.md (added if missing)."""
    begin, end = f"<!-- {docs_key(args)}: begin -->", f"<!-- {docs_key(args)}: end -->"
    data = result["data"]
    lines = [
        begin,
        f"{data['players']:,} players, {data['results']:,} results, {data.get('lists', 1)} "
        f"earlier list(s) ({data.get('packs', 0)} with a pack); "
        f"{result['close']['runs']} round(s), each contender a whole "
        "process (start-up included), each but the start-up begun on a settled machine (a "
        "`CHECKPOINT`, then CPU pressure below 5 %); measured "
        f"{result['measured_at']} at commit `{result['commit']}`; "
        f"{result['machine']['description']}.",
        "",
        "| contender | min s | median s | max s | peak MiB | load avg (1 min) at start |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, label in (
        ("close", "**the close** (`manage.py close_month --inline`)"),
        ("start_up", "start-up (`close_month` answering 'already published')"),
        ("sql", "SQL peer (`bench/close_peer.sql`)"),
        ("pipeline", "pipeline peer (`bench/close_pipeline.py`)"),
        ("workers", f"the close on {args.workers} Celery workers (`close_month --workers`)"),
    ):
        if not result.get(name):
            continue
        runs = result["runs"][name]
        peak = max((r.get("peak_rss_mib") or 0 for r in runs), default=0)
        lines.append(
            f"| {label} | {result[name]['min_seconds']:.2f} | "
            f"{result[name]['median_seconds']:.2f} | {result[name]['max_seconds']:.2f} | "
            f"{peak:.0f} | {', '.join(str(r['load_average_1min']) for r in runs)} |"
            if peak
            else f"| {label} | {result[name]['min_seconds']:.2f} | "
            f"{result[name]['median_seconds']:.2f} | {result[name]['max_seconds']:.2f} | | "
            f"{', '.join(str(r['load_average_1min']) for r in runs)} |"
        )
    stages: dict[str, list[float]] = {}
    for run in result["runs"]["close"]:
        for stage, seconds in run["stages"].items():
            stages.setdefault(stage, []).append(seconds)
    lines += [
        "",
        "The close's stages (median s): "
        + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in stages.items())
        + "; start-up and exit "
        + f"{statistics.median(r['start_up_and_exit'] for r in result['runs']['close']):.2f}.",
        "Targets: "
        + ", ".join(
            f"{k.replace('_', ' ')}: "
            + (("met" if v else "NOT met") if isinstance(v, bool) else str(v))
            for k, v in result["targets"].items()
        )
        + ". Every peer's list was compared with the published one player by player "
        "(rank, FLADUB, results counted, previous rank): identical.",
        "",
        f"    {result['command']}",
        end,
    ]
    performance_block_write(begin, end, "\n".join(lines))


# --- main ---------------------------------------------------------------------------------------


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of 1M players x 12M")
    parser.add_argument("--seed", type=int, default=20260331)
    parser.add_argument("--lists", type=int, default=1, help="published lists before the close")
    parser.add_argument(
        "--cold", action="store_true", help="the earlier lists without packs (read by COPY)"
    )
    parser.add_argument(
        "--cold-results",
        action="store_true",
        help="the earlier months' results without result packs (the first close after the "
        "upgrade that added them)",
    )
    parser.add_argument("--streams", type=int, default=None, help="parallel COPY readers")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every contender")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="also close on this many Celery workers (close_month --workers N; Redis "
        "REDIS_URL, default database 13), compared with the single-process list",
    )
    parser.add_argument("--database", default="fido_bench_close")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5432)
    parser.add_argument("--user", default="fido")
    parser.add_argument("--superuser", default="postgres")
    parser.add_argument("--regenerate", action="store_true", help="generate even if present")
    parser.add_argument("--no-sql", action="store_true", help="skip the SQL peer")
    parser.add_argument("--no-pipeline", action="store_true", help="skip the pipeline peer")
    parser.add_argument("--explain", action="store_true", help="save the SQL peer's plan")
    parser.add_argument("--out", default=None, help="result file (default: by configuration)")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args(argv)
    problems = []
    if not args.scale > 0 or args.scale > 2:
        problems.append(f"--scale must be above 0 and at most 2, not {args.scale:g}")
    if not 0 <= args.lists <= 12:
        problems.append(f"--lists must be 0..12, not {args.lists}")
    if args.streams is not None and not 1 <= args.streams <= 16:
        problems.append(f"--streams must be 1..16, not {args.streams}")
    if not 1 <= args.workers <= 16:
        problems.append(f"--workers must be 1..16, not {args.workers}")
    if not 1 <= args.repeat <= 50:
        problems.append(f"--repeat must be 1..50, not {args.repeat}")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.database):
        problems.append(f"--database must be a plain name, not {args.database!r}")
    if problems:
        raise BenchError("; ".join(problems))
    return args


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse(argv)
        bytecode_compile()  # the start-up of a deployed close, not of a first run
        result = benchmark(args)
        if args.update_docs:
            update_docs(args, result)
    except BenchError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # psycopg errors and the like: one line, not a traceback
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"{PROG}: {type(exc).__name__}: {reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
