"""The window: everything the close of L(R) computes from, read in one consistent snapshot.

In: a discipline and the month R of the list L(R). Out: :class:`Window`, the inputs of
:func:`rankings.fladub.compute_list`:

- ``sides``: every result of the discipline counting in L(R) (the condition of
  :func:`rankings.sql.window_condition`: ``counting_month <= R``,
  ``R - 11 <= month_played <= R``, not voided before R), read by
  :func:`rankings.loader.window_sides`;
- ``published``: the strength lists (:func:`~rankings.selectors.strength_lists.strength_lists`,
  whole) in force in every month M played in the window, and in R (L(R - 1): previous
  ranks), in integer cents;
- ``player_order``: each player's position in federation-id order, the tie-break within
  a shared rank (with ``order_later``, still being read in the background when the window
  returns: the close computes meanwhile).

An erratum reads its own window (``basis``: the results as they stood after the events up
to the basis, docs/fladub.md "Errata"); ``verify_list`` reads the strength lists in force
when the list it checks was published (``as_of``), from their entries (``packs=False``),
where the close reads each list's pack when it has one (:mod:`rankings.list_packs`).

:func:`packed_window` is the close's window on PostgreSQL: the same results, most of them
from the result packs with their points (:mod:`rankings.result_packs`), the rest read as
rows (:class:`PackedWindow`).

Guaranteed: one snapshot for all of it. As the outermost transaction on PostgreSQL, a
``REPEATABLE READ, READ ONLY`` transaction whose snapshot the loader's parallel
connections import (``streams`` of them); inside another transaction, that transaction's
view, read on its own connection (others cannot see its rows).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction

from matches.months import Month

from .. import fladub, loader, result_packs
from ..sql import ErratumBasis
from .strength_lists import published_ids, strength_lists

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Window:
    discipline: str
    month: Month
    sides: fladub.Sides
    published: dict[int, fladub.PublishedList]
    order: loader.I64 | Future[loader.I64 | None] | None
    """The player order, or (``window(order_later=True)``) its future."""

    @property
    def month_index(self) -> int:
        return self.month.index

    @property
    def player_order(self) -> loader.I64 | None:
        """The player order; waits for it while it is still being read."""
        return self.order.result() if isinstance(self.order, Future) else self.order


def window(
    *,
    discipline: str,
    month: Month,
    streams: int = 2,
    portable: bool | None = None,
    shard: tuple[int, int] | None = None,
    basis: ErratumBasis | None = None,
    as_of: dt.datetime | None = None,
    order_later: bool = False,
    packs: bool = True,
) -> Window:
    """The results counting in L(month), their strength lists and the player order.

    ``shard`` = (w, n): only the whole matches of shard w's players (for
    :func:`rankings.fladub.compute_partial`); ``basis``: an erratum's window; ``as_of``:
    the strength lists in force just before that instant; ``packs`` False: the strength
    lists from their entries only, never from their packs. With ``order_later`` (and the
    fast path, as the outermost transaction), the player order is still being read, in
    the same snapshot, when this returns (:func:`rankings.loader.player_order_later`):
    ``Window.player_order`` waits for it."""
    fast = loader.uses_copy() if portable is None else not portable
    outermost = not connection.in_atomic_block
    if not outermost:
        streams = 1  # other connections cannot see the enclosing transaction's rows
    with transaction.atomic():
        if fast and outermost:
            loader.one_snapshot()  # for every query below, and for the parallel readers
        started = time.perf_counter()
        sides = loader.window_sides(
            discipline=discipline,
            month=month,
            streams=streams,
            portable=not fast,
            shard=shard,
            basis=basis,
        )
        published, order = _lists_and_order(
            discipline,
            month,
            _months_present(sides.month_played).tolist(),
            loaded=(len(sides), started),
            streams=streams if fast else 0,
            later=order_later and outermost,
            as_of=as_of,
            packs=packs,
            shard=shard is not None,
        )
    return Window(discipline=discipline, month=month, sides=sides, published=published, order=order)


@dataclass(frozen=True, eq=False)
class PackedWindow:
    """The close's window from result packs: the results as narrow columns with the
    points the packs gave (:class:`rankings.result_packs.Assembled`), the plan (the
    months to pack), the strength lists, the player order (or its future)."""

    discipline: str
    month: Month
    columns: result_packs.Assembled
    plan: result_packs.Plan
    published: dict[int, fladub.PublishedList]
    order: loader.I64 | Future[loader.I64 | None] | None

    @property
    def player_order(self) -> loader.I64 | None:
        return self.order.result() if isinstance(self.order, Future) else self.order


def packed_window(
    *, discipline: str, month: Month, streams: int = 2, order_later: bool = False
) -> PackedWindow | None:
    """:func:`window` for the close, from the result packs and the rows no pack holds (in
    one snapshot, PostgreSQL); None where it cannot be (another database, or inside a
    transaction, whose rows other connections cannot see): the caller reads
    :func:`window`."""
    if not loader.uses_copy() or connection.in_atomic_block:
        return None
    with transaction.atomic():
        loader.one_snapshot()
        started = time.perf_counter()
        columns, plan = _from_packs(discipline, month, streams)
        published, order = _lists_and_order(
            discipline,
            month,
            columns.months_played(),
            loaded=(len(columns), started),
            streams=streams,
            later=order_later,
        )
    return PackedWindow(discipline, month, columns, plan, published, order)


def _from_packs(
    discipline: str, month: Month, streams: int
) -> tuple[result_packs.Assembled, result_packs.Plan]:
    """The window's columns from the result packs and the rows no pack holds."""
    started = time.perf_counter()
    played = [month + (1 - fladub.WINDOW_MONTHS + i) for i in range(fladub.WINDOW_MONTHS)]
    strength_ids = published_ids(discipline, {m.prev() for m in played})
    plan = result_packs.plan_read(discipline, month, strength_ids)
    builder = result_packs.WindowBuilder(plan)

    def copied_in(info: result_packs.PackInfo, payload: memoryview) -> None:
        # Run by the thread that read the pack, while the other connections read on.
        builder.add_pack(info, result_packs.decode(info.month, info.matches, info.rows, payload))

    groups = result_packs.pack_groups(plan.packs, max(1, streams))
    sinks = [result_packs.PackSink(group, copied_in) for group in groups]
    condition, params = result_packs.fresh_condition(plan)
    planned = time.perf_counter()
    fresh, void = loader.fresh_sides_and_packs(
        discipline=discipline,
        month=month,
        condition=condition,
        params=params,
        pack_statements=[result_packs.pack_statement([p.id for p in g]) for g in groups],
        pack_sinks=[sink.feed for sink in sinks],
        streams=streams,
    )
    read = time.perf_counter()
    result_packs.buffer_release()
    if plan.packs:
        builder.add_rows(fresh, void)
        columns = builder.finish()
    else:
        columns = result_packs.Assembled.of_rows(fresh, void)
    logger.info(
        "result packs of %s: %d months (%s), %d results read as rows (%d changed matches), "
        "%d months to pack; planned in %.2f s, read and copied in %.2f s, then %.2f s",
        *(month, len(plan.packs), ", ".join(result_packs.months_of(plan.packs))),
        *(len(fresh), len(plan.changed), len(plan.uncovered)),
        *(planned - started, read - planned, time.perf_counter() - read),
    )
    return columns, plan


