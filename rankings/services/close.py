"""The close of a month and the publication of its list (SPEC.md sections 3 and 4).

:func:`month_close` is the ranking job. In: a month M and a discipline. Out: the published
:class:`~rankings.models.RankingList` L(M). Guarantees:

- **Refusals** (:class:`CloseRefused`, nothing changed): before M's deadline (the first
  instant of M+1 in ``FIDO_TIMEZONE``); while M-1 has no published list, unless this is the
  discipline's very first close; an unknown discipline (:func:`month_close_check`).
- **Exclusive and idempotent.** The job holds a PostgreSQL session advisory lock per
  discipline from start to end (:func:`close_lock`), so a second close (a retry, a
  duplicate delivery, two admins) waits for the first and then finds L(M) published and
  returns it. A partial unique constraint allows one published list per (discipline,
  month); the publication is a conditional update in one transaction with the pointer
  flip. Nothing is published twice and never a different list.
- **Atomic publication.** Entries are written into a new list in status ``computing``
  (invisible to readers), then one transaction marks it ``published`` and moves the
  discipline's :class:`~rankings.models.CurrentList` pointer to it (:func:`list_publish`),
  and stores the list's pack (its players and cents, the arrays just written as entries:
  :mod:`rankings.list_packs`), which later closes read instead of the entries.
- **Crash-safe.** A run that dies (exception, killed worker) leaves no published list; its
  ``computing`` attempt is marked ``failed`` and its entries deleted by the next run, which
  computes the list again from the same frozen data: the same list.
- **Deterministic.** The month is frozen first (:func:`matches.services.month_freeze`), so
  the window's results are fixed; the computation is exact (:mod:`rankings.fladub`).
- **Recorded.** A :class:`~rankings.models.CloseRun` holds the state, the stage, a
  percentage, each stage's seconds (freeze, load, compute, write, publish) and the error
  (:mod:`rankings.services.close_run`).
- **Errata.** With ``erratum`` (an :class:`~rankings.models.Erratum`, recorded by
  :mod:`rankings.services.errata`), the same job publishes the next version of a month
  that already has a list: under the same lock, with the same run record, writer, seal and
  publication, it reads the erratum's window (the results as they stand after the events up
  to the moment it starts, docs/fladub.md "Errata") instead of freezing the month, and the
  publication marks the version it replaces ``superseded`` in the same transaction. A
  second delivery of the same erratum finds its list and returns it.

:func:`month_close_enqueue` records a run and hands the close to a worker
(:mod:`rankings.dispatch`) once the transaction commits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Max

from matches import audit, clock, locks
from matches import sql as matches_sql
from matches.disciplines import CODES
from matches.models import ClosedMonth
from matches.months import Month, deadline
from matches.services.freeze import month_freeze

from .. import (
    allocator,
    dispatch,
    fladub,
    http_cache,
    list_packs,
    loader,
    partitions,
    result_packs,
    seal,
    sql,
    writer,
)
from ..models import CloseRun, CurrentList, Erratum, RankingEntry, RankingList
from ..selectors.lists import published_list
from ..selectors.shard_totals import totals_from_wire
from ..selectors.window import PackedWindow, packed_window, window
from ..sql import ErratumBasis
from .close_run import (
    CloseRefused,
    Progress,
    RunTracker,
    as_month,
    check_discipline,
    close_run_create,
    close_run_dispatched,
    close_run_undispatched,
)

logger = logging.getLogger(__name__)

__all__ = [
    "CloseRefused",
    "PublishedListImmutable",
    "ShardsUnfinished",
    "close_lock",
    "list_mutable_check",
    "list_publish",
    "month_close",
    "month_close_check",
    "month_close_enqueue",
]


class ShardsUnfinished(Exception):
    """A close split across workers did not get all its shards back in time."""


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
    workers: int = 1,
    shard_timeout: float | None = None,
    erratum: Erratum | None = None,
) -> RankingList:
    """Close ``month`` of ``discipline`` and publish its list; return the published list.

    ``now`` is the instant the rules are checked against (the deadline; the freeze's time),
    default the server clock. ``progress(stage, percent)`` is called as the job advances.
    ``run`` is the run record to update (created when not given). ``streams`` is the
    number of parallel ``COPY`` readers on PostgreSQL (``FIDO_CLOSE_LOAD_STREAMS``).
    ``workers`` > 1 splits the computation into that many shards by player, each a Celery
    task on whichever worker is free (:func:`_compute_sharded`); this process still does
    the one write and the one atomic publication; it fails (and publishes nothing) when
    the shards are not all done within ``shard_timeout`` seconds (default
    ``FIDO_CLOSE_TIME_LIMIT``). Not from inside a Celery task. ``erratum``: publish that
    erratum's version of the month instead (in one process, ``workers`` ignored).

    Long on purpose: the close's stages in the order they run, under one lock and one run
    record, each a call of its own; a fifth of the length is this contract.
    """
    month = as_month(month)
    check_discipline(discipline)
    now = now or clock.now()
    tracker = RunTracker(
        run or close_run_create(month=month, discipline=discipline, by=by), progress
    )
    tracker.start()
    try:
        with close_lock(discipline):
            already = _published(discipline, month) if erratum is None else _done(erratum)
            if already is not None:
                tracker.succeed(already)
                return already
            basis = None
            if erratum is None:
                month_close_check(month=month, discipline=discipline, now=now)
                _freeze(month, discipline, by=by, now=now, tracker=tracker)
            else:
                basis = _erratum_start(erratum, month, discipline, tracker=tracker)
            packing = None
            fields: list[Future[Any]] = []  # the seal's players, read from the compute on
            if basis is not None or workers <= 1:
                ranking, inputs, packing = _compute(
                    month,
                    discipline,
                    streams=_streams(streams),
                    tracker=tracker,
                    basis=basis,
                    at_compute=functools.partial(_seal_fields_early, fields),
                )
            else:
                _seal_fields_early(fields)
                ranking, inputs = _compute_sharded(
                    month, discipline, shards=workers, tracker=tracker, timeout=shard_timeout
                )
            try:
                published = _write_and_publish(
                    month,
                    discipline,
                    ranking,
                    inputs,
                    tracker=tracker,
                    erratum=erratum,
                    basis=basis,
                    fields=fields,
                )
            finally:
                if packing is not None:
                    packing()  # the result packs, written meanwhile
            tracker.succeed(published)
            return published
    except BaseException as exc:
        tracker.fail(exc)
        raise


def _write_and_publish(
    month: Month,
    discipline: str,
    ranking: fladub.RankingList,
    inputs: seal.InputsDigest,
    *,
    tracker: RunTracker,
    erratum: Erratum | None,
    basis: ErratumBasis | None,
    fields: list[Future[Any]],
) -> RankingList:
    """Stages 4 and 5: the entries of a new attempt, its seal, the publication."""
    attempt, content = _write(
        month, discipline, ranking, tracker=tracker, erratum=erratum, basis=basis, fields=fields
    )
    listed = ranking.to_published()  # its pack: the arrays just written as entries
    del ranking
    try:
        tracker.stage("publish")
        seal.list_seal(attempt.pk, inputs, content=content)
        return list_publish(attempt.pk, listed=listed)
    except BaseException:
        _mark_failed(attempt.pk)
        raise


def _freeze(
    month: Month, discipline: str, *, by: Any, now: dt.datetime, tracker: RunTracker
) -> None:
    """Stage 1: no result enters the month any more; earlier attempts are discarded."""
    tracker.stage("freeze")
    with transaction.atomic():
        month_freeze(discipline=discipline, month=month, by=by, now=now)
    _discard_attempts(discipline=discipline, month=month)


def _erratum_start(
    erratum: Erratum, month: Month, discipline: str, *, tracker: RunTracker
) -> ErratumBasis:
    """Stage 1 of an erratum: the month must have a list; earlier attempts are discarded;
    the basis is read under the discipline's exclusive lock (no submission, correction or
    void of the discipline under way: every one up to the basis is committed)."""
    if (erratum.discipline, erratum.month) != (discipline, month.first_day):
        raise CloseRefused(f"erratum {erratum.pk} is not one of {month} ({discipline})")
    if _published(discipline, month) is None:
        raise CloseRefused(f"{month} ({discipline}) has no published list to correct")
    tracker.stage("freeze")
    _discard_attempts(discipline=discipline, month=month)
    with transaction.atomic():
        locks.discipline_exclusive(discipline)
        as_of_match, as_of_event = matches_sql.execute(sql.erratum_basis())[0]
    return ErratumBasis(as_of_match=int(as_of_match), as_of_event=int(as_of_event))


def _done(erratum: Erratum) -> RankingList | None:
    """The list an erratum already published (a second delivery of its task)."""
    return RankingList.objects.filter(
        erratum=erratum,
        status__in=[RankingList.Status.PUBLISHED, RankingList.Status.SUPERSEDED],
    ).first()


def _compute(
    month: Month,
    discipline: str,
    *,
    streams: int,
    tracker: RunTracker,
    basis: ErratumBasis | None = None,
    at_compute: Callable[[], Any] = lambda: None,
) -> tuple[fladub.RankingList, seal.InputsDigest, Callable[[], int] | None]:
    """Stages 2 and 3: read the window, compute the list and hash the window (for the
    seal). The computation on this thread overlaps two waits on the other core: the
    player order (sorted by PostgreSQL, read in the window's snapshot) is only needed for
    the ranks at the end, and the hash runs in a thread (``hashlib`` releases the GIL).
    The computation's big temporaries come from a reused heap (:mod:`rankings.allocator`).
    A close (not an erratum) reads the points of earlier months from the result packs
    and packs the months it counts first, in a thread (:mod:`rankings.result_packs`): the
    function returned last waits for that write (None when there is nothing to pack).
    ``at_compute()`` is called when the window is read and the computation begins."""
    tracker.stage("load")
    packed = None
    if basis is None and _result_packs_used():
        packed = packed_window(
            discipline=discipline, month=month, streams=streams, order_later=True
        )
    if packed is not None:
        at_compute()
        ranking, digest, packs = _compute_packed(packed, month, tracker=tracker)
        return ranking, digest, _pack_later(packed, packs)
    inputs = window(
        discipline=discipline, month=month, streams=streams, basis=basis, order_later=True
    )
    tracker.stage("compute")
    at_compute()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fido-seal") as pool:
        hashing = pool.submit(seal.inputs_digest, inputs.sides)
        with allocator.big_blocks_reused():
            ranking = fladub.compute_list(
                inputs.sides,
                month.index,
                inputs.published,
                player_order=lambda: inputs.player_order,
            )
        digest = hashing.result()
    tracker.stage_done()
    return ranking, digest, None


def _compute_packed(
    packed: PackedWindow, month: Month, *, tracker: RunTracker
) -> tuple[fladub.RankingList, seal.InputsDigest, list[result_packs.Encoded]]:
    """Stage 3 on the window from result packs: score the results no pack held (the
    rows read), then the list, with the seal's hash in a thread as in :func:`_compute`;
    and the packs of the months the window found uncovered, encoded."""
    tracker.stage("compute")
    columns = packed.columns
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fido-seal") as pool:
        with allocator.big_blocks_reused():
            # Scoring runs many small NumPy steps, each taking the GIL: it goes first,
            # alone (0.12 s for a month of results, 0.5 s beside the hash); the sums and
            # the sorts that follow hold the GIL little, and share the cores with the hash.
            columns.score_missing(packed.published)
            hashing = pool.submit(seal.inputs_digest, columns, order=columns.canonical_order)
            ranking = fladub.list_of_results(
                columns.results(),
                month.index,
                packed.published,
                player_order=lambda: packed.player_order,
            )
        # After the sums, and outside the reused heap, which is trimmed on leaving it: the
        # sums' temporaries are given back before the packs' bytes are made (a first
        # close packs 12 months, 270 MB at a million players; held with the sums' heap,
        # they made its peak).
        packs = result_packs.packs_encode(packed.plan, columns)
        digest = hashing.result()
    tracker.stage_done()
    return ranking, digest, packs


def _result_packs_used() -> bool:
    """``FIDO_CLOSE_RESULT_PACKS`` (default on): the close reads and writes result packs."""
    return bool(getattr(settings, "FIDO_CLOSE_RESULT_PACKS", True))


def _pack_later(
    packed: PackedWindow, packs: list[result_packs.Encoded]
) -> Callable[[], int] | None:
    """Store ``packs`` (encoded by :func:`_compute_packed`), in a thread on a connection
    of its own, while the close writes the list (PostgreSQL's work, which leaves this
    process idle); the function returned waits for it."""
    if not packs:
        return None
    return result_packs.packs_store_later(
        discipline=packed.discipline,
        plan=packed.plan,
        packs=packs,
        connect=loader.extra_connection,
        now=clock.now(),
    )


def _compute_sharded(
    month: Month, discipline: str, *, shards: int, tracker: RunTracker, timeout: float | None
) -> tuple[fladub.RankingList, seal.InputsDigest]:
    """Stages 2 and 3 across workers. The shards go out first (each loads its players'
    whole matches and computes their exact totals on a worker); meanwhile this process
    reads the window itself (``load``) for what only it needs: the seal's digest of every
    input row, L(R - 1) (previous ranks) and the player order. Then (``compute``) it waits
    for the shards (at most ``timeout`` seconds, default ``FIDO_CLOSE_TIME_LIMIT``),
    merges and ranks. The month is frozen, so shards reading in their own transactions
    read the same data; the integer sums make the merged list equal the single-process one
    bit for bit."""
    from celery.exceptions import TimeoutError as ShardsTimeout

    if timeout is None:
        timeout = float(getattr(settings, "FIDO_CLOSE_TIME_LIMIT", 1800))
    tracker.stage("load")
    pending = dispatch.close_shards_send(month=month, discipline=discipline, shards=shards)
    try:
        inputs = window(discipline=discipline, month=month, streams=_streams(None))
        digest = seal.inputs_digest(inputs.sides)
        previous, player_order = inputs.published.get(month.index - 1), inputs.player_order
        del inputs
        tracker.stage("compute")
        parts = dispatch.close_shards_wait(pending, timeout=timeout)
    except ShardsTimeout:
        raise ShardsUnfinished(
            f"the {shards} shards of the close did not all finish within {timeout:g} s: "
            "are Celery workers running?"
        ) from None
    finally:
        dispatch.close_shards_forget(pending)
    totals = fladub.merge_totals([totals_from_wire(part) for part in parts])
    ranking = fladub.rank_list(totals, month.index, previous=previous, player_order=player_order)
    tracker.stage_done()
    return ranking, digest


@audit.recording()
def _write(
    month: Month,
    discipline: str,
    ranking: fladub.RankingList,
    *,
    tracker: RunTracker,
    erratum: Erratum | None = None,
    basis: ErratumBasis | None = None,
    fields: list[Future[Any]] | None = None,
) -> tuple[RankingList, str | None]:
    """Stage 4: the entries, in a new list (``computing``: invisible to readers); with
    several streams, the SHA-256 of the list's CSV download (the seal's content digest,
    None when not computed) is computed meanwhile, in a thread, from the computed arrays
    and the players' fields (:func:`seal.arrays_content_digest`; ``fields``: their read
    under way, :func:`_seal_fields_start`, taken from the list), or, when that cannot
    tell, read back on a connection of its own while the indexes are built
    (:func:`seal.partition_content_digest`)."""
    tracker.stage("write")
    streams = _write_streams()
    content: list[str | None] = []
    new_attempt = functools.partial(_new_attempt, month, discipline, erratum, basis)
    if streams > 1:
        # Several connections write at once, each in its own transaction: the attempt's
        # row must be committed first for them to see it. It stays ``computing``
        # (invisible) until the publication; a failure marks it failed, and the next
        # close deletes whatever entries it got (as after a crash).
        reading = fields.pop() if fields else _seal_fields_start([])
        from_arrays = loader.in_thread(
            functools.partial(_arrays_digest, ranking, reading), name="fido-seal-csv"
        )
        del reading
        attempt = new_attempt()
        list_id = attempt.pk

        def sealed_meanwhile(conn: Any, table: str) -> None:
            found = from_arrays.result()
            if found is None:
                found = seal.partition_content_digest(list_id, conn=conn, table=table)
            content.append(found)

        try:
            count = writer.write_entries(
                ranking_list=attempt,
                ranking=ranking,
                streams=streams,
                meanwhile=sealed_meanwhile,
                analyze=True,
            )
            RankingList.objects.filter(pk=attempt.pk).update(entry_count=count)
        except BaseException:
            _mark_failed(attempt.pk)
            raise
    else:
        with transaction.atomic():
            attempt = new_attempt()
            count = writer.write_entries(ranking_list=attempt, ranking=ranking)
            RankingList.objects.filter(pk=attempt.pk).update(entry_count=count)
        writer.analyze_entries(attempt.pk)
    tracker.stage_done()
    return attempt, (content[0] if content else None)


def _seal_fields_start(started: list[Future[Any]]) -> Future[Any]:
    """Read the players' fields for the seal (:func:`seal.player_fields_read`) in a thread
    on a connection of its own; the future is appended to ``started`` and returned."""

    def read() -> Any:
        begun = time.perf_counter()
        with loader.extra_connection() as conn:  # psycopg closes it on leaving
            fields = seal.player_fields_read(conn=conn)
        logger.info("players' fields for the seal: %.2f s", time.perf_counter() - begun)
        return fields

    future = loader.in_thread(read, name="fido-seal-players")
    started.append(future)
    return future


def _seal_fields_early(started: list[Future[Any]]) -> None:
    """:func:`_seal_fields_start` when the write will use them (several streams), so that
    PostgreSQL reads the players while this process computes."""
    if _write_streams() > 1:
        _seal_fields_start(started)


def _arrays_digest(ranking: fladub.RankingList, reading: Future[Any]) -> str | None:
    """:func:`seal.arrays_content_digest` once the players' fields are read."""
    started = time.perf_counter()
    found = seal.arrays_content_digest(ranking, reading.result())
    logger.info(
        "content digest from the arrays: %s in %.2f s",
        "done" if found else "not computed (read back instead)",
        time.perf_counter() - started,
    )
    return found


