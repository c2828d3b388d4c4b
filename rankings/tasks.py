"""Celery tasks of the rankings app: thin wrappers around :mod:`rankings.services`.

The services never import this module: they enqueue by task name through
:mod:`rankings.dispatch`, which defines the names these tasks register under.

``rankings.month_close`` runs one close, or one erratum (the run names it); after an
erratum of a "recompute later months" request it sends the next month's run. It is safe
to run twice (the service is idempotent and exclusive), so it acknowledges late: a worker
that dies mid-job leaves the message unacknowledged and the broker hands it to another
worker (Redis: after ``CELERY_VISIBILITY_TIMEOUT``), whose run cleans up the dead one's
attempt. Transient database or broker errors retry with exponential backoff; a refusal is final.

``rankings.projection_refresh`` refreshes one discipline's projected list (the dashboard's
button), ``rankings.projections_refresh`` every discipline's (the nightly beat); both are
safe to repeat (each refresh replaces the last).

A worker killed mid-close stops the run's heartbeat; ``rankings.close_runs_recover`` (beat,
every ``FIDO_CLOSE_RECOVER_EVERY`` seconds) re-dispatches such a run under a new task id
within ``FIDO_CLOSE_STALE_AFTER`` seconds, and re-sends runs the broker never took (the
outbox, :mod:`rankings.services.close_recover`). The dead worker's own message, redelivered
later, finds its run taken over or finished and does nothing.

``rankings.due_months_close`` is the beat task (``fido.celery.BEAT_SCHEDULE``): it enqueues the
close of every month whose deadline passed more than ``FIDO_CLOSE_DELAY`` minutes ago.

``rankings.close_shard`` computes one shard of a close split across workers
(:func:`rankings.services.close.month_close` with ``workers``): read-only, redelivered when
its worker dies, the same answer every time.

``rankings.member_changes_prune`` (beat, nightly) deletes the logged changes of results that
no result pack a close may still read needs, and the logged renames of players every pack of
points sees; when a close (or a pack writer) holds a discipline's lock it leaves that log
and the next night prunes.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from fido.celery import app as _app  # noqa: F401  (the tasks below bind to this app)
from matches.disciplines import CODES
from matches.months import Month

from .dispatch import (
    CLOSE_RUNS_RECOVER,
    CLOSE_SHARD,
    DUE_MONTHS_CLOSE,
    MEMBER_CHANGES_PRUNE,
    MONTH_CLOSE,
    PLAYER_PACKS_WRITE,
    PROJECTION_REFRESH,
    PROJECTIONS_REFRESH,
    player_packs_send,
)
from .models import CloseRun, ProjectionRun
from .selectors.shard_totals import shard_totals, totals_to_wire
from .services.close import CloseRefused
from .services.close import month_close as month_close_service
from .services.close_recover import close_run_superseded, close_runs_recover
from .services.close_run import close_run_claim
from .services.errata import erratum_continue
from .services.packs import member_changes_prune as member_changes_prune_service
from .services.player_packs import player_changes_prune
from .services.player_packs import player_packs_write as player_packs_write_service
from .services.projection import projection_refresh as projection_refresh_service
from .services.projection import projections_refresh_all
from .services.schedule import due_months_enqueue

logger = logging.getLogger(__name__)

CLOSE_SOFT_TIME_LIMIT = int(getattr(settings, "FIDO_CLOSE_TIME_LIMIT", 1800))
CLOSE_TIME_LIMIT = CLOSE_SOFT_TIME_LIMIT + 60


def _transient() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OperationalError, InterfaceError, ConnectionError]
    try:
        import psycopg

        errors.append(psycopg.OperationalError)
    except ImportError:  # pragma: no cover - SQLite-only installs
        pass
    return tuple(errors)


# What the close and its shards share: acknowledged when done (a worker lost mid-task
# hands the message back), retried with backoff on a transient database error, and the
# close's time limits.
_CLOSE_DELIVERY: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": _transient(),
    "max_retries": 5,
    "soft_time_limit": CLOSE_SOFT_TIME_LIMIT,
    "time_limit": CLOSE_TIME_LIMIT,
}


@shared_task(
    name=MONTH_CLOSE,
    bind=True,
    retry_backoff=5,
    retry_backoff_max=300,
    retry_jitter=True,
    **_CLOSE_DELIVERY,
)
def month_close(self: Any, month: str, discipline: str, run_id: int) -> dict[str, Any]:
    """Close ``month`` (``YYYY-MM``) of ``discipline``, recording progress in run ``run_id``."""
    existing = CloseRun.objects.filter(pk=run_id).first()
    if existing is not None and close_run_superseded(existing, self.request.id):
        logger.warning("close run %s: task %s superseded, nothing to do", run_id, self.request.id)
        return {"state": "superseded", "run": run_id}
    run = close_run_claim(
        run_id=run_id, month=month, discipline=discipline, task_id=self.request.id
    )
    try:
        ranking_list = month_close_service(
            month=Month.parse(month),
            discipline=discipline,
            by=run.requested_by,
            run=run,
            erratum=run.erratum,
        )
        if run.erratum is not None:
            erratum_continue(run.erratum)
    except CloseRefused as exc:
        logger.warning("close of %s %s refused: %s", discipline, month, exc)
        return {"state": "refused", "error": str(exc), "run": run.pk}
    except SoftTimeLimitExceeded:
        logger.error("close of %s %s exceeded its time limit", discipline, month)
        raise
    player_packs_send(discipline=discipline)
    return {
        "state": "published",
        "run": run.pk,
        "ranking_list": ranking_list.pk,
        "version": ranking_list.version,
        "entries": ranking_list.entry_count,
    }


@shared_task(name=CLOSE_SHARD, retry_backoff=2, retry_backoff_max=60, **_CLOSE_DELIVERY)
def close_shard(month: str, discipline: str, shard: int, shards: int) -> dict[str, Any]:
    """One shard of a close split across workers (``close_month --workers N``): the totals
    of the players ``player % shards == shard``, JSON-safe. Read-only, so a redelivery
    (a worker killed mid-shard) computes the same answer again."""
    totals = shard_totals(
        discipline=discipline,
        month=Month.parse(month),
        shard=shard,
        shards=shards,
        streams=int(getattr(settings, "FIDO_CLOSE_LOAD_STREAMS", 2)),
    )
    logger.info(
        "shard %d/%d of %s %s: %d players", shard, shards, discipline, month, len(totals.player)
    )
    return totals_to_wire(totals)


@shared_task(name=DUE_MONTHS_CLOSE, acks_late=True, ignore_result=True)
def due_months_close() -> list[int]:
    """Enqueue the close of every due month (one per discipline per tick)."""
    return [run.pk for run in due_months_enqueue()]


@shared_task(
    name=PROJECTION_REFRESH,
    acks_late=True,
    autoretry_for=_transient(),
    retry_backoff=5,
    max_retries=3,
    soft_time_limit=CLOSE_SOFT_TIME_LIMIT,
    time_limit=CLOSE_TIME_LIMIT,
)
def projection_refresh(discipline: str, run_id: int | None = None) -> dict[str, Any]:
    """Refresh ``discipline``'s projected list, recording progress in run ``run_id``."""
    run = ProjectionRun.objects.filter(pk=run_id).first() if run_id is not None else None
    try:
        projected = projection_refresh_service(discipline=discipline, run=run)
    except CloseRefused as exc:
        logger.warning("projection of %s refused: %s", discipline, exc)
        return {"state": "refused", "error": str(exc)}
    return {"state": "projected", "ranking_list": projected.pk, "entries": projected.entry_count}


