"""Run a Python script in this fresh interpreter and report its peak memory at the end.

    .venv/bin/python bench/measured.py manage.py close_month 2026-03 --discipline fido --inline

The script runs as ``__main__`` with the given arguments, exactly as ``python SCRIPT ARGS``
would run it; when it ends (normally, by ``SystemExit``, or by ``os._exit``, which
``close_month`` calls once it has succeeded), one last line goes to stdout:
``MEASURED {"peak_rss_mib": ..., "exit": ...}``, where the peak is this process's own
``VmHWM`` from ``/proc/self/status``. A fresh ``exec`` starts a new address space, so the
figure never includes what the launching process held (``ru_maxrss``, by contrast, carries
the parent's peak across ``fork``/``exec`` on Linux). Exits with the script's status.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path


def peak_mib() -> float | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def main() -> int:
    if len(sys.argv) < 2:
        sys.exit("usage: measured.py SCRIPT [ARGS...]")
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = str(Path(script).resolve().parent)
    status: int | str | None = 0
    exit_now = os._exit

    def reported_exit(code: int) -> None:  # the script ends the process itself
        report(code)
        exit_now(code)

    os._exit = reported_exit  # type: ignore[assignment]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code
    code = status if isinstance(status, int) else (0 if status is None else 1)
    if isinstance(status, str):
        print(status, file=sys.stderr)
    report(code)
    return code


def report(code: int) -> None:
    sys.stdout.flush()
    print("MEASURED " + json.dumps({"peak_rss_mib": peak_mib(), "exit": code}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
