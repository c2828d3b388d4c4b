"""Why did I move: a player's change of FLADUB and rank from L(R - 1) to L(R), explained.

In: a player (primary key), a discipline and a list L(R), published or projected
(:class:`~rankings.sql.ListInfo`). Out: :class:`PlayerLedger`: the two numbers and ranks,
the parts of the change (:func:`rankings.core.decompose`, which sum exactly to it), each
naming its results (:class:`~rankings.selectors.counting_results.CountedResult`: the
match's facts, no table), and the change of rank explained (:class:`rankings.core.RankChange`).

How: the player's counting results in L(R - 1) and in L(R) are read by
:func:`~rankings.selectors.counting_results.counted_results` from one computation of the
player's match points over both windows (the FLADUB core on the player's matches: the
numbers the lists are made of); the published numbers and ranks from
the lists' entries (or what the caller read of them: :class:`Known`); the rank change by
counting the players above in both lists (one statement on the entries of the two lists,
bounded by the player's rank).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from matches.months import Month

from .. import fladub, sql
from .. import ledger as core
from ..sql import EntryInfo, ListInfo
from .counting_results import CountedResult, PlayerPoints, counted_results, player_points
from .lists import published_list

Key = int
"""A result: its stored match (a correction's revision is a match of its own)."""


@dataclass(frozen=True)
class PlayerLedger:
    month: Month
    from_entry: EntryInfo | None
    to_entry: EntryInfo | None
    ledger: core.Ledger[Key]
    points: PlayerPoints
    """The player's match points the ledger was made of (their results, named on demand)."""
    rank: core.RankChange
    left_month: Month

    @cached_property
    def results(self) -> dict[Key, CountedResult]:
        """Every result a part names, from L(R) or (for results gone) L(R - 1): made when
        first asked for (the API names them; the player page shows only how many), once."""
        pk, discipline = self.points.player_pk, self.points.discipline
        found = {}
        for month in (self.month.prev(), self.month):
            counted = counted_results(pk, discipline=discipline, month=month, points=self.points)
            found.update({r.match_pk: r for r in counted.results})
        return found

    @property
    def from_cents(self) -> int:
        return self.ledger.from_cents

    @property
    def to_cents(self) -> int:
        return self.ledger.to_cents


def entries_in(list_ids: list[int], player_pk: int) -> dict[int, EntryInfo]:
    """The player's entries in the given lists (any status), by list (one query)."""
    rows = sql.LIST_ENTRY.rows(sql.entries_of(player_pk, list_ids))
    return {row.list_id: row.entry for row in rows}


@dataclass(frozen=True)
class Known:
    """What a caller has read already for the ledger of L(R): the id of the published
    list of the month before (None: there is none) and the player's entries by list id
    (a list missing: the player is not on it), L(R - 1)'s and L(R)'s among them."""

    previous_id: int | None
    entries: Mapping[int, EntryInfo]


def player_ledger(
    player_pk: int,
    *,
    ranking_list: ListInfo,
    explain_rank_up_to: int | None = None,
    points: PlayerPoints | None = None,
    known: Known | None = None,
) -> PlayerLedger:
    """Why the player's number and rank in ``ranking_list`` differ from the list before.

    The rank change is explained (who passed, who entered above) when the player is listed
    in both lists and, if ``explain_rank_up_to`` is given, ranked no lower than it in
    either (the counts read the entries above the player: a page bounds them). ``points``:
    the player's match points (:func:`~rankings.selectors.counting_results.player_points`)
    if the caller has read them for a span holding L(R - 1) and L(R); else they are read
    here, once for both lists. ``known``: the list before and the player's entries, if
    the caller has read them (the player page, from the player's history); else they are
    read here (two statements).

    Long on purpose: the two lists' entries and results are read once here and handed to
    the pure decomposition (:func:`rankings.ledger.decompose_arrays`) and the rank counts.
    """
    month = ranking_list.list_month
    discipline = ranking_list.discipline
    if known is None:
        previous = published_list(discipline=discipline, month=month.prev())
        previous_id = previous.id if previous is not None else None
        lists = [ranking_list.id] + ([previous_id] if previous_id is not None else [])
        known = Known(previous_id=previous_id, entries=entries_in(lists, player_pk))
    previous_id = known.previous_id
    from_entry = known.entries.get(previous_id) if previous_id is not None else None
    to_entry = known.entries.get(ranking_list.id)
    if points is None or not (
        points.covers(month.prev(), discipline) and points.covers(month, discipline)
    ):
        points = player_points(player_pk, discipline=discipline, months=[month.prev(), month])
    # The numbers from the core's arrays; a result becomes an object only if asked for.
    before, after = points.breakdown(month.prev()), points.breakdown(month)
    left_month = month + (-fladub.WINDOW_MONTHS)
    found = core.decompose_arrays(
        core.held_arrays(before),
        core.held_arrays(after),
        left=before.match_id[before.month_played == left_month.index],
        from_cents=from_entry.fladub_cents if from_entry else 0,
        to_cents=to_entry.fladub_cents if to_entry else 0,
        corrections=_corrections(points, before, after),
    )
    rank = core.RankChange(
        rank_from=from_entry.rank if from_entry else None,
        rank_to=to_entry.rank if to_entry else None,
    )
    if previous_id is not None and from_entry is not None and to_entry is not None:
        bound = explain_rank_up_to
        if bound is None or max(from_entry.rank, to_entry.rank) <= bound:
            rank = _rank_change(previous_id, ranking_list.id, from_entry, to_entry)
    return PlayerLedger(
        month=month,
        from_entry=from_entry,
        to_entry=to_entry,
        ledger=found,
        points=points,
        rank=rank,
        left_month=left_month,
    )


def ledger_matches(points: PlayerPoints, month: Month) -> set[int]:
    """The matches whose facts the ledger of L(``month``) reads (:func:`_corrections`):
    the results counting in only one of L(R - 1) and L(R), none if either has no result.
    A caller making several ledgers reads them all first, in one statement
    (:meth:`PlayerPoints.facts`)."""
    before, after = points.breakdown(month.prev()), points.breakdown(month)
    if not len(before.match_id) or not len(after.match_id):
        return set()
    return set(before.match_id.tolist()) ^ set(after.match_id.tolist())


def _corrections(
    points: PlayerPoints, before: fladub.Breakdown, after: fladub.Breakdown
) -> set[int]:
    """The results of L(R) that are corrected revisions of a result of L(R - 1): new in
    L(R), with the club and match id of a result gone from it. Only the results counting
    in one of the two lists are named (:func:`ledger_matches`: a busy player's few hundred,
    not their thousand): a correction voids the old revision from the month the new one
    counts in (``matches/services/correct.py``), so two revisions never count in one list."""
    if not len(before.match_id) or not len(after.match_id):
        return set()
    earlier, later = set(before.match_id.tolist()), set(after.match_id.tolist())
    facts = points.facts(earlier ^ later)
    gone = {(facts[pk].club_id, facts[pk].external_id) for pk in earlier - later}
    return {pk for pk in later - earlier if (facts[pk].club_id, facts[pk].external_id) in gone}


def _rank_change(
    previous_id: int, list_id: int, before: EntryInfo, now: EntryInfo
) -> core.RankChange:
    """Who is above the player now and who was: players who passed, new entries above,
    players overtaken, players above who left the list (one statement)."""
    [counts] = sql.RANK_CHANGE_COUNTS.rows(
        sql.rank_change_counts(previous_id, list_id, rank_before=before.rank, rank_now=now.rank)
    )
    passed = (now.rank - 1) - counts.new_above - counts.was_above
    overtaken = (before.rank - 1) - counts.was_above - counts.gone_above
    return core.RankChange(
        rank_from=before.rank,
        rank_to=now.rank,
        passed=passed,
        new_above=counts.new_above,
        overtaken=overtaken,
        gone_above=counts.gone_above,
        explained=True,
    )
