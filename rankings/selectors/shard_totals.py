"""One shard of a close split across workers: its players' totals, and their wire format.

In: a discipline, the month R of L(R), a shard w of n (the players with ``player % n == w``,
:func:`rankings.fladub.worker_of`). Out: :func:`shard_totals` gives those players'
:class:`rankings.fladub.PlayerTotals` (exact FLADUB in units, results counted), computed
from the whole matches they played in the window (:func:`rankings.selectors.window.window`
with ``shard``) and the strength lists; :func:`rankings.fladub.merge_totals` of all n
shards equals the totals of the single-process close bit for bit (integer sums).

Read-only, so a shard can run twice (a redelivered task) with the same answer. The month
must be frozen first (the coordinator, :func:`rankings.services.close.month_close`, does it), so
that shards read in different transactions still read the same data.

Wire format (:func:`totals_to_wire` / :func:`totals_from_wire`): a JSON-safe dict of the
three ``int64`` columns as base64 of their little-endian bytes: 24 bytes per player, 32 on
the wire, whatever the number of results.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from matches.months import Month

from .. import fladub
from .window import window

_COLUMNS = ("player", "units", "results_counted")


def shard_totals(
    *, discipline: str, month: Month, shard: int, shards: int, streams: int = 1
) -> fladub.PlayerTotals:
    """The totals of the players of ``shard`` (0-based) of ``shards`` in L(month)."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not in 0..{shards - 1}")
    inputs = window(discipline=discipline, month=month, streams=streams, shard=(shard, shards))
    return fladub.compute_partial(
        inputs.sides, month.index, inputs.published, worker=shard, n_workers=shards
    )


def totals_to_wire(totals: fladub.PlayerTotals) -> dict[str, Any]:
    return {
        name: base64.b64encode(np.ascontiguousarray(getattr(totals, name), "<i8").tobytes()).decode(
            "ascii"
        )
        for name in _COLUMNS
    }


def totals_from_wire(wire: dict[str, Any]) -> fladub.PlayerTotals:
    columns = {
        name: np.frombuffer(base64.b64decode(wire[name]), dtype="<i8").astype(np.int64)
        for name in _COLUMNS
    }
    if len({len(c) for c in columns.values()}) != 1:
        raise ValueError("a shard's columns differ in length")
    return fladub.PlayerTotals(**columns)
