"""The statements a page runs, each with its ``EXPLAIN (ANALYZE, BUFFERS)``.

    DATABASE_URL=... DJANGO_SETTINGS_MODULE=fido.settings.base \\
        .venv/bin/python bench/pages_explain.py --out bench/results/pages_explain.txt PATH...

For each PATH (such as ``/players/P-0000001/``): one untimed GET in process (Django's test
client; it warms the caches), then the same GET again with its statements captured, then
each ``SELECT`` among them explained with ``ANALYZE`` (it runs again) and ``BUFFERS``,
slowest first. The read side's statements run prepared (:func:`rankings.sql.fetch`); they
are explained here with their values written in, the plan PostgreSQL makes for the first
five executions of a prepared statement (after that it may keep a generic plan, when that
is estimated no costlier). Writes one text file; reads only (``EXPLAIN ANALYZE`` of a ``SELECT``
changes nothing). Called by ``bench/pages.py --explain``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def explain_path(path: str) -> list[str]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from matches import sql as matches_sql

    client = Client()
    client.get(path)
    prepared: list[Any] = []  # the statements run through matches.sql, with their values
    run_prepared = matches_sql.execute_all

    def recording(statements: Any, **options: Any) -> Any:
        prepared.extend(statements)
        return run_prepared(statements, **options)

    started = time.perf_counter()
    matches_sql.execute_all = recording  # type: ignore[assignment]
    try:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(path)
    finally:
        matches_sql.execute_all = run_prepared  # type: ignore[assignment]
    elapsed = (time.perf_counter() - started) * 1000
    # Django's log has the others with their values written in; the prepared ones it has
    # as their text and a comment of their values, which are explained from ``prepared``.
    texts = {statement.sql for statement in prepared}
    statements: list[tuple[str, dict[str, Any] | None]] = [
        (q["sql"], None)
        for q in captured.captured_queries
        if q["sql"].split(" -- {")[0] not in texts
    ]
    statements += [(statement.sql, dict(statement.params)) for statement in prepared]
    lines = [
        f"=== GET {path}: {response.status_code}, {elapsed:.1f} ms in process, "
        f"{len(statements)} statements ({len(prepared)} of them prepared)",
        "",
    ]
    plans = []
    with connection.cursor() as cursor:
        for sql, params in statements:
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                continue
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
            total = next(
                (float(p.split(":")[1].split()[0]) for p in plan if p.startswith("Execution")), 0.0
            )
            plans.append((total, sql, plan))
    for total, sql, plan in sorted(plans, key=lambda p: -p[0]):
        lines += [f"--- {total:.3f} ms", sql, "", *plan, ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = ["testserver"]  # the test client's host, in this process only
    lines: list[str] = []
    for path in args.paths:
        lines += explain_path(path)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"query plans: {args.out}")


if __name__ == "__main__":
    from bench.common import run_main

    run_main("pages_explain.py", main)