def _new_attempt(
    month: Month, discipline: str, erratum: Erratum | None, basis: ErratumBasis | None
) -> RankingList:
    return RankingList.objects.create(
        discipline=discipline,
        month=month.first_day,
        version=_next_version(discipline, month),
        status=RankingList.Status.COMPUTING,
        created_at=clock.now(),
        erratum=erratum,
        as_of_match=None if basis is None else basis.as_of_match,
        as_of_event=None if basis is None else basis.as_of_event,
    )


def _write_streams() -> int:
    """``FIDO_CLOSE_WRITE_STREAMS`` (default 2) on PostgreSQL outside any transaction;
    else 1 (other connections cannot see an enclosing transaction's rows)."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return 1
    return max(1, int(getattr(settings, "FIDO_CLOSE_WRITE_STREAMS", 2)))


def month_close_check(*, month: Month, discipline: str, now: dt.datetime) -> None:
    """Raise :class:`CloseRefused` unless ``month`` may be closed at ``now``."""
    check_discipline(discipline)
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
        and published_list(discipline=discipline, month=previous) is None
    ):
        raise CloseRefused(
            f"{month} ({discipline}) cannot be closed while {previous} is not closed: "
            f"close {previous} first"
        )


def month_close_enqueue(*, month: Month | str, discipline: str, by: Any = None) -> CloseRun:
    """Record a run and hand the close to a worker once the current transaction commits.

    The run is the outbox: marked dispatched when the broker takes the task; when it does
    not, the run stays queued and undispatched (beat re-sends it,
    :mod:`rankings.services.close_recover`) and :class:`rankings.dispatch.DispatchFailed`
    propagates from the commit (at once, outside a transaction)."""
    month = as_month(month)
    run = close_run_create(month=month, discipline=discipline, by=by)
    close_run_send(run)
    return run


def close_run_send(run: CloseRun) -> None:
    """Send run ``run``'s task (after commit), keeping its outbox mark."""

    def failed(exc: BaseException) -> None:
        logger.error("could not enqueue the close run %s: %s", run.pk, exc)
        close_run_undispatched(run_id=run.pk, error=f"the task queue is unreachable: {exc}")

    dispatch.month_close_send(
        month=Month.of(run.month),
        discipline=run.discipline,
        run_id=run.pk,
        task_id=run.task_id,
        on_failure=failed,
        on_sent=lambda: close_run_dispatched(run_id=run.pk),
    )


