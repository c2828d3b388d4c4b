"""Who moved between two published lists: two versions of a month (an erratum) or a month
and the one before.

In: a discipline, the month of the newer list and its version (None: the latest), and what
to compare it with: a version of the same month, another month (its latest version), or
None (the version before, else the previous month's latest list). Out: :class:`ListDiff`:
both lists and a page of the players whose place or FLADUB differs (in the newer list's
order, then those who left it), with the number of such players. Raises
:class:`NothingToCompare` naming what is missing. Two queries for the rows, whatever the
lists' sizes, plus one per list looked up.
"""

from __future__ import annotations

from dataclasses import dataclass

from matches.months import Month

from .. import sql
from ..sql import COUNT, DIFF_ROW, DiffRow, ListInfo
from .lists import published_list

__all__ = ["DiffRow", "ListDiff", "NothingToCompare", "list_diff"]


class NothingToCompare(LookupError):
    """One of the two lists does not exist (the message says which, in English)."""


@dataclass(frozen=True)
class ListDiff:
    old: ListInfo
    new: ListInfo
    rows: list[DiffRow]
    total: int
    """How many players differ (the rows are a page of them)."""


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
    return ListDiff(old=old, new=new, rows=rows, total=total)
