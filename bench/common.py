"""What the HTTP benchmarks share: the machine line, the database, the gunicorn server.

Contract: ``ensure_database(url)`` leaves a PostgreSQL database at ``url`` that its role can
use (creating the login role and the database as the ``postgres`` superuser when missing,
on the loopback interface), and ``migrated_database`` migrates it as well; ``run_main``
turns a failure into one line and a non-zero exit; ``start_gunicorn`` returns a running
server in its own process group once ``/healthz`` answers 200, or exits with a message;
``stop_server`` ends it and its workers; ``gunicorn_layout`` is the (processes, threads)
that ``deploy/gunicorn.conf.py`` gives in this environment; ``settle`` flushes
PostgreSQL's dirty buffers and waits (bounded) for the CPUs to be quiet;
``performance_block_write`` replaces one marked block of docs/performance.md;
``bytecode_compile`` compiles the project's own modules, as a deployment does;
``cpu_by_pid`` and its helpers (``server_cpu``, ``database_cpu``, ``cpu_used``,
``worker_shares``, and ``CpuSample``, which takes both sides at once) read the CPU time
processes have spent, from ``/proc``, for a benchmark to say what its run cost and
where. Nothing here times anything.
"""

from __future__ import annotations

import http.client
import os
import platform
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
PERFORMANCE_DOC = ROOT / "docs" / "performance.md"
PROJECT_CODE = ("fido", "matches", "rankings", "manage.py")
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
"""Production's gunicorn settings, which the benchmarks' servers start with."""


def bytecode_compile() -> None:
    """Compile the project's modules to ``__pycache__`` (as a deployment does at install,
    and ``make install`` does for the dependencies): a timed process then starts from
    bytecode even where ``PYTHONDONTWRITEBYTECODE`` keeps every run from writing it.
    Unchanged files are skipped; a file edited later is recompiled on import, as usual."""
    import compileall

    for name in PROJECT_CODE:
        path = ROOT / name
        if path.is_dir():
            compileall.compile_dir(path, quiet=1)
        else:
            compileall.compile_file(path, quiet=1)


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def loopback_only(url: str, prog: str) -> str:
    """``url`` as given if its host is the loopback interface, else exit with one line: a
    benchmark flushes the databases it is given and loads the servers it talks to."""
    host = re.sub(r"^\w+://(?:[^@/]*@)?([^:/]+).*$", r"\1", url)
    if host not in LOOPBACK:
        raise SystemExit(f"{prog}: loopback only: {url}")
    return url


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def run_main(prog: str, main: Callable[[], Any]) -> None:
    """Run a benchmark's ``main``; an unreachable server, a missing role or database, a
    failed child process end with one line on stderr and exit status 2, not a traceback."""
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(f"{prog}: interrupted")
    except SystemExit:
        raise
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"{prog}: {type(exc).__name__}: {reason}", file=sys.stderr)
        sys.exit(2)


def performance_block_write(begin: str, end: str, block: str) -> None:
    """Put ``block`` (which starts with the line ``begin`` and ends with ``end``) in place of
    the block between those markers in docs/performance.md, or at its end if it has none."""
    text = PERFORMANCE_DOC.read_text()
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    PERFORMANCE_DOC.write_text(text)


def machine(note: str) -> str:
    """CPU model, CPU count (with ``note``: what uses the CPUs), Python and kernel."""
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}; {os.cpu_count()} logical CPUs ({note}); "
        f"Python {platform.python_version()}; {platform.system()} {platform.release()}"
    )


def cpu_pressure() -> float | None:
    """The share of the last 10 s in which runnable tasks waited for a CPU (Linux PSI)."""
    try:
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    found = re.search(r"avg10=([0-9.]+)", first)
    return float(found.group(1)) if found else None


SETTLE_PRESSURE = 5.0  # % of the last 10 s a runnable task waited for a CPU (PSI avg10)
SETTLE_WAIT_S = 60.0


def settle(superuser_url: str) -> dict[str, float | None]:
    """Before timed requests: a ``CHECKPOINT`` (as a superuser: the dirty buffers of what
    ran before, a close's lists and the ``VACUUM`` after it, written now rather than by the
    checkpointer during the timed requests), then a wait, at most :data:`SETTLE_WAIT_S`,
    until the CPU pressure falls below :data:`SETTLE_PRESSURE` (the steps of ``make bench``
    before this one leave PostgreSQL and the kernel busy for a while). What it took."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    checkpoint = time.perf_counter() - started
    pressure = cpu_pressure()
    while pressure is not None and pressure >= SETTLE_PRESSURE:
        if time.perf_counter() - started - checkpoint >= SETTLE_WAIT_S:
            break
        time.sleep(1.0)
        pressure = cpu_pressure()
    return {
        "checkpoint_s": round(checkpoint, 2),
        "waited_s": round(time.perf_counter() - started - checkpoint, 1),
        "cpu_pressure": pressure,
    }


# --- CPU by process (what a run cost, and where) ------------------------------------------


def cpu_by_pid(wanted: Callable[[str, int], bool]) -> dict[int, float]:
    """User + system CPU seconds so far of each process for which ``wanted(comm, ppid)``
    holds (Linux ``/proc/<pid>/stat``; a process that ends while read is skipped)."""
    found: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm = text[text.index("(") + 1 : text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        if wanted(comm, int(fields[1])):
            found[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return found


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU spent between two samples by the processes alive at the second (all of it for
    those started in between, such as the backends of new connections)."""
    return sum(spent - before.get(pid, 0.0) for pid, spent in after.items())