def _lists_and_order(
    discipline: str,
    month: Month,
    played: list[int],
    *,
    loaded: tuple[int, float],
    streams: int,
    later: bool,
    as_of: dt.datetime | None = None,
    packs: bool = True,
    shard: bool = False,
) -> tuple[dict[int, fladub.PublishedList], loader.I64 | Future[loader.I64 | None] | None]:
    """The strength lists of the months ``played`` (month indices) and of ``month``, and
    the player order (none for a shard: the coordinator ranks), once the results are read
    (``loaded``: how many, and since when); ``streams`` 0: the portable path."""
    results, started = loaded
    read = time.perf_counter()
    published = strength_lists(
        discipline=discipline,
        months={Month.from_index(m) for m in played} | {month},
        streams=max(1, streams),
        portable=not streams,
        as_of=as_of,
        packs=packs,
    )
    order = None if shard else _order(fast=bool(streams), later=later)
    logger.info(
        "loaded %s %s: %d results in %.2f s (%d streams), %d published lists%s in %.2f s",
        *(discipline, month, results, read - started, streams, len(published)),
        " (the player order in the background)" if isinstance(order, Future) else "",
        time.perf_counter() - read,
    )
    return published, order


def _order(*, fast: bool, later: bool) -> loader.I64 | Future[loader.I64 | None] | None:
    if fast and later:
        return loader.player_order_later()
    return loader.player_order(portable=not fast)


def _months_present(month_played: np.ndarray) -> np.ndarray:
    """The distinct month indices of the rows: one counting pass over the span of months
    (a window spans 12), where ``np.unique`` hashes 12 million values (0.18 s of CPU)."""
    if not len(month_played):
        return np.zeros(0, dtype=np.int64)
    low = int(month_played.min())
    return np.flatnonzero(np.bincount(month_played - low)) + low
