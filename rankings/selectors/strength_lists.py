"""The strength lists: the published lists that opponent strength is read from.

In: a discipline, months M, and optionally the players (``Player`` primary keys) whose
strength each month M needs.
Out: month index of L(M - 1) -> :class:`rankings.fladub.PublishedList` (FLADUB in integer
cents) for every M whose list in force, L(M - 1), is published: what
:func:`rankings.fladub.match_points` takes (SPEC.md section 4.2: a match of month M reads
L(M - 1)).

- Whole lists (no ``players``): every entry. The close reads them so
  (:func:`rankings.selectors.window.window`): from the list's pack where it has one
  (:func:`rankings.list_packs.packs_read`, one row per list), else from its entries, on
  PostgreSQL through the loader's binary ``COPY`` on ``streams`` connections (lists
  published before packs existed, until ``manage.py pack_lists`` packs them).
- Restricted to ``players`` (month M -> the players of the matches of M): each list's
  entries of the players of the month it serves, plus its top entry (F_max, the divisor
  of q = F / F_max, so that a restricted list gives every listed player the q the whole
  list gives). Two statements whatever the number of months: the lists, then their
  entries of those players or of rank 1 (a probe per (list, player) pair: a busy player's
  4,600 opponents over 12 months are some 4,600 probes, not 12 times as many). A
  player's counting results read them so
  (:func:`rankings.selectors.counting_results.player_points`).

Guaranteed: published lists only; both forms give every player of ``players`` the same q.
The caller owns the transaction (the close reads in one snapshot).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping

import numpy as np

from matches.months import Month

from .. import fladub, list_packs, loader, sql


def strength_lists(
    *,
    discipline: str,
    months: Iterable[Month],
    players: Mapping[Month, Collection[int]] | None = None,
    streams: int = 1,
    portable: bool = False,
    as_of: dt.datetime | None = None,
    packs: bool = True,
) -> dict[int, fladub.PublishedList]:
    """The lists in force in ``months`` (L(M - 1) for each M), whole or restricted to the
    players each month M needs (``players[M]``) and each list's top entry; keyed by the
    month index of the list. With
    ``as_of``: the versions in force just before that instant (a list published then read
    these: ``verify_list``), else the latest versions. ``packs`` False: whole lists from
    their entries only (``verify_list``, which so checks the packs the close read)."""
    lists = published_ids(discipline, {m.prev() for m in months}, as_of)
    if not lists:
        return {}
    if players is None:
        return _whole(lists, streams=streams, portable=portable, packs=packs)
    return restricted(lists, players)


def published_ids(
    discipline: str, months: set[Month], as_of: dt.datetime | None = None
) -> dict[int, int]:
    """Month index -> id of its published list (as of ``as_of``), oldest first."""
    if not months:
        return {}
    statement = (
        sql.published_list_ids(discipline, months)
        if as_of is None
        else sql.list_ids_as_of(discipline, months, as_of)
    )
    found = {Month.of(row.month).index: row.id for row in sql.LIST_MONTH.rows(statement)}
    return dict(sorted(found.items()))


def _whole(
    lists: dict[int, int], *, streams: int, portable: bool, packs: bool
) -> dict[int, fladub.PublishedList]:
    """The lists whole: from their packs, the lists without one from their entries."""
    found = list_packs.packs_read(lists) if packs else {}
    rest = {index: list_id for index, list_id in lists.items() if index not in found}
    if rest:
        found.update(loader.whole_lists(rest, streams=streams, portable=portable))
    return dict(sorted(found.items()))


def restricted(
    lists: Mapping[int, int], players: Mapping[Month, Collection[int]]
) -> dict[int, fladub.PublishedList]:
    """The lists (month index -> id, from :func:`published_ids`) restricted to the players
    each month M needs (``players[M]``, served by L(M - 1)) and each list's top entry: one
    statement."""
    if not lists:
        return {}
    wanted = {index: set(players.get(Month.from_index(index).next(), ())) for index in lists}
    month_of = {list_id: index for index, list_id in lists.items()}
    cents: dict[int, dict[int, int]] = {index: {} for index in lists}
    tops: dict[int, tuple[int, int]] = {}
    pairs = {list_id: wanted[index] for index, list_id in lists.items()}
    for row in sql.STRENGTH.rows(sql.strengths_of_players(pairs)):
        index = month_of[row.list_id]
        if row.player in wanted[index]:
            cents[index][row.player] = row.fladub_cents
        if row.rank == 1 and row.fladub_cents > tops.get(index, (0, 0))[1]:
            tops[index] = (row.player, row.fladub_cents)
    published: dict[int, fladub.PublishedList] = {}
    for index, (top_player, top_value) in tops.items():  # every non-empty list has a rank 1
        rows = cents[index]
        if top_player not in rows:
            rows[top_player] = top_value
        published[index] = fladub.PublishedList(
            player=np.fromiter(rows.keys(), dtype=np.int64, count=len(rows)),
            fladub_cents=np.fromiter(rows.values(), dtype=np.int64, count=len(rows)),
        )
    return published
