"""Every benchmark, one after the other: what ``make bench`` runs.

    make bench                           # the figures docs/performance.md quotes (20 to 30 min)
    make bench BENCH_ARGS=--quick        # every script at a small scale (a few minutes)
    make bench BENCH_ARGS="--only close" # a subset: replay, close, pages, submit

Each benchmark runs as its own process with the databases it documents (the close:
``fido_bench_close`` and its siblings for other configurations; the pages and the
submissions read and write the close's 1M / 12M data set, ``fido_bench_close``, after the
close has run: ``--quick`` uses ``fido_bench_close_quick`` at ``--scale 0.01`` for all
three), whatever ``DATABASE_URL`` the shell exports.
The full run writes ``bench/results/*.json`` and rewrites the generated blocks of
``docs/performance.md``; ``--quick`` writes ``bench/results/quick/`` and leaves the docs
alone. Every step runs even if one fails; the exit status is non-zero if any failed, and
the last lines name them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def steps(quick: bool) -> list[tuple[str, list[str]]]:
    if quick:
        out = "bench/results/quick"
        table = [
            ("replay", f"replay.py --games 300 --rounds 1 --out {out}/replay.json"),
            (
                "close",
                "close_month.py --scale 0.01 --repeat 1 --explain --workers 2 "
                f"--database fido_bench_close_quick --out {out}/close_month.json",
            ),
            (
                "pages",
                "pages.py --scale 0.01 --requests 20 --warmup 2 --explain "
                f"--database fido_bench_close_quick --out {out}/pages.json",
            ),
            (
                "submit",
                "submit.py --scale 0.01 --database fido_bench_close_quick --matches 200 "
                f"--duration 10 --scenario 1x8 --scenario 10x2 --out {out}/submit.json",
            ),
        ]
    else:
        table = [
            ("replay", "replay.py --games 5000 --rounds 5 --update-docs"),
            ("close", "close_month.py --repeat 3 --explain --update-docs"),
            (
                "close",
                "close_month.py --scale 0.25 --repeat 3 --update-docs "
                "--database fido_bench_close_quarter",
            ),
            (
                "close",
                "close_month.py --lists 12 --repeat 3 --update-docs "
                "--database fido_bench_close_lists12",
            ),
            (
                "close",
                "close_month.py --lists 12 --cold --repeat 2 --no-sql --no-pipeline "
                "--update-docs --database fido_bench_close_lists12",
            ),
            (
                "close",
                "close_month.py --cold-results --repeat 2 --no-sql --no-pipeline --update-docs",
            ),
            (
                "close",
                "close_month.py --workers 2 --repeat 2 --no-sql --no-pipeline --update-docs",
            ),
            ("pages", "pages.py --requests 200 --explain --update-docs"),
            ("pages", "page_tables.py --players 100"),
            (
                "submit",
                "submit.py --matches 9000 --duration 30 --scenario 1x4 --scenario 1x8 "
                "--scenario 1x16 --scenario 10x2 --scenario 10x8 --update-docs",
            ),
        ]
    commands = []
    for name, line in table:
        script, _, rest = line.partition(" ")
        commands.append((name, [PY, f"bench/{script}", *rest.split()]))
    return commands


def main() -> int:
    parser = argparse.ArgumentParser(prog="run_all.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small scales, bench/results/quick")
    parser.add_argument(
        "--only", default="", help="comma-separated subset of replay, close, pages, submit"
    )
    args = parser.parse_args()
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}
    unknown = wanted - {"replay", "close", "pages", "submit"}
    if unknown:
        print(f"run_all.py: unknown benchmark(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)  # each benchmark uses its own database, never the suite's
    failed: list[str] = []
    for name, command in steps(args.quick):
        if wanted and name not in wanted:
            continue
        print(f"\n=== {name}: {' '.join(command[1:])}", flush=True)
        started = time.perf_counter()
        status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        print(f"=== {name}: exit {status} after {time.perf_counter() - started:.0f} s", flush=True)
        if status != 0:
            failed.append(" ".join(command[1:]))
    if failed:
        print("\nfailed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
