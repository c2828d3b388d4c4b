"""``bench/close_month.py``'s rounds: every timed contender but the start-up begins on a
settled machine (``bench.common.settle``), after the data's reset, and records what settling
took; the processes themselves are stand-ins here (the real ones: ``make bench``)."""

from __future__ import annotations

from typing import Any

import pytest

from bench import close_month


def test_each_contender_starts_on_a_settled_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []
    quiet = {"checkpoint_s": 0.01, "waited_s": 0.0, "cpu_pressure": 1.0}

    def contender(name: str, **extra: Any) -> Any:
        def run(args: Any) -> dict[str, Any]:
            order.append(name)
            return {
                "seconds": 1.0,
                "stages": {},
                "start_up_and_exit": 0.3,
                "list_id": 7,
                "peak_rss_mib": 1.0,
                "load_average_1min": 0.1,
                **extra,
            }

        return run

    monkeypatch.setattr(close_month, "data_step", lambda args, action: order.append(action))

    def settle(url: str) -> dict[str, float]:
        order.append("settle")
        return quiet

    monkeypatch.setattr(close_month, "settle", settle)
    monkeypatch.setattr(close_month, "run_close", contender("close"))
    monkeypatch.setattr(close_month, "run_start_up", contender("start-up"))
    monkeypatch.setattr(close_month, "run_sql", contender("sql"))
    monkeypatch.setattr(close_month, "run_pipeline", contender("pipeline"))
    monkeypatch.setattr(close_month, "run_sharded", contender("workers"))
    monkeypatch.setattr(close_month, "keep_list", lambda args, list_id: None)
    monkeypatch.setattr(close_month, "compare", lambda args, table, list_id: {"entries": 1})
    args = close_month.parse(["--repeat", "2", "--workers", "2"])
    runs = close_month.new_runs()

    close_month.rounds(args, runs)

    one_round = [
        "reset",
        "settle",
        "close",
        "start-up",
        "settle",
        "sql",
        "settle",
        "pipeline",
        "reset",
        "settle",
        "workers",
    ]
    assert order == one_round * 2
    for name in ("close", "sql", "pipeline", "workers"):
        assert [run["settled"] for run in runs[name]] == [quiet, quiet]
    assert all("settled" not in run for run in runs["start_up"])
