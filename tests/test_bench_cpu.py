"""What the HTTP benchmarks say a run cost in CPU (``bench.common``'s readers of ``/proc``,
``bench.pages.cpu_spent``): a process's own CPU is found by its parent, a process started
between two samples counts in full, the workers' shares add up and name the idle ones, and
the pages' figures are per request and against every CPU of the machine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bench import pages
from bench.common import CpuSample, cpu_by_pid, cpu_used, worker_shares

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"


def test_a_child_that_burned_cpu_is_found_by_its_parent_with_that_cpu() -> None:
    child = subprocess.Popen([sys.executable, "-c", BURN + "time.sleep(30)"])
    try:
        for _ in range(100):
            found = cpu_by_pid(lambda _comm, ppid: ppid == os.getpid())
            if found.get(child.pid, 0.0) >= 0.25:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert 0.25 <= found[child.pid] < 5
        assert cpu_by_pid(lambda _comm, ppid: ppid == child.pid) == {}
    finally:
        child.kill()
        child.wait()


def test_cpu_used_counts_a_process_started_between_the_samples_in_full() -> None:
    before = {10: 1.0, 11: 2.0}
    after = {10: 1.5, 11: 2.0, 12: 0.25}  # 12 is new (a backend of a new connection)
    assert cpu_used(before, after) == pytest.approx(0.75)


def test_worker_shares_are_largest_first_and_show_the_idle_workers() -> None:
    before = {1: 0.0, 2: 0.0, 3: 5.0, 4: 1.0}
    after = {1: 1.0, 2: 3.0, 3: 5.0, 4: 1.0}
    assert worker_shares(before, after) == [0.75, 0.25, 0.0, 0.0]
    assert worker_shares(after, after) == []  # nothing spent: no shares, no division by 0


def test_the_pages_cpu_is_per_request_and_against_every_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pages.os, "cpu_count", lambda: 2)
    before = CpuSample(server={1: 0.0, 2: 0.0}, database={7: 10.0})
    after = CpuSample(server={1: 2.0, 2: 6.0}, database={7: 13.0, 8: 1.0})
    found = pages.cpu_spent(before, after, clients=1.0, requests=1000, wall_seconds=10.0)
    assert found == {
        "server_ms_per_request": 8.0,
        "database_ms_per_request": 4.0,
        "clients_ms_per_request": 1.0,
        "busy_share": 0.65,  # 13 s of CPU in 10 s on 2 CPUs
        "server_share_by_worker": [0.75, 0.25],
    }


def test_the_docs_block_says_the_cpu_of_a_run_that_measured_it() -> None:
    cpu = {
        "server_ms_per_request": 9.63,
        "database_ms_per_request": 4.75,
        "clients_ms_per_request": 0.42,
        "busy_share": 0.89,
        "server_share_by_worker": [0.55, 0.45, 0.0, 0.0],
    }
    sentence = " ".join(pages._cpu_sentence({"cpu": cpu}).split())
    assert "gunicorn 9.63 ms" in sentence
    assert "PostgreSQL and Redis 4.75 ms" in sentence
    assert "kept 89% of the machine's CPUs busy" in sentence
    assert "0.55, 0.45, 0.00, 0.00" in sentence
    assert pages._cpu_sentence({}) == ""  # an older result: no sentence
