"""Bad input to ``bench/submit.py``: a clear message naming the flag and its range, exit
status 1 (``SystemExit`` with the message), no traceback, nothing started (the flags are
checked before any database work); and its default gunicorn layout, production's (two
processes per CPU), passes its own checks on a large machine."""

from __future__ import annotations

import pytest

from tests.processes import refused, run_python


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "submit.py: --workers must be 1..256, not 0"),
        (["--workers", "257"], "submit.py: --workers must be 1..256, not 257"),
        (["--threads", "0"], "submit.py: --threads must be 1..64, not 0"),
        (["--matches", "0"], "submit.py: --matches must be 1..10000000, not 0"),
        (["--scale", "0"], "submit.py: --scale must be above 0 and at most 4, not 0"),
    ],
)
def test_bad_flags_are_refused_before_any_work(args: list[str], message: str) -> None:
    done = refused("bench/submit.py", *args, status=1, message=message)
    assert done.stdout == ""  # nothing seeded, nothing timed


def test_the_default_layout_on_a_64_cpu_machine_is_within_the_checked_range() -> None:
    script = (
        "import multiprocessing, sys; multiprocessing.cpu_count = lambda: 64; "
        "sys.argv = ['submit.py', '--threads', '0']; "
        "import runpy; runpy.run_path('bench/submit.py', run_name='__main__')"
    )
    done = run_python("-c", script)
    # The default --workers (128) passes; the first flag refused is the one given.
    assert "--threads must be 1..64, not 0" in done.stderr
    assert "--workers" not in done.stderr