# --- the lock and the publication --------------------------------------------------------------


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
    key = locks.close_key(discipline)
    matches_sql.execute(matches_sql.advisory_lock("pg_advisory_lock", *key))
    try:
        yield
    finally:
        _close_unlock(key, discipline)


@contextlib.contextmanager
def close_locks_all() -> Iterator[bool]:
    """Every discipline's close lock at once, without waiting (PostgreSQL): yields True
    holding them all, or False holding none when any is held elsewhere (a close, or a
    packs backfill, is under way). Released on exit. What may change what every close's
    packs rely on takes them (:func:`rankings.services.packs.member_changes_prune`)."""
    taken: list[tuple[tuple[int, int], str]] = []
    try:
        for discipline in CODES:
            key = locks.close_key(discipline)
            if not matches_sql.scalar(matches_sql.advisory_lock("pg_try_advisory_lock", *key)):
                break
            taken.append((key, discipline))
        yield len(taken) == len(CODES)
    finally:
        for key, discipline in reversed(taken):
            _close_unlock(key, discipline)


def _close_unlock(key: tuple[int, int], discipline: str) -> None:
    try:
        matches_sql.execute(matches_sql.advisory_lock("pg_advisory_unlock", *key))
    except DatabaseError:  # the connection is gone, and the lock with it
        logger.warning("could not release the close lock of %s", discipline, exc_info=True)


