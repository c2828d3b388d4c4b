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
