"""The projected list: what the open month would publish if it closed now.

In: a discipline (and the instant the projection is "as of"). Out: a
:class:`~rankings.models.RankingList` in status ``projected`` for the discipline's open
month (:func:`rankings.selectors.cycle.open_month`). Guarantees:

- **The close's own computation.** The inputs are read by the close's reader
  (:func:`rankings.selectors.window.window`), computed by :func:`rankings.fladub.compute_list`
  with the previous published list for the ranks, and written by the close's writer
  (:func:`rankings.writer.write_entries`): when the month closes with no result stored after
  the projection, the published list equals the projection entry for entry. Nothing is
  frozen: results keep arriving and the next refresh sees them.
- **Apart from published lists.** Status ``projected``, version 0, ``published_at`` empty:
  every published-list reader filters on ``published`` (the archive, the feeds, the
  current pointer, opponent strength), so a projection is never read as a published list.
- **One per discipline, replaced atomically.** The old projection (of any month) and its
  entries are deleted and the new one written in one transaction: readers see the old
  projection or the new one. Runs under the discipline's close lock
  (:func:`rankings.services.close.close_lock`), so a close and a projection never
  interleave and the month projected is still open when written.
- **Reviewed with it.** The admin's review (anomaly flags and movers) is computed right
  after the list is written, under the same lock, and stored with it
  (:func:`rankings.services.projection_review.projection_review_record`): the review page
  reads it and never computes it. A failure there fails the run; the list stays, without
  a review, and the page says so.
- **Recorded.** A :class:`~rankings.models.ProjectionRun` holds the state, the stage and a
  percentage (the dashboard shows them) and the error.

:func:`projection_enqueue` records a run and hands the refresh to a worker;
:func:`projections_refresh_all` is the nightly beat's body.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, transaction

from matches import audit, clock
from matches.disciplines import CODES
from matches.months import Month

from .. import dispatch, fladub, partitions, writer
from ..models import ProjectionRun, RankingEntry, RankingList
from ..selectors.cycle import open_month
from ..selectors.window import window
from .close import close_lock
from .close_run import CloseRefused, check_discipline
from .projection_review import projection_review_record

logger = logging.getLogger(__name__)

__all__ = [
    "NothingToProject",
    "projection_enqueue",
    "projection_refresh",
    "projections_refresh_all",
]

PROJECTION_VERSION = 0
"""The version of every projected list (published lists count from 1)."""
_STAGES = {"load": 5, "compute": 45, "write": 60, "review": 75, "done": 100}


class NothingToProject(CloseRefused):
    """The discipline has no results: there is no open month to project."""


class _Tracker:
    """Writes a projection run's record as the refresh advances (autocommit; never raises)."""

    def __init__(self, run: ProjectionRun | None, progress: Callable[[str, int], None] | None):
        self.run = run
        self.progress = progress

    def save(self, **fields: Any) -> None:
        if self.run is None:
            return
        for name, value in fields.items():
            setattr(self.run, name, value)
        try:
            ProjectionRun.objects.filter(pk=self.run.pk).update(**fields)
        except DatabaseError:  # record keeping never hides the job's own error
            logger.warning("could not update projection run %s", self.run.pk, exc_info=True)

    def stage(self, name: str) -> None:
        self.save(stage=name, percent=_STAGES[name])
        if self.progress is not None:
            self.progress(name, _STAGES[name])


def projection_refresh(
    *,
    discipline: str,
    now: dt.datetime | None = None,
    run: ProjectionRun | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> RankingList:
    """Compute the discipline's projected list from the results stored now; replace the
    previous projection with it and return it. Raises :class:`NothingToProject` (a
    :class:`CloseRefused`) for a discipline without results, ``CloseRefused`` for an
    unknown one."""
    check_discipline(discipline)
    tracker = _Tracker(run, progress)
    tracker.save(state=ProjectionRun.State.RUNNING, stage="waiting", percent=0, error="")
    try:
        with close_lock(discipline):
            as_of = now or clock.now()
            month = open_month(discipline)
            if month is None:
                raise NothingToProject(f"{discipline} has no results yet: nothing to project")
            tracker.save(month=month.first_day)
            tracker.stage("load")
            inputs = window(discipline=discipline, month=month, streams=1)
            tracker.stage("compute")
            ranking = fladub.compute_list(
                inputs.sides, month.index, inputs.published, player_order=inputs.player_order
            )
            del inputs
            tracker.stage("write")
            projected = _replace(discipline, month, ranking, as_of=as_of)
            tracker.stage("review")
            projection_review_record(projected)
    except BaseException as exc:
        tracker.save(
            state=ProjectionRun.State.FAILED,
            error=str(exc)[:10_000] if isinstance(exc, CloseRefused) else repr(exc)[:10_000],
            finished_at=clock.now(),
        )
        raise
    tracker.save(
        state=ProjectionRun.State.SUCCEEDED, ranking_list=projected, finished_at=clock.now()
    )
    tracker.stage("done")
    logger.info("projected %s %s: %d entries", discipline, month, projected.entry_count)
    return projected


def _replace(
    discipline: str, month: Month, ranking: fladub.RankingList, *, as_of: dt.datetime
) -> RankingList:
    """In one transaction: drop the old projection, write the new one (``created_at`` is
    the instant the results were read as of)."""
    with transaction.atomic(), audit.recording():
        old = RankingList.objects.filter(discipline=discipline, status=RankingList.Status.PROJECTED)
        replaced = list(old.values_list("pk", flat=True))
        RankingEntry.objects.filter(ranking_list__in=old).delete()
        old.delete()
        projected = RankingList.objects.create(
            discipline=discipline,
            month=month.first_day,
            version=PROJECTION_VERSION,
            status=RankingList.Status.PROJECTED,
            created_at=as_of,
        )
        projected.entry_count = writer.write_entries(ranking_list=projected, ranking=ranking)
        RankingList.objects.filter(pk=projected.pk).update(entry_count=projected.entry_count)
    # As the close does: without statistics of the new entries the review's movers planned
    # the projection as one row (a nested-loop anti-join of 913k by 903k entries: the
    # drop-outs ran for more than 16 minutes at full scale).
    writer.analyze_entries(projected.pk)
    partitions.partitions_drop(replaced)  # after the commit: the parent is locked briefly
    return projected


def projection_enqueue(*, discipline: str, by: Any = None) -> ProjectionRun:
    """Record a run and hand the refresh to a worker once the transaction commits. A broker
    that refuses marks the run failed and its error propagates from the commit."""
    check_discipline(discipline)
    run = ProjectionRun.objects.create(
        discipline=discipline,
        requested_by=by if getattr(by, "pk", None) else None,
        created_at=clock.now(),
    )

    def failed(exc: BaseException) -> None:
        logger.error("could not enqueue the projection of %s: %s", discipline, exc)
        ProjectionRun.objects.filter(pk=run.pk).update(
            state=ProjectionRun.State.FAILED,
            error=f"the task queue is unreachable: {exc}",
            finished_at=clock.now(),
        )

    dispatch.projection_send(discipline=discipline, run_id=run.pk, on_failure=failed)
    return run


def projections_refresh_all(*, now: dt.datetime | None = None) -> list[RankingList]:
    """Refresh every discipline that has results, one after the other (the nightly beat)."""
    refreshed = []
    for discipline in CODES:
        try:
            refreshed.append(projection_refresh(discipline=discipline, now=now))
        except NothingToProject:
            continue
    return refreshed
