"""Retake the screenshots in this folder: ``.venv/bin/python docs/screenshots/make.py``.

Runs the browser test ``tests/browser/test_screenshots.py`` (Debian's Chromium through
Playwright, the demo federation on a fixed clock) with ``FIDO_SCREENSHOTS_DIR`` pointing
here, on the embedded default (SQLite), whatever the shell exports.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def main() -> int:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "CI"}}
    env["FIDO_SCREENSHOTS_DIR"] = str(HERE)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/browser/test_screenshots.py",
        "-q",
        "-p",
        "no:cacheprovider",
        "--create-db",
    ]
    return subprocess.call(command, cwd=ROOT, env=env)  # noqa: S603


if __name__ == "__main__":
    sys.exit(main())
