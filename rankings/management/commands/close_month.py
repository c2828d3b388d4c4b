"""``manage.py close_month YYYY-MM [--discipline D] [--inline | --workers N]`` (SPEC.md 5.3).

Closes the month and publishes its list, for one discipline or (without ``--discipline``)
every discipline in turn. By default the ranking job runs on a Celery worker and the
command waits for it, following the run record; ``--inline`` runs the job in this process.
``--workers N`` splits the computation into N shards by player, one Celery task each (on as
many workers, on any machine, as are running); this process merges them, writes the list
and publishes it.
Prints each stage's time (load, compute, write, publish). A refused close (before the
deadline, previous month open) prints the reason and exits non-zero; so does a failed or
timed-out job.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from matches import clock
from matches.disciplines import CODES
from matches.months import Month
from rankings.management.arguments import month_argument
from rankings.models import CloseRun, RankingList
from rankings.selectors.lists import ListInfo, published_list
from rankings.services.close_run import CloseRefused, close_run_create

REPORTED_STAGES = ("load", "compute", "write", "publish")
POLL_SECONDS = 0.5


class Command(BaseCommand):
    help = "Close a month and publish its ranking list (waits for the ranking job)."
    # No system checks: they import every URL module, view and API schema generator
    # (over a second) and check nothing this command relies on; ``manage.py check`` runs
    # them at deploy time (`manage.py check --deploy`, README).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("month", help="the month to close, YYYY-MM")
        parser.add_argument(
            "--discipline",
            choices=CODES,
            help="close this discipline only (default: every discipline)",
        )
        parser.add_argument(
            "--inline",
            action="store_true",
            help="run the ranking job in this process instead of on a worker",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="split the computation into this many shards, one Celery task each; this "
            "process waits for them, then writes and publishes (default 1: no split)",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=3600.0,
            help="seconds to wait for the worker, or the shards (default 3600)",
        )

    def run_from_argv(self, argv: list[str]) -> None:
        """As the command line runs it. Once the command has succeeded, its output written
        and flushed, its log handlers flushed and its connections closed, the process ends
        at once (``os._exit``): the interpreter's teardown of a close's modules and arrays
        took 0.1 s (a twentieth of a close at a quarter of a million players) and does
        nothing a finished command needs. A failure exits as Django's commands do; a test
        calls the command (``call_command``) and never comes here."""
        super().run_from_argv(argv)
        _exit_now()

    def handle(self, *args: Any, **options: Any) -> None:
        month = month_argument(options["month"])
        workers = options["workers"]
        if not 1 <= workers <= 64:
            raise CommandError(f"--workers must be 1..64, not {workers}")
        disciplines = [options["discipline"]] if options["discipline"] else list(CODES)
        problems: list[str] = []
        for discipline in disciplines:
            try:
                self._close(
                    month,
                    discipline,
                    inline=options["inline"],
                    timeout=options["timeout"],
                    workers=workers,
                )
            except (CloseRefused, _JobFailed) as exc:
                problems.append(f"{discipline} {month}: {exc}")
                self.stderr.write(f"{discipline} {month}: {exc}")
        if problems:
            raise CommandError(
                ngettext(
                    "%(n)d of %(m)d close did not publish a list",
                    "%(n)d of %(m)d closes did not publish a list",
                    len(disciplines),
                )
                % {"n": len(problems), "m": len(disciplines)}
            )

    def _close(
        self, month: Month, discipline: str, *, inline: bool, timeout: float, workers: int
    ) -> None:
        already = published_list(discipline=discipline, month=month)
        if already is not None:
            self.stdout.write(f"{discipline} {month}: already published ({_describe(already)})")
            return
        # Only now the close itself (NumPy, the loader, the writer): a month already
        # published, the common answer of a retried command, starts without them.
        from rankings.services.close import month_close, month_close_check, month_close_enqueue

        month_close_check(month=month, discipline=discipline, now=clock.now())
        if inline or workers > 1:
            run = close_run_create(month=month, discipline=discipline)
            where = f"in {workers} shards on workers" if workers > 1 else "in this process"
            self.stdout.write(f"{discipline} {month}: closing {where} (run {run.pk})")
            try:
                month_close(
                    month=month,
                    discipline=discipline,
                    run=run,
                    workers=workers,
                    shard_timeout=timeout,
                )
            except CloseRefused:
                raise
            except Exception as exc:
                raise _JobFailed(f"the ranking job failed: {type(exc).__name__}: {exc}") from exc
        else:
            run = month_close_enqueue(month=month, discipline=discipline)
            self.stdout.write(f"{discipline} {month}: closing on a worker (run {run.pk})")
            self._wait(run, timeout)
        run.refresh_from_db()
        if run.state != CloseRun.State.SUCCEEDED or run.ranking_list is None:
            raise _JobFailed(f"the ranking job failed: {run.error or run.state}")
        self.stdout.write(f"{discipline} {month}: published ({_describe(run.ranking_list)})")
        for stage in REPORTED_STAGES:
            if stage in run.timings:
                self.stdout.write(f"  {stage:<8} {run.timings[stage]:9.3f} s")

    def _wait(self, run: CloseRun, timeout: float) -> None:
        give_up = time.monotonic() + timeout
        while True:
            run.refresh_from_db()
            if run.is_finished:
                return
            if time.monotonic() > give_up:
                raise _JobFailed(
                    f"no result after {timeout:.0f} s (run {run.pk} is {run.state}, "
                    f"stage {run.stage}, {run.percent}%): is a worker running?"
                )
            time.sleep(POLL_SECONDS)


class _JobFailed(Exception):
    pass


def _exit_now() -> None:
    import logging
    import os
    import sys

    from django.db import connections

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    logging.shutdown()
    connections.close_all()
    os._exit(0)


def _describe(ranking_list: RankingList | ListInfo) -> str:
    return (
        f"list {ranking_list.pk}, version {ranking_list.version}, "
        f"{ranking_list.entry_count} entries"
    )
