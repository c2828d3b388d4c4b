"""Head-to-head: every match two players shared, who placed higher, and what it is worth.

In: two players (``Player`` primary keys, already resolved through merges and different),
a discipline. Out: :class:`HeadToHead`: the tally over every shared match of the
discipline (not voided; a corrected match counts as its latest revision only), and the
newest :data:`MAX_SHOWN` of them as :class:`Meeting` rows: the table (club, date,
category, every side with its score and players), each player's place, who placed higher
(or that they played on the same side), and the match's FLADUB effect for each player in
the discipline's current list: the match points they took, the weight the result has
there now (in twelfths), the weighted points and whether it is among their best 20 (the
results that make their number). A match outside that list's window has no effect
(``None``).

How: the shared matches and both players' scores in one query (:func:`rankings.sql.
shared_matches`); the shown tables in one (:func:`rankings.sql.match_members`); the effects
are each player's own counted results in that list
(:func:`~rankings.selectors.counting_results.counted_results`, what the player page and
the ledger read: the FLADUB core on the player's matches), so this page and the player
page never disagree about a result's worth. "Placed higher" compares the two sides' scores, as a
table's places do (1 + the sides that scored more).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, replace
from decimal import Decimal

from matches.months import Month

from .. import fladub, sql
from .counting_results import CountedResult, PlayerRef, counted_results
from .lists import current_list

MAX_SHOWN = 200
"""Shared matches shown (the newest); the tally counts every one."""


@dataclass(frozen=True, slots=True)
class Effect:
    """What one result is worth to its player in the current list."""

    points: float
    """The match points the player took (SPEC 4.3)."""
    weight_twelfths: int
    weighted: float
    in_best: bool
    """Among the player's best 20: part of their number."""

    @property
    def weight(self) -> Decimal:
        return Decimal(self.weight_twelfths) / fladub.WINDOW_MONTHS

    @property
    def in_number(self) -> float:
        """What the result adds to the player's number: its weighted points if it is among
        the best 20, else nothing."""
        return self.weighted if self.in_best else 0.0


@dataclass(frozen=True, slots=True)
class TableSide:
    """A side of a shared match's table, with its place (1 + the sides that scored more)."""

    score: int
    place: int
    players: tuple[PlayerRef, ...]


@dataclass(frozen=True)
class Meeting:
    """One shared match."""

    match_pk: int
    match_id: str
    club_id: str
    club_name: str
    date_played: dt.date
    category: str
    sides: tuple[TableSide, ...]
    """Every side of the table, best score first."""
    place_a: int
    place_b: int
    higher: str
    """``a`` or ``b`` (who placed higher), ``tie`` (the same score on different sides),
    ``partners`` (the same side)."""
    effect_a: Effect | None
    effect_b: Effect | None


@dataclass(frozen=True)
class HeadToHead:
    discipline: str
    list_month: Month | None
    """The month of the current list the effects are read in (None: no list yet)."""
    count: int = 0
    a_higher: int = 0
    b_higher: int = 0
    ties: int = 0
    partners: int = 0
    meetings: tuple[Meeting, ...] = ()

    @property
    def shown(self) -> int:
        return len(self.meetings)

    @property
    def in_number_a(self) -> float:
        """What the shown shared matches add to player a's number now."""
        return sum(m.effect_a.in_number for m in self.meetings if m.effect_a is not None)

    @property
    def in_number_b(self) -> float:
        return sum(m.effect_b.in_number for m in self.meetings if m.effect_b is not None)


def _higher(match: sql.SharedMatch) -> str:
    if match.side_a == match.side_b:
        return "partners"
    if match.score_a == match.score_b:
        return "tie"
    return "a" if match.score_a > match.score_b else "b"


def _effect(result: CountedResult | None) -> Effect | None:
    if result is None:
        return None
    return Effect(
        points=result.points,
        weight_twelfths=result.weight_twelfths,
        weighted=result.weighted,
        in_best=result.in_best,
    )


def _sides(members: list[sql.MemberRow]) -> dict[int, TableSide]:
    """The table's sides by side position, each with its place (1 + sides that scored more)."""
    seated: dict[int, list[sql.MemberRow]] = defaultdict(list)
    for member in members:
        seated[member.side_position].append(member)
    scores = {position: rows[0].score for position, rows in seated.items()}
    return {
        position: TableSide(
            score=scores[position],
            place=1 + sum(1 for s in scores.values() if s > scores[position]),
            players=tuple(PlayerRef(player_id=m.player_id, name=m.name) for m in rows),
        )
        for position, rows in seated.items()
    }


def head_to_head(player_a: int, player_b: int, *, discipline: str) -> HeadToHead:
    """The shared matches of two different players in ``discipline``, newest first."""
    if player_a == player_b:
        raise ValueError("a head-to-head needs two different players")
    shared = sql.SHARED_MATCH.rows(sql.shared_matches(player_a, player_b, discipline))
    current = current_list(discipline=discipline)
    month = current.list_month if current is not None else None
    outcomes = [_higher(match) for match in shared]
    found = HeadToHead(
        discipline=discipline,
        list_month=month,
        count=len(shared),
        a_higher=outcomes.count("a"),
        b_higher=outcomes.count("b"),
        ties=outcomes.count("tie"),
        partners=outcomes.count("partners"),
    )
    shown = shared[:MAX_SHOWN]
    if not shown:
        return found
    pks = [match.match_id for match in shown]
    tables: dict[int, list[sql.MemberRow]] = defaultdict(list)
    for member in sql.MEMBER_ROWS.rows(sql.match_members(pks)):
        tables[member.match_id].append(member)
    worth: list[dict[int, CountedResult]] = [{}, {}]
    if month is not None:
        for n, player in enumerate((player_a, player_b)):
            counted = counted_results(player, discipline=discipline, month=month)
            worth[n] = {result.match_pk: result for result in counted.results}
    meetings = []
    for match, higher in zip(shown, outcomes, strict=False):
        sides = _sides(tables[match.match_id])
        first = tables[match.match_id][0]
        meetings.append(
            Meeting(
                match_pk=match.match_id,
                match_id=first.external_id,
                club_id=first.club_id,
                club_name=first.club_name,
                date_played=match.date_played,
                category=first.category,
                sides=tuple(sorted(sides.values(), key=lambda side: -side.score)),
                place_a=sides[match.side_a].place,
                place_b=sides[match.side_b].place,
                higher=higher,
                effect_a=_effect(worth[0].get(match.match_id)),
                effect_b=_effect(worth[1].get(match.match_id)),
            )
        )
    return replace(found, meetings=tuple(meetings))
