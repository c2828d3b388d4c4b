"""Time the FLADUB core alone (rankings/fladub.py) on synthetic arrays, no database.

    .venv/bin/python bench/fladub_core.py               # 1,000,000 players, 12,000,000 rows
    .venv/bin/python bench/fladub_core.py --scale 0.1   # a tenth of both, for a quick run
    .venv/bin/python bench/fladub_core.py --workers 4   # also the split run, checked equal
    .venv/bin/python bench/fladub_core.py --repeat 3    # best of three (shared machines)

The arrays have the shape the database loader hands over (rows ordered by match, side,
player, as its COPY ... ORDER BY gives them; ``--shuffle`` times the unsorted path too),
12 months of matches, 3% of them late, tables of 2 to 9 sides, some of them teams of two,
a skewed activity so that many players have more than 20 results, and 12 published lists
for the opponent strength. Generating the data is not timed. The peak RSS of the
computation is the kernel's high-water mark reset just before it (``/proc/self/clear_refs``),
so it includes the input arrays but not the generator's scratch; ``ru_maxrss`` covers the
whole process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measured import peak_mib
from bench.synthetic import synthetic_tables
from rankings import fladub

CLOSE = fladub.month_index(2026, 3)


def generate(
    n_players: int, n_rows: int, seed: int
) -> tuple[fladub.Sides, dict[int, fladub.PublishedList]]:
    rng = np.random.default_rng(seed)
    if n_players > 1 << 20:
        raise SystemExit("the generator packs player ids into 20 bits")
    tables = synthetic_tables(rng, n_players=n_players, n_rows=n_rows, player_bits=20)
    n_matches, match_of_row, side, player = (
        tables.n_matches,
        tables.match_of_row,
        tables.side,
        tables.player,
    )

    age = rng.integers(0, 12, n_matches)
    played = (CLOSE - age).astype(np.int32)
    late = rng.random(n_matches) < 0.03
    counting = np.where(late, np.minimum(played + 1, CLOSE), played).astype(np.int32)
    base = rng.choice([10.0, 20.0, 40.0, 80.0, 160.0], n_matches, p=[0.7, 0.15, 0.1, 0.04, 0.01])
    side_score = rng.integers(-50, 150, n_matches * 9).astype(np.float64)
    sides = fladub.Sides(
        match_id=match_of_row * 7 + 1000,  # ids need not be dense
        month_played=played[match_of_row],
        counting_month=counting[match_of_row],
        base=base[match_of_row],
        side_no=side.astype(np.int16),
        score=side_score[match_of_row * 9 + side],
        player=player,
    )
    published = {}
    for month in range(CLOSE - 12, CLOSE):
        listed = np.flatnonzero(rng.random(n_players) < 0.9)
        cents = np.maximum(1, rng.lognormal(8.0, 1.0, len(listed))).astype(np.int64)
        published[month] = fladub.PublishedList(player=listed, fladub_cents=cents)
    return sides, published


def reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of 1M x 12M")
    parser.add_argument("--seed", type=int, default=20260331)
    parser.add_argument("--shuffle", action="store_true", help="also time unsorted rows")
    parser.add_argument("--workers", type=int, default=0, help="also time an N-way split")
    parser.add_argument("--repeat", type=int, default=1, help="runs of the computation")
    args = parser.parse_args()

    n_players = int(1_000_000 * args.scale)
    n_rows = int(12_000_000 * args.scale)
    t = time.perf_counter()
    sides, published = generate(n_players, n_rows, args.seed)
    print(
        f"generated {len(sides):,} rows, {n_players:,} players in {time.perf_counter() - t:.1f} s"
    )

    reset = reset_peak()
    best: dict[str, float] = {}
    for run in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        stages = {}
        t = time.perf_counter()
        window = sides.in_window(CLOSE).canonical()
        stages["window + order check"] = time.perf_counter() - t
        t = time.perf_counter()
        results = fladub.match_points(window, published)
        stages["match points"] = time.perf_counter() - t
        t = time.perf_counter()
        totals = fladub.player_totals(results, CLOSE)
        stages["best 20 per player"] = time.perf_counter() - t
        t = time.perf_counter()
        ranking = fladub.rank_list(totals, CLOSE, previous=published[CLOSE - 1])
        stages["rank and previous"] = time.perf_counter() - t
        stages["total"] = time.perf_counter() - wall
        stages["cpu"] = time.process_time() - cpu
        print(
            f"run {run + 1}: "
            + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in stages.items())
        )
        best = {k: min(v, best.get(k, v)) for k, v in stages.items()}
        del results, window
    peak = peak_mib()

    many = int((totals.results_counted > fladub.BEST_OF).sum())
    print(
        f"players with results {len(totals.player):,}, with more than 20: {many:,}, "
        f"listed {len(ranking):,}"
    )
    print(f"best of {args.repeat}:")
    for name, seconds in best.items():
        print(f"  {name:22s} {seconds:6.2f} s")
    label = "peak RSS of the computation" if reset else "peak RSS (process)"
    print(f"{label}: {peak or float('nan'):,.0f} MiB")
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"ru_maxrss (whole process, generator included): {maxrss:,.0f} MiB")

    if args.shuffle:
        order = np.random.default_rng(1).permutation(len(sides))
        shuffled = sides.take(order)
        reset_peak()
        t = time.perf_counter()
        again = fladub.compute_list(shuffled, CLOSE, published)
        print(
            f"unsorted input: {time.perf_counter() - t:.2f} s, peak {peak_mib() or 0:,.0f} MiB, "
            f"identical: {again.equals(ranking)}"
        )
        del shuffled

    if args.workers:
        parts = []
        slowest = 0.0
        for worker in range(args.workers):
            share = fladub.sides_for_worker(sides, worker, args.workers)
            t = time.perf_counter()
            parts.append(
                fladub.compute_partial(
                    share, CLOSE, published, worker=worker, n_workers=args.workers
                )
            )
            slowest = max(slowest, time.perf_counter() - t)
        t = time.perf_counter()
        merged = fladub.rank_list(fladub.merge_totals(parts), CLOSE, previous=published[CLOSE - 1])
        print(
            f"{args.workers} workers: slowest share {slowest:.2f} s, merge and rank "
            f"{time.perf_counter() - t:.2f} s, identical: {merged.equals(ranking)}"
        )


if __name__ == "__main__":
    main()