def worker_shares(before: dict[int, float], after: dict[int, float]) -> list[float]:
    """Each worker's share of the server CPU between two samples, largest first (a
    keep-alive connection stays with the worker that accepted it: with few clients, some
    workers may serve none)."""
    spent = [after[pid] - before.get(pid, 0.0) for pid in after]
    total = sum(spent)
    return sorted((round(one / total, 2) for one in spent), reverse=True) if total else []


def server_cpu(server: subprocess.Popen[bytes]) -> dict[int, float]:
    """The gunicorn workers (the children of the master)."""
    return cpu_by_pid(lambda _comm, ppid: ppid == server.pid)


def database_cpu() -> dict[int, float]:
    """The PostgreSQL and Redis server processes (the server's persistent connections keep
    their backends; anything else using PostgreSQL meanwhile is counted too)."""
    return cpu_by_pid(lambda comm, _ppid: comm == "postgres" or comm.startswith("redis-serv"))


@dataclass(frozen=True)
class CpuSample:
    """The CPU spent so far by a benchmark's gunicorn workers and by PostgreSQL and Redis
    (:func:`server_cpu`, :func:`database_cpu`); two samples tell what the requests between
    them cost (:meth:`since`)."""

    server: dict[int, float]
    database: dict[int, float]

    @classmethod
    def take(cls, server: subprocess.Popen[bytes]) -> CpuSample:
        return cls(server_cpu(server), database_cpu())

    def since(self, before: CpuSample) -> tuple[float, float, list[float]]:
        """(gunicorn's CPU seconds, PostgreSQL and Redis's, each worker's share of
        gunicorn's: :func:`worker_shares`) between ``before`` and this sample."""
        return (
            cpu_used(before.server, self.server),
            cpu_used(before.database, self.database),
            worker_shares(before.server, self.server),
        )


def ensure_database(url: str) -> None:
    """Create the role and the database of ``url`` (as ``postgres``) unless they exist; a
    database that exists for another role is an error naming its owner (nothing created)."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=5).close()
        return
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            raise
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    role = parts.username or "postgres"
    if not (_NAME.fullmatch(name) and _NAME.fullmatch(role)):
        raise SystemExit(f"refusing to create database {name!r} for role {role!r}")
    host, port = parts.hostname or "127.0.0.1", str(parts.port or 5432)
    with psycopg.connect(
        host=host, port=port, user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        owner = conn.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if owner is not None:
            # The role is what is missing: a database made for another role would not be
            # usable by a new one (its tables belong to the owner), so nothing is created.
            raise SystemExit(
                f"database {name} exists (owner {owner[0]}) but role {role} does not: "
                f"run with --user {owner[0]}, or name another --database"
            )
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone() is None:
            print(f"creating role {role}", flush=True)
            conn.execute(f'CREATE ROLE "{role}" LOGIN CREATEDB')
    print(f"creating database {name}", flush=True)
    done = subprocess.run(
        ["createdb", "-h", host, "-p", port, "-U", "postgres", "-O", role, name],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"could not create database {name}: {reason}")


def close_data(
    database: str, scale: float, *, host: str, port: int, user: str, superuser: str
) -> None:
    """The data set of ``bench/close_month.py`` in ``database`` (``bench/close_data.py
    ensure``, a child process: generated once, kept between runs), or exit with its last
    line of output."""
    command = [sys.executable, "bench/close_data.py", "ensure", "--database", database]
    command += ["--host", host, "--port", str(port), "--user", user, "--superuser", superuser]
    command += ["--scale", str(scale)]
    try:
        done = subprocess.run(
            command, cwd=ROOT, text=True, capture_output=True, timeout=7200, check=False
        )
    except subprocess.TimeoutExpired:
        raise SystemExit("preparing the close benchmark's data took over 2 hours") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise SystemExit(f"preparing the close benchmark's data failed: {' '.join(tail)}")


def migrated_database(url: str, env: dict[str, str], timeout: float) -> None:
    """:func:`ensure_database`, then ``manage.py migrate`` with ``env`` (its
    ``DATABASE_URL`` pointing at ``url``), within ``timeout`` seconds."""
    ensure_database(url)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=timeout,
    )


def gunicorn_layout() -> tuple[int, int]:
    """(worker processes, threads per process) as ``deploy/gunicorn.conf.py`` sets them
    here (``WEB_CONCURRENCY`` and ``GUNICORN_THREADS`` read from this environment): the
    benchmarks label and start their servers with production's layout, not a copy of it."""
    import runpy

    conf = runpy.run_path(str(GUNICORN_CONF))
    return int(conf["workers"]), int(conf["threads"])


def start_gunicorn(
    port: int, env: dict[str, str], options: list[str], app: str = "fido.wsgi"
) -> subprocess.Popen[bytes]:
    """gunicorn ``options`` serving ``app`` on 127.0.0.1:``port``, healthy within 60 s."""
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        *options,
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
        app,
    ]
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.3)
    stop_server(server)
    raise SystemExit("gunicorn did not answer /healthz with 200 within 60 s")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (master and workers); SIGKILL after 30 s."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