def list_publish(list_id: int, *, listed: fladub.PublishedList | None = None) -> RankingList:
    """Mark the list published and flip the pointer, in one transaction; if another close
    published the month first, mark this attempt failed and return that list. An
    erratum's list supersedes the month's published version in the same transaction.
    ``listed``: the list's players and cents as written in its entries, stored in the same
    transaction as its pack (:mod:`rankings.list_packs`: what later closes read)."""
    try:
        with transaction.atomic():
            _flip(list_id)
            if listed is not None:
                list_packs.pack_insert(list_id, listed)
    except _AlreadyPublished as already:
        _mark_failed(list_id)
        return already.ranking_list
    except IntegrityError:
        # Another close published this month between our check and our update (only
        # possible without the advisory lock, i.e. on SQLite): return its list.
        mine = RankingList.objects.get(pk=list_id)
        found = _published(mine.discipline, Month.of(mine.month))
        if found is None:
            raise
        _mark_failed(list_id)
        return found
    published = RankingList.objects.get(pk=list_id)
    http_cache.forget(published.discipline, Month.of(published.month))
    return published


def _flip(list_id: int) -> None:
    """Inside the publication's transaction: the status, then the pointer."""
    ranking_list = RankingList.objects.select_for_update().get(pk=list_id)
    discipline, month_day = ranking_list.discipline, ranking_list.month
    pointer = CurrentList.objects.select_for_update().filter(discipline=discipline).first()
    existing = RankingList.objects.filter(
        discipline=discipline, month=month_day, status=RankingList.Status.PUBLISHED
    ).first()
    if existing is not None and ranking_list.erratum_id is None:
        raise _AlreadyPublished(existing)
    if ranking_list.status != RankingList.Status.COMPUTING:
        raise RuntimeError(f"{ranking_list} was discarded by another close while it was written")
    if existing is not None:  # an erratum: the version it replaces keeps its URL
        RankingList.objects.filter(pk=existing.pk, status=RankingList.Status.PUBLISHED).update(
            status=RankingList.Status.SUPERSEDED
        )
    at = clock.now()
    RankingList.objects.filter(pk=list_id, status=RankingList.Status.COMPUTING).update(
        status=RankingList.Status.PUBLISHED, published_at=at, edition=_next_edition(ranking_list)
    )
    if pointer is None:
        CurrentList.objects.create(discipline=discipline, ranking_list_id=list_id, updated_at=at)
    elif pointer.ranking_list.month <= month_day:
        pointer.ranking_list_id = list_id
        pointer.updated_at = at
        pointer.save(update_fields=["ranking_list", "updated_at"])


