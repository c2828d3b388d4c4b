"""The what-if calculator: a player's number and rank in the next list with hypothetical results.

In: a player (primary key), a discipline, the projection of its open month
(:func:`rankings.selectors.projection.projected_list`) and hypothetical results played in
that month: :class:`Hypothetical` tables (a category, the player's score, each opponent's
primary key and score; higher is better, so a placing p is the score -p). Out:
:class:`WhatIf`: the player's FLADUB (integer cents) and rank in the projected list if those
results were stored now, beside the projected number and rank without them. Writes nothing.

How: the FLADUB core (:mod:`rankings.fladub`), the close's own code, on this player only.
The hypothetical tables' match points are :func:`~rankings.fladub.match_points` with the
opponents' strength from the list in force (:func:`~rankings.selectors.strength_lists.
strength_lists` restricted to the table's players, plus its top entry); the player's stored
results counting in the list come from
:func:`~rankings.selectors.counting_results.player_points` (their match points, no match
read beyond the members' rows); the number is
:func:`~rankings.fladub.player_totals` of both together. The rank is ``1 +`` the number of
other players whose projected FLADUB is strictly larger, found by a binary search over the
projection's ranks in one statement with the player's projected entry
(:func:`rankings.sql.standing`: about ``log2(n) + 2`` probes of the ``(ranking_list,
rank)`` index, no scan of the list, one round trip).

Guaranteed: when the hypothetical results are stored as they are and nobody else's results
change, the close of the month publishes exactly this number and rank (tested).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from matches.months import Month

from .. import fladub, sql
from .counting_results import player_points
from .projection import Projected
from .strength_lists import strength_lists


@dataclass(frozen=True)
class Hypothetical:
    """One hypothetical table: the player's score and each opponent's (higher is better)."""

    category: str
    score: int
    opponents: tuple[tuple[int, int], ...]
    """(player primary key, score), one side each."""


@dataclass(frozen=True)
class WhatIf:
    month: Month
    fladub_cents: int
    rank: int | None
    """None: a FLADUB of 0 is not listed."""
    projected_cents: int
    projected_rank: int | None
    as_of: dt.datetime
    results_points: tuple[float, ...]
    """Match points of each hypothetical result, in the order given."""

    provisional = True


def _strength(
    discipline: str,
    month: Month,
    players: dict[int, int],
    strengths: Mapping[int, fladub.PublishedList] | None,
) -> dict[int, fladub.PublishedList]:
    """The list in force for ``month``, restricted to ``players`` (pk -> dense index) and
    its top entry, renumbered densely (new indices for other players): from
    ``strengths`` (lists by month index, keyed by player primary key, holding those
    players) if given, else read."""
    in_force = month.prev().index
    if strengths is None:
        strengths = strength_lists(discipline=discipline, months=[month], players={month: players})
    dense = dict(players)
    renumbered = {}
    for index, listed in strengths.items():
        if index != in_force:
            continue
        keys = [dense.setdefault(int(pk), len(dense)) for pk in listed.player.tolist()]
        renumbered[index] = fladub.PublishedList(
            player=np.array(keys, dtype=np.int64), fladub_cents=listed.fladub_cents
        )
    return renumbered


def hypothetical_points(
    player_pk: int,
    *,
    discipline: str,
    month: Month,
    tables: Sequence[Hypothetical],
    strengths: Mapping[int, fladub.PublishedList] | None = None,
) -> list[float]:
    """The player's match points in each table, by :func:`rankings.fladub.match_points`.
    ``strengths``: the strength lists holding the tables' players, if read already
    (:attr:`~rankings.selectors.counting_results.PlayerPoints.strengths`)."""
    if not tables:
        return []
    dense = {player_pk: 0}
    for table in tables:
        for pk, _score in table.opponents:
            dense.setdefault(pk, len(dense))
    rows: list[tuple[int, int, float, int, float]] = []  # match, side, score, player, base
    for n, table in enumerate(tables):
        base = float(fladub.CATEGORY_BASE[table.category])
        rows.append((n, 0, float(table.score), 0, base))
        for side, (pk, score) in enumerate(table.opponents, start=1):
            rows.append((n, side, float(score), dense[pk], base))
    columns = list(zip(*rows, strict=True))
    sides = fladub.Sides(
        match_id=np.array(columns[0], dtype=np.int64),
        month_played=np.full(len(rows), month.index, dtype=np.int32),
        counting_month=np.full(len(rows), month.index, dtype=np.int32),
        base=np.array(columns[4], dtype=np.float64),
        side_no=np.array(columns[1], dtype=np.int16),
        score=np.array(columns[2], dtype=np.float64),
        player=np.array(columns[3], dtype=np.int64),
    )
    results = fladub.match_points(sides, _strength(discipline, month, dense, strengths))
    mine = results.player == 0
    by_match = dict(
        zip(results.match_id[mine].tolist(), results.points[mine].tolist(), strict=True)
    )
    return [by_match[n] for n in range(len(tables))]


def what_if(
    player_pk: int,
    *,
    discipline: str,
    projected: Projected,
    tables: Sequence[Hypothetical],
) -> WhatIf:
    """The player's number and rank in the projected list with ``tables`` added."""
    month = Month.of(projected.ranking_list.month)
    # The opponents' strength is read with that of the player's stored results' players.
    seated = {player_pk, *(pk for table in tables for pk, _score in table.opponents)}
    read = player_points(player_pk, discipline=discipline, months=[month], also={month: seated})
    stored = read.breakdown(month)
    added = hypothetical_points(
        player_pk, discipline=discipline, month=month, tables=tables, strengths=read.strengths
    )
    points = stored.points.tolist() + added
    played = stored.month_played.tolist() + [month.index] * len(added)
    counting = stored.counting_month.tolist() + [month.index] * len(added)
    cents = 0
    if points:
        totals = fladub.player_totals(
            fladub.Results(
                match_id=np.arange(len(points), dtype=np.int64),
                month_played=np.array(played, dtype=np.int32),
                counting_month=np.array(counting, dtype=np.int32),
                player=np.zeros(len(points), dtype=np.int64),
                points=np.array(points, dtype=np.float64),
            ),
            month.index,
        )
        cents = int(totals.fladub_cents[0]) if len(totals.player) else 0
    info = projected.ranking_list
    (found,) = sql.STANDING.rows(sql.standing(info.id, info.entry_count, cents, player_pk))
    own = found.entry
    rank = None
    if cents > 0:
        above = found.above
        if own is not None and own.fladub_cents > cents:
            above -= 1  # the player's own projected entry is not another player
        rank = above + 1
    return WhatIf(
        month=month,
        fladub_cents=cents,
        rank=rank,
        projected_cents=0 if own is None else own.fladub_cents,
        projected_rank=None if own is None else own.rank,
        as_of=projected.as_of,
        results_points=tuple(added),
    )
