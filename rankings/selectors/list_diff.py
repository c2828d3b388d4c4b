"""Who moved between two published lists: two versions of a month (an erratum) or a month
and the one before.

In: a discipline, the month of the newer list and its version (None: the latest), and what
to compare it with: a version of the same month, another month (its latest version), or
None (the version before, else the previous month's latest list). Out: :class:`ListDiff`:
both lists and a page of the players whose place or FLADUB differs (in the newer list's
order, then those who left it), with the number of such players, and the corrections and
voids that caused the moves: those made between the two lists' publications that touch
the newer list's month (:func:`rankings.selectors.errata.corrections`), each row with the
ones of the player's own matches (numbered from 1; none: the player moved through other
players' results, opponent strength or the ranks around them). Raises
:class:`NothingToCompare` naming what is missing. Two queries for the rows, whatever the
lists' sizes, plus one per list looked up, three for the corrections and one for the
players of the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from matches.models import Player
from matches.months import Month

from .. import sql
from ..sql import COUNT, DIFF_ROW, DiffRow, ListInfo
from .errata import Correction, corrections
from .lists import published_list

__all__ = [
    "Correction",
    "DiffLine",
    "DiffRow",
    "ListDiff",
    "NothingToCompare",
    "against_parse",
    "list_diff",
]

_VERSION = re.compile(r"[1-9][0-9]{0,5}")


class NothingToCompare(LookupError):
    """One of the two lists does not exist (the message says which, in English)."""


@dataclass(frozen=True)
class DiffLine:
    """A row of the diff and the corrections (numbers into ``ListDiff.corrections``,
    from 1) of the player's own matches that caused it."""

    row: DiffRow
    causes: list[int]


@dataclass(frozen=True)
class ListDiff:
    old: ListInfo
    new: ListInfo
    rows: list[DiffRow]
    total: int
    """How many players differ (the rows are a page of them)."""
    corrections: list[Correction] = field(default_factory=list)
    """The corrections and voids made between the two lists that touch the newer one."""
    lines: list[DiffLine] = field(default_factory=list)
    """The rows with their causes, in the same order."""


def against_parse(raw: str) -> int | Month | None:
    """What a reader asked to compare with (``from=``): a version number (``2``), a month
    (``2026-02``) or nothing (empty), taken exactly as sent (the API's schema says the same:
    ``rankings.apis.diff.FROM_PATTERN``). Raises ``ValueError`` for anything else."""
    if not raw:
        return None
    if _VERSION.fullmatch(raw):
        return int(raw)
    return Month.parse(raw)


def _other(discipline: str, new: ListInfo, against: int | Month | None) -> ListInfo:
    month = new.list_month
    if isinstance(against, Month):
        found = published_list(discipline=discipline, month=against)
        what = f"no published {discipline} list for {against}"
    elif against is not None:
        found = published_list(discipline=discipline, month=month, edition=against)
        what = f"no version {against} of the {discipline} list for {month}"
    elif (before := (new.edition or 1) - 1) >= 1:
        found = published_list(discipline=discipline, month=month, edition=before)
        what = f"no version {before} of the {discipline} list for {month}"
    else:
        found = published_list(discipline=discipline, month=month.prev())
        what = f"no published {discipline} list for {month.prev()} to compare with"
    if found is None:
        raise NothingToCompare(what)
    return found


def list_diff(
    *,
    discipline: str,
    month: Month,
    version: int | None = None,
    against: int | Month | None = None,
    limit: int = 100,
    offset: int = 0,
) -> ListDiff:
    new = published_list(discipline=discipline, month=month, edition=version)
    if new is None:
        which = f"version {version} of the " if version is not None else "published "
        raise NothingToCompare(f"no {which}{discipline} list for {month}")
    old = _other(discipline, new, against)
    rows = DIFF_ROW.rows(sql.list_diff(old.id, new.id, limit=limit, offset=offset))
    total = COUNT.rows(sql.list_diff_count(old.id, new.id))[0].count
    found = _causes(discipline, old, new)
    pks = (
        dict(
            Player.objects.filter(player_id__in=[r.player_id for r in rows]).values_list(
                "player_id", "pk"
            )
        )
        if found and rows
        else {}
    )
    lines = [
        DiffLine(
            row=row,
            causes=[n for n, c in enumerate(found, start=1) if pks.get(row.player_id) in c.players],
        )
        for row in rows
    ]
    return ListDiff(old=old, new=new, rows=rows, total=total, corrections=found, lines=lines)


def _causes(discipline: str, old: ListInfo, new: ListInfo) -> list[Correction]:
    """The corrections and voids made between the two publications touching ``new`` (none
    when ``old`` was published after ``new``: such a move is not caused by a correction
    the newer list holds)."""
    if old.published_at is None or new.published_at is None:
        return []
    if old.published_at >= new.published_at:
        return []
    found = corrections(discipline, after=old.published_at, until=new.published_at)
    return [c for c in found if c.touches(new.list_month)]