class _AlreadyPublished(Exception):
    def __init__(self, ranking_list: RankingList) -> None:
        super().__init__(str(ranking_list))
        self.ranking_list = ranking_list


def list_mutable_check(ranking_list: RankingList) -> None:
    """Refuse any change to a published list (the database refuses it too)."""
    status = RankingList.objects.filter(pk=ranking_list.pk).values_list("status", flat=True).first()
    if status == RankingList.Status.PUBLISHED or ranking_list.is_published:
        raise PublishedListImmutable(f"{ranking_list} is published: it never changes")


# --- internals ----------------------------------------------------------------------------------


def _published(discipline: str, month: Month) -> RankingList | None:
    """The published list of the month, as the model the close returns."""
    found = published_list(discipline=discipline, month=month)
    return None if found is None else RankingList.objects.get(pk=found.id)


def _discard_attempts(*, discipline: str, month: Month) -> None:
    """Earlier attempts at this list (a crashed or failed run): no entries, status failed,
    and (PostgreSQL) no partition, attached or left unattached by a crash."""
    stale = RankingList.objects.filter(
        discipline=discipline,
        month=month.first_day,
        status__in=[RankingList.Status.COMPUTING, RankingList.Status.FAILED],
    )
    with transaction.atomic():
        RankingEntry.objects.filter(ranking_list__in=stale).delete()
        stale_ids = list(stale.values_list("pk", flat=True))
        stale.update(status=RankingList.Status.FAILED, entry_count=0)
    partitions.partitions_drop(stale_ids)


def _mark_failed(list_id: int) -> None:
    """Mark an attempt failed; must not raise (called while the job's error propagates)."""
    with contextlib.suppress(DatabaseError):
        RankingList.objects.filter(pk=list_id, status=RankingList.Status.COMPUTING).update(
            status=RankingList.Status.FAILED
        )


def _next_version(discipline: str, month: Month) -> int:
    latest = RankingList.objects.filter(discipline=discipline, month=month.first_day).aggregate(
        v=Max("version")
    )["v"]
    return (latest or 0) + 1


def _next_edition(ranking_list: RankingList) -> int:
    """The public version the list is published as: 1, or one after the month's latest."""
    latest = RankingList.objects.filter(
        discipline=ranking_list.discipline, month=ranking_list.month, edition__isnull=False
    ).aggregate(e=Max("edition"))["e"]
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


def _streams(streams: int | None) -> int:
    if streams is not None:
        return max(1, streams)
    # Parallel readers need a transaction of their own to share its snapshot.
    if connection.in_atomic_block:
        return 1
    return max(1, int(getattr(settings, "FIDO_CLOSE_LOAD_STREAMS", 2)))