@shared_task(name=PROJECTIONS_REFRESH, acks_late=True, ignore_result=True)
def projections_refresh() -> list[int]:
    """The nightly refresh of every discipline's projected list."""
    return [projected.pk for projected in projections_refresh_all()]


@shared_task(name=CLOSE_RUNS_RECOVER, acks_late=True, ignore_result=True)
def close_runs_recover_task() -> list[int]:
    """Re-send the close runs in the outbox and those whose worker was lost."""
    return [run.pk for run in close_runs_recover()]


@shared_task(name=MEMBER_CHANGES_PRUNE, acks_late=True, ignore_result=True)
def member_changes_prune() -> int | None:
    """Prune the change log of results (None: a close was under way; nothing done)."""
    pruned = member_changes_prune_service()
    logger.info("pruned %s logged change(s) of results", pruned)
    renames = player_changes_prune()
    logger.info("pruned %s logged rename(s) of players", renames)
    return pruned


@shared_task(
    name=PLAYER_PACKS_WRITE,
    acks_late=True,
    ignore_result=True,
    autoretry_for=_transient(),
    retry_backoff=5,
    max_retries=3,
    soft_time_limit=CLOSE_SOFT_TIME_LIMIT,
    time_limit=CLOSE_TIME_LIMIT,
)
def player_packs_write(discipline: str | None = None) -> int:
    """Pack the busiest players' points of ``discipline``'s current list (None: of every
    discipline; the nightly beat), after a close published it."""
    packed = sum(
        player_packs_write_service(code) for code in ([discipline] if discipline else CODES)
    )
    logger.info("packed the points of %d player(s)", packed)
    return packed
