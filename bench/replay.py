"""Replay throughput of simulated four-player double-12 FIDO games, on one core.

Usage: ``.venv/bin/python bench/replay.py [--games 5000] [--seed 1] [--rounds 3] [--out FILE]``

The records are generated first (``matches.rules.simulate``, seeded) and decoded from
JSON text, as the API and the command line receive them; only ``replay`` (validation,
replay and report) is timed, as CPU time of this one process. Target: >= 1,000 complete
games per second. Writes games/s, games, seconds, moves, the machine and the date to
``--out``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine  # after the path set-up above
from matches.rules import replay
from matches.rules.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="timed passes; the best is kept")
    parser.add_argument("--out", default="bench/results/replay.json")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.games <= 1_000_000 or not 1 <= args.rounds <= 100:
        raise SystemExit("replay.py: --games must be 1..1000000 and --rounds 1..100")

    texts = [
        json.dumps(simulate("fido", seed=args.seed + i, players=4, options={"set": 12}).record)
        for i in range(args.games)
    ]
    records = [json.loads(t) for t in texts]
    moves = sum(len(r["moves"]) for r in records)

    # CPU time of this process is the figure: it measures one core's throughput even when
    # other work shares the machine. Wall time is recorded beside it.
    best = best_wall = float("inf")
    for _ in range(args.rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for record in records:
            replay(record)
        best = min(best, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)

    result = {
        "benchmark": "replay of simulated 4-player double-12 FIDO games (divisor 7)",
        "games_per_second": round(args.games / best, 1),
        "moves_per_second": round(moves / best),
        "games": args.games,
        "moves": moves,
        "seconds": round(best, 4),
        "seconds_measure": "CPU time of the replaying process, best of the rounds",
        "wall_seconds": round(best_wall, 4),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "rounds": args.rounds,
        "seed": args.seed,
        "target_games_per_second": 1000,
        "machine": machine("one used"),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": "python bench/replay.py "
        + " ".join(a for a in sys.argv[1:] if a != "--update-docs"),
        "commit": subprocess.run(
            ["git", "describe", "--always", "--dirty"], capture_output=True, text=True
        ).stdout.strip(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    if args.update_docs:
        update_docs(result)


BEGIN_MARK = "<!-- bench/replay.py: begin -->"
END_MARK = "<!-- bench/replay.py: end -->"


def update_docs(result: dict[str, object]) -> None:
    """Rewrite the generated block of docs/performance.md from ``result``."""
    docs = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
    text = docs.read_text()
    block = "\n".join(
        [
            BEGIN_MARK,
            f"**{result['games_per_second']:,} complete games per second on one core** "
            f"(target: 1,000): {result['games']:,} simulated four-player double-12 FIDO games "
            f"({result['moves']:,} moves, {result['moves_per_second']:,} moves/s), best of "
            f"{result['rounds']} passes, CPU time of the replaying process "
            f"({result['seconds']} s; wall {result['wall_seconds']} s at a 1-minute load "
            f"average of {result['load_average_1min']}). Measured {result['date']} at commit "
            f"`{result['commit']}`:",
            "",
            f"    {result['command']}",
            END_MARK,
        ]
    )
    start, end = text.index(BEGIN_MARK), text.index(END_MARK) + len(END_MARK)
    docs.write_text(text[:start] + block + text[end:])


if __name__ == "__main__":
    main()
