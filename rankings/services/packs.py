"""Packing the published lists that have no pack (lists published before packs existed),
and the counted results of the months no result pack holds yet.

:func:`packs_backfill` reads each such list's entries (:func:`rankings.loader.whole_lists`)
and stores them as its pack (:func:`rankings.list_packs.pack_insert`), one list per
transaction, so that an interrupted backfill keeps the packs it made and a second run
goes on where it stopped. Two backfills at once pack a list once (the second insert does
nothing). ``manage.py pack_lists`` runs it; a close packs the list it publishes itself.

Without a backfill nothing is wrong, only slower: a close reads a list without a pack
from its entries, and after twelve months of closes every list it reads has a pack.

:func:`result_packs_backfill` does for the results what the close of the discipline's
latest published month would have done (PostgreSQL; :mod:`rankings.result_packs`): it reads
that month's window, from the packs there are and as rows for the months none holds,
scores the rows and packs those months. The next close then reads only its own month as
rows. Safe beside a close (both hold the discipline's close lock) and again (a month
packed is never packed twice).

:func:`member_changes_prune` deletes the logged changes of results that no pack a close may
still read needs (the nightly beat task and ``pack_lists`` run it), holding every
discipline's close lock, or does nothing while a close or a backfill holds one.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection, transaction

from matches import clock
from matches.months import Month

from .. import list_packs, loader, result_packs
from ..selectors.lists import current_list
from ..selectors.window import packed_window


def packs_backfill(
    *, discipline: str | None = None, progress: Callable[[int, int], None] | None = None
) -> int:
    """Pack every published (or superseded) list without a pack (of ``discipline``, or
    all); return how many it packed. ``progress(list_id, entries)`` after each it packed."""
    packed = 0
    for list_id in list_packs.lists_without_pack(discipline):
        with transaction.atomic():
            listed = loader.whole_lists({0: list_id})[0]
            done = list_packs.pack_insert(list_id, listed)
        if done:
            packed += 1
            if progress is not None:
                progress(list_id, len(listed))
    return packed


def result_packs_backfill(discipline: str) -> int:
    """Pack the results of the months of the latest published list's window that no
    result pack holds; return how many months it packed (0 off PostgreSQL, where the
    close reads every result as a row). When every month has its pack, one statement
    says so and the window is not read."""
    from .close import close_lock

    if connection.vendor != "postgresql":
        return 0
    with close_lock(discipline):
        latest = current_list(discipline=discipline)
        if latest is None:
            return 0
        month = Month.of(latest.month)
        if not result_packs.uncovered_months(discipline, month):
            return 0  # without reading the window (12 million results at full size)
        inputs = packed_window(discipline=discipline, month=month, streams=2)
        if inputs is None or not inputs.plan.uncovered:
            return 0
        inputs.columns.score_missing(inputs.published)
        return result_packs.packs_write(
            discipline=discipline,
            plan=inputs.plan,
            window=inputs.columns,
            connect=loader.extra_connection,
            now=clock.now(),
        )


def member_changes_prune() -> int | None:
    """Delete the logged changes of results (``rankings_memberchange``) that no pack a
    close may still read needs (:func:`rankings.result_packs.changes_prune`); return how
    many, 0 off PostgreSQL (no log there), or None when a close or a backfill held a
    discipline's close lock (nothing deleted: the next run prunes). Without it the log
    grows by a row per match changed (a void, a correction, a merge), and every close
    reads all of it."""
    from .close import close_locks_all

    if connection.vendor != "postgresql":
        return 0
    with close_locks_all() as every:
        if not every:
            return None
        with connection.cursor() as cursor:  # one statement: its own transaction
            return result_packs.changes_prune(cursor)
