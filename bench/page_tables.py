"""The tables of a page of results: from the player's pack (``PlayerPoints.packed_tables``,
:mod:`rankings.player_tables`) against the statement that reads them as rows
(``sql.match_members``, what every page did before and does for the matches a pack cannot
say), in the same run, on the close benchmark's data (``bench/pages.py`` prepares it).

For each of ``--players`` of the 2,000 busiest players (drawn with ``--seed``), the first
100 results counting in the current list (a page of results): the pack's tables first (they
read the pack's row, read with the points as the player page does, and the clubs), then the
rows (matches, members, players: pages the pack's path never touched, first reads as on a
page of the benchmark), then both again (warm). Wall clock and the process's CPU, medians
and p95, per path and pass; the tables are checked equal. The player's points are read
before the clock starts (both paths need them). Production settings, in process.

Usage: ``bench/page_tables.py [--players 100] [--seed 1] [--out bench/results/page_tables.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import machine  # noqa: E402
from bench.pages import _commit, database_url, server_env, targets  # noqa: E402


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(ordered[max(0, int(0.95 * len(ordered)) - 1)] * 1000, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="fido_bench_close")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", default="5432")
    parser.add_argument("--user", default="fido")
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "bench/results/page_tables.json"))
    args = parser.parse_args()
    os.environ.update(server_env(args))
    import django

    django.setup()
    import psycopg

    from matches.models import Player
    from matches.months import Month
    from rankings import sql
    from rankings.selectors import counting_results as cr
    from rankings.selectors.lists import current_list

    with psycopg.connect(database_url(args)) as conn:
        found = targets(conn, args.seed)
    ids = random.Random(args.seed).sample(found["players"], args.players)
    pks = dict(Player.objects.filter(player_id__in=ids).values_list("player_id", "pk"))
    latest = current_list(discipline="fido")
    if latest is None:
        raise SystemExit("page_tables.py: no published list (run bench/pages.py first)")
    month = Month.of(latest.month)
    months = [month.prev(), month, month.next()]
    timings: dict[str, list[float]] = {}
    shown_count: list[int] = []

    def timed(name: str, work: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        done = work()
        timings.setdefault(f"{name}_wall", []).append(time.perf_counter() - wall)
        timings.setdefault(f"{name}_cpu", []).append(time.process_time() - cpu)
        return done

    for name in ("cold", "warm"):
        for player_id in ids:
            pk = pks[player_id]
            points = cr.player_points(pk, discipline="fido", months=months, tables=True)
            shown = points.breakdown(month).match_id[:100].tolist()
            packed = timed(f"{name}_pack", lambda p=points, s=shown: p.packed_tables(s))
            rows = timed(
                f"{name}_rows",
                lambda s=shown, p=pk: cr._tables(sql.MEMBER_ROWS.rows(sql.match_members(s)), p),
            )
            tables, _mine = rows
            for match_pk, (_facts, seats) in packed.items():
                read = [
                    (m.side_position, m.score, m.player_pk, m.player_id, m.name)
                    for side in sorted(tables[match_pk])
                    for m in tables[match_pk][side]
                ]
                if [tuple(s) for s in seats] != read:
                    raise SystemExit(f"page_tables.py: {player_id}, match {match_pk} differs")
            if name == "cold":
                shown_count.append(len(packed))
    result = {
        "benchmark": "page_tables",
        "players": args.players,
        "seed": args.seed,
        "matches_a_page": statistics.median(shown_count),
        "from_the_pack_share": round(sum(shown_count) / (100 * len(shown_count)), 3),
        **{key: _stats(values) for key, values in sorted(timings.items())},
        "machine": machine("this process and PostgreSQL share them"),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": _commit(),
        "command": " ".join(["bench/page_tables.py", *sys.argv[1:]]),
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
