"""Write services of the rankings app: the close of a month and the publication of its list.

:func:`month_close` is the ranking job (SPEC.md sections 3 and 4). In: a month M and a
discipline. Out: the published :class:`~rankings.models.RankingList` L(M). Guarantees:

- **Refusals** (:class:`CloseRefused`, nothing changed): before M's deadline (the first
  instant of M+1 in ``FIDO_TIMEZONE``); while M-1 has no published list, unless this is the
  discipline's very first close; an unknown discipline.
- **Exclusive and idempotent.** The job holds a PostgreSQL session advisory lock per
  discipline from start to end, so a second close (a retry, a duplicate delivery, two
  admins) waits for the first and then finds L(M) published and returns it. A partial
  unique constraint allows one published list per (discipline, month); the publication
  is a conditional update in one transaction with the pointer flip. Nothing is published
  twice and never a different list.
- **Atomic publication.** Entries are written into a new list in status ``computing``
  (invisible to readers), then one transaction marks it ``published`` and moves the
  discipline's :class:`~rankings.models.CurrentList` pointer to it.
- **Crash-safe.** A run that dies (exception, killed worker) leaves no published list; its
  ``computing`` attempt is marked ``failed`` and its entries deleted by the next run, which
  computes the list again from the same frozen data: the same list.
- **Deterministic.** The month is frozen first (:func:`matches.services.month_freeze`), so
  the window's results are fixed; the computation is exact (:mod:`rankings.fladub`).
- **Recorded.** A :class:`~rankings.models.CloseRun` holds the state, the stage, a
  percentage, each stage's seconds (freeze, load, compute, write, publish) and the error.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Max, Min

from matches import clock, locks
from matches.models import ClosedMonth, Discipline, SideMember
from matches.months import Month, deadline
from matches.services import month_freeze

from . import fladub, loader, writer
from .models import CloseRun, CurrentList, RankingEntry, RankingList

logger = logging.getLogger(__name__)

Progress = Callable[[str, int], None]

STAGES = ("freeze", "load", "compute", "write", "publish")
# Where each stage starts and ends on the run's progress bar (percent).
_STAGE_SPAN = {
    "freeze": (0, 3),
    "load": (3, 40),
    "compute": (40, 70),
    "write": (70, 95),
    "publish": (95, 100),
}


class CloseRefused(Exception):
    """The close is not allowed (yet): the message says why. Nothing was changed."""


class PublishedListImmutable(Exception):
    """A published list or its entries cannot be changed."""


# --- the close --------------------------------------------------------------------------------


def month_close(
    *,
    month: Month | str,
    discipline: str,
    by: Any = None,
    now: dt.datetime | None = None,
    progress: Progress | None = None,
    run: CloseRun | None = None,
    streams: int | None = None,
) -> RankingList:
    """Close ``month`` of ``discipline`` and publish its list; return the published list.

    ``now`` is the instant the rules are checked against (the deadline; the freeze's time),
    default the server clock. ``progress(stage, percent)`` is called as the job advances.
    ``run`` is the run record to update (created when not given). ``streams`` is the
    number of parallel ``COPY`` readers on PostgreSQL (``FIDO_CLOSE_LOAD_STREAMS``).
    """
    month = _as_month(month)
    _check_discipline(discipline)
    now = now or clock.now()
    if run is None:
        run = close_run_create(month=month, discipline=discipline, by=by)
    tracker = _Tracker(run, progress)
    tracker.start()
    ranking_list: RankingList | None = None
    try:
        with close_lock(discipline):
            already = published_list(discipline=discipline, month=month)
            if already is not None:
                tracker.succeed(already)
                return already
            close_check(month=month, discipline=discipline, now=now)

            tracker.stage("freeze")
            with transaction.atomic():
                month_freeze(discipline=discipline, month=month, by=by, now=now)
            _discard_attempts(discipline=discipline, month=month)

            tracker.stage("load")
            window = loader.load_window(
                discipline=discipline, month=month, streams=_streams(streams)
            )

            tracker.stage("compute")
            ranking = fladub.compute_list(
                window.sides, month.index, window.published, player_order=window.player_order
            )
            del window
            tracker.stage_done()
            _test_pause("compute")

            tracker.stage("write")
            with transaction.atomic():
                ranking_list = RankingList.objects.create(
                    discipline=discipline,
                    month=month.first_day,
                    version=_next_version(discipline, month),
                    status=RankingList.Status.COMPUTING,
                    created_at=clock.now(),
                )
                count = writer.write_entries(ranking_list=ranking_list, ranking=ranking)
                RankingList.objects.filter(pk=ranking_list.pk).update(entry_count=count)
            del ranking
            tracker.stage_done()
            _test_pause("write")

            tracker.stage("publish")
            published = _publish(ranking_list.pk)
            tracker.succeed(published)
            return published
    except BaseException as exc:
        tracker.fail(exc)
        if ranking_list is not None:
            _mark_failed(ranking_list.pk)
        raise


def close_check(*, month: Month, discipline: str, now: dt.datetime) -> None:
    """Raise :class:`CloseRefused` unless ``month`` may be closed at ``now``."""
    _check_discipline(discipline)
    tz = clock.federation_tz()
    due = deadline(month, tz)
    if now < due:
        raise CloseRefused(
            f"{month} ({discipline}) cannot be closed before its deadline, "
            f"{due:%Y-%m-%d %H:%M %Z} ({tz.key})"
        )
    previous = month.prev()
    if (
        _has_history(discipline, besides=month)
        and not RankingList.objects.filter(
            discipline=discipline, month=previous.first_day, status=RankingList.Status.PUBLISHED
        ).exists()
    ):
        raise CloseRefused(
            f"{month} ({discipline}) cannot be closed while {previous} is not closed: "
            f"close {previous} first"
        )


def close_run_create(*, month: Month | str, discipline: str, by: Any = None) -> CloseRun:
    month = _as_month(month)
    _check_discipline(discipline)
    return CloseRun.objects.create(
        month=month.first_day,
        discipline=discipline,
        requested_by=by if getattr(by, "pk", None) else None,
        created_at=clock.now(),
        task_id=str(uuid.uuid4()),
    )


def close_enqueue(*, month: Month | str, discipline: str, by: Any = None) -> CloseRun:
    """Record a run and hand the close to a worker once the current transaction commits."""
    from .tasks import close_month

    run = close_run_create(month=month, discipline=discipline, by=by)
    args = (str(_as_month(month)), discipline, run.pk)
    transaction.on_commit(lambda: close_month.apply_async(args=args, task_id=run.task_id))
    return run


def published_list(*, discipline: str, month: Month) -> RankingList | None:
    return RankingList.objects.filter(
        discipline=discipline, month=month.first_day, status=RankingList.Status.PUBLISHED
    ).first()


# --- the schedule -------------------------------------------------------------------------------


def next_month_to_close(discipline: str) -> Month | None:
    """The discipline's first month without a published list, or None if it has no results.

    After the last published list, the month after it; before any, the earliest month that
    was frozen or that results count in.
    """
    last = RankingList.objects.filter(
        discipline=discipline, status=RankingList.Status.PUBLISHED
    ).aggregate(m=Max("month"))["m"]
    if last is not None:
        return Month.of(last).next()
    frozen = ClosedMonth.objects.filter(discipline=discipline).aggregate(m=Min("month"))["m"]
    if frozen is not None:
        return Month.of(frozen)
    earliest = SideMember.objects.filter(discipline=discipline).aggregate(m=Min("counting_month"))[
        "m"
    ]
    return Month.of(earliest) if earliest is not None else None


def months_due(*, now: dt.datetime, delay: dt.timedelta | None = None) -> list[tuple[str, Month]]:
    """(discipline, month) whose deadline passed more than ``delay`` ago and that are not
    closed: one per discipline, the oldest (the next one becomes due when it is closed).

    Compares aware instants (``deadline()`` is the first instant of the next month in
    ``FIDO_TIMEZONE``), so it is right across daylight-saving changes.
    """
    if delay is None:
        delay = dt.timedelta(minutes=getattr(settings, "FIDO_CLOSE_DELAY", 5))
    tz = clock.federation_tz()
    due: list[tuple[str, Month]] = []
    for discipline in Discipline.values:
        month = next_month_to_close(discipline)
        if month is not None and deadline(month, tz) + delay <= now:
            due.append((discipline, month))
    return due


def close_due_months(*, now: dt.datetime | None = None) -> list[CloseRun]:
    """Enqueue the close of every due month (the beat task's body); skip those in progress."""
    now = now or clock.now()
    stale_after = dt.timedelta(seconds=2 * getattr(settings, "FIDO_CLOSE_TIME_LIMIT", 1800))
    runs: list[CloseRun] = []
    for discipline, month in months_due(now=now):
        active = CloseRun.objects.filter(
            discipline=discipline,
            month=month.first_day,
            state__in=[CloseRun.State.QUEUED, CloseRun.State.RUNNING],
            created_at__gte=clock.now() - stale_after,
        ).exists()
        if active:
            continue
        runs.append(close_enqueue(month=month, discipline=discipline))
    return runs


def close_past_months(*, now: dt.datetime) -> list[RankingList]:
    """Close, inline and oldest first, every month of every discipline with results whose
    deadline has passed at ``now`` and that is not closed yet (demo data, catching up).

    Stops for a discipline once a month's window would hold none of its results.
    """
    tz = clock.federation_tz()
    published: list[RankingList] = []
    for discipline in Discipline.values:
        latest = SideMember.objects.filter(discipline=discipline).aggregate(
            m=Max("counting_month")
        )["m"]
        if latest is None:
            continue
        last_useful = Month.of(latest) + (fladub.WINDOW_MONTHS - 1)
        month = next_month_to_close(discipline)
        while month is not None and month <= last_useful and deadline(month, tz) <= now:
            published.append(month_close(month=month, discipline=discipline, now=now))
            month = month.next()
    return published


# --- immutability -----------------------------------------------------------------------------


def ensure_mutable(ranking_list: RankingList) -> None:
    """Refuse any change to a published list (the database refuses it too)."""
    status = RankingList.objects.filter(pk=ranking_list.pk).values_list("status", flat=True).first()
    if status == RankingList.Status.PUBLISHED or ranking_list.is_published:
        raise PublishedListImmutable(f"{ranking_list} is published: it never changes")


# --- internals ----------------------------------------------------------------------------------


@contextlib.contextmanager
def close_lock(discipline: str) -> Iterator[None]:
    """The discipline's close lock (PostgreSQL session advisory lock), held for the whole job.

    A killed worker's connection drops and the server releases the lock with it; there is
    no expiry to tune. Elsewhere (SQLite) the unique constraint and the conditional
    publication keep a concurrent close from publishing twice.
    """
    if connection.vendor != "postgresql":
        yield
        return
    key = [locks.LOCK_NAMESPACE, locks.lock_key(f"close:{discipline}")]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", key)
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)
        except DatabaseError:  # the connection is gone, and the lock with it
            logger.warning("could not release the close lock of %s", discipline, exc_info=True)


def _publish(list_id: int) -> RankingList:
    """Mark the list published and flip the pointer, in one transaction."""
    try:
        with transaction.atomic():
            ranking_list = RankingList.objects.select_for_update().get(pk=list_id)
            discipline, month_day = ranking_list.discipline, ranking_list.month
            pointer = CurrentList.objects.select_for_update().filter(discipline=discipline).first()
            existing = RankingList.objects.filter(
                discipline=discipline, month=month_day, status=RankingList.Status.PUBLISHED
            ).first()
            if existing is not None:
                raise _AlreadyPublished(existing)
            if ranking_list.status != RankingList.Status.COMPUTING:
                raise RuntimeError(
                    f"{ranking_list} was discarded by another close while it was written"
                )
            at = clock.now()
            RankingList.objects.filter(pk=list_id, status=RankingList.Status.COMPUTING).update(
                status=RankingList.Status.PUBLISHED, published_at=at
            )
            if pointer is None:
                CurrentList.objects.create(
                    discipline=discipline, ranking_list_id=list_id, updated_at=at
                )
            elif pointer.ranking_list.month <= month_day:
                pointer.ranking_list_id = list_id
                pointer.updated_at = at
                pointer.save(update_fields=["ranking_list", "updated_at"])
    except _AlreadyPublished as already:
        _mark_failed(list_id)
        return already.ranking_list
    except IntegrityError:
        # Another close published this month between our check and our update (only
        # possible without the advisory lock, i.e. on SQLite): return its list.
        mine = RankingList.objects.get(pk=list_id)
        found = published_list(discipline=mine.discipline, month=Month.of(mine.month))
        if found is None:
            raise
        _mark_failed(list_id)
        return found
    return RankingList.objects.get(pk=list_id)


class _AlreadyPublished(Exception):
    def __init__(self, ranking_list: RankingList) -> None:
        super().__init__(str(ranking_list))
        self.ranking_list = ranking_list


def _discard_attempts(*, discipline: str, month: Month) -> None:
    """Earlier attempts at this list (a crashed or failed run): no entries, status failed."""
    stale = RankingList.objects.filter(
        discipline=discipline,
        month=month.first_day,
        status__in=[RankingList.Status.COMPUTING, RankingList.Status.FAILED],
    )
    with transaction.atomic():
        RankingEntry.objects.filter(ranking_list__in=stale).delete()
        stale.update(status=RankingList.Status.FAILED, entry_count=0)


def _mark_failed(list_id: int) -> None:
    with contextlib.suppress(DatabaseError):
        RankingList.objects.filter(pk=list_id, status=RankingList.Status.COMPUTING).update(
            status=RankingList.Status.FAILED
        )


def _next_version(discipline: str, month: Month) -> int:
    latest = RankingList.objects.filter(discipline=discipline, month=month.first_day).aggregate(
        v=Max("version")
    )["v"]
    return (latest or 0) + 1


def _has_history(discipline: str, *, besides: Month) -> bool:
    """Whether the discipline was ever closed, apart from ``besides`` (a retried first close)."""
    if (
        RankingList.objects.filter(discipline=discipline, status=RankingList.Status.PUBLISHED)
        .exclude(month=besides.first_day)
        .exists()
    ):
        return True
    return (
        ClosedMonth.objects.filter(discipline=discipline).exclude(month=besides.first_day).exists()
    )


def _as_month(month: Month | str) -> Month:
    return month if isinstance(month, Month) else Month.parse(month)


def _check_discipline(discipline: str) -> None:
    if discipline not in Discipline.values:
        raise CloseRefused(
            f"unknown discipline {discipline!r} (one of {', '.join(Discipline.values)})"
        )


def _streams(streams: int | None) -> int:
    if streams is not None:
        return max(1, streams)
    # Parallel readers need a transaction of their own to share its snapshot.
    if connection.in_atomic_block:
        return 1
    return max(1, int(getattr(settings, "FIDO_CLOSE_LOAD_STREAMS", 2)))


def _test_pause(stage: str) -> None:
    """Test hook: sleep after ``stage`` when FIDO_TEST_CLOSE_PAUSE_SECONDS is set (a worker
    killed mid-job in the tests). Read only when set; a no-op in production."""
    seconds = os.environ.get("FIDO_TEST_CLOSE_PAUSE_SECONDS")
    if not seconds:
        return
    if os.environ.get("FIDO_TEST_CLOSE_PAUSE_STAGE", "write") != stage:
        return
    logger.warning("test hook: pausing %s s after the %s stage", seconds, stage)
    time.sleep(float(seconds))


class _Tracker:
    """Writes the run record as the job advances (autocommit: readers see it at once)."""

    def __init__(self, run: CloseRun, progress: Progress | None) -> None:
        self.run = run
        self.progress = progress
        self.current: str | None = None
        self.started = 0.0
        self.timings: dict[str, float] = {}

    def _save(self, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self.run, name, value)
        try:
            CloseRun.objects.filter(pk=self.run.pk).update(**fields)
        except DatabaseError:  # never let the record keeping hide the job's own error
            logger.warning("could not update close run %s", self.run.pk, exc_info=True)

    def start(self) -> None:
        self._save(
            state=CloseRun.State.RUNNING,
            stage=CloseRun.Stage.WAITING,
            percent=0,
            error="",
            timings={},
            started_at=clock.now(),
            finished_at=None,
            attempts=self.run.attempts + 1,
        )

    def _finish_stage(self) -> None:
        if self.current is not None:
            self.timings[self.current] = round(time.perf_counter() - self.started, 3)
            self.current = None

    def stage_done(self) -> None:
        """Record the current stage's time now (before a pause or a slow next step)."""
        self._finish_stage()
        self._save(timings=dict(self.timings))

    def stage(self, name: str) -> None:
        self._finish_stage()
        self.current = name
        self.started = time.perf_counter()
        percent = _STAGE_SPAN[name][0]
        self._save(stage=name, percent=percent, timings=dict(self.timings))
        if self.progress is not None:
            self.progress(name, percent)

    def succeed(self, ranking_list: RankingList) -> None:
        self._finish_stage()
        self._save(
            state=CloseRun.State.SUCCEEDED,
            stage=CloseRun.Stage.DONE,
            percent=100,
            timings=dict(self.timings),
            ranking_list=ranking_list,
            finished_at=clock.now(),
        )
        if self.progress is not None:
            self.progress("done", 100)

    def fail(self, exc: BaseException) -> None:
        self._finish_stage()
        message = str(exc) if isinstance(exc, CloseRefused) else f"{type(exc).__name__}: {exc}"
        self._save(
            state=CloseRun.State.FAILED,
            timings=dict(self.timings),
            error=message[:10_000],
            finished_at=clock.now(),
        )
