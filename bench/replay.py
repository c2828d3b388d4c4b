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
    args = parser.parse_args()

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
        "command": "python bench/replay.py " + " ".join(sys.argv[1:]),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
