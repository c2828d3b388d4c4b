"""Running the project's Python in a child process, as an operator would: ``manage.py``
commands and scripts with an environment of the test's choosing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(
    *args: str, env: Mapping[str, str] | None = None, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    """``python <args>`` in the project's root (``env``: the whole environment, None: this
    one's); output captured as text. A failing command is returned, not raised."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=None if env is None else dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def refused(script: str, *args: str, status: int, message: str) -> subprocess.CompletedProcess[str]:
    """``python <script> <args>`` that must refuse its input as a user should see it: exit
    status ``status``, ``message`` on stderr, no traceback. The finished process, for the
    caller's own checks of what else it printed."""
    done = run_python(script, *args)
    assert done.returncode == status, (done.returncode, done.stderr)
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done
