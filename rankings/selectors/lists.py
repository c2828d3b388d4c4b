"""The published lists: the current ones, the list of a month, the archive.

In: a discipline (or none: all of them), a month, a player. Out:
:class:`rankings.sql.ListInfo` (id, discipline, month, version, entries, publication time):
a list's entries are read page by page (:mod:`rankings.selectors.list_page`) or whole
(:mod:`rankings.selectors.list_export`).

- :func:`current_lists`: per discipline the list readers see now (the pointer flipped at
  publication) and, for a player, their entry in it; :func:`current_list` of one
  discipline;
- :func:`published_list`: the list of a month (its latest version, or a given version);
- :func:`published_lists`: the archive, every published list newest month first, each
  marked current or not; :func:`discipline_lists` (the ranking page's month switcher),
  :func:`archive` (the archive page's table) and :func:`latest_published` (the feed) are
  views of it;
- :func:`list_tops`: the first ranks of several lists at once (the feed);
- :func:`publication_mark`: what changes at every publication (the feeds' ETag).

Guaranteed: published lists only; one query per function, whatever the number of lists.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from matches.disciplines import CODES
from matches.months import Month

from .. import sql
from ..sql import EntryInfo, ListInfo, ListRow, Published

# With the rows readers receive: views and APIs import them from here, never from the sql module.
__all__ = [
    "Archive",
    "ArchiveRow",
    "CurrentLists",
    "DisciplineLists",
    "EntryInfo",
    "ListInfo",
    "ListRow",
    "Published",
    "archive",
    "current_list",
    "current_lists",
    "discipline_lists",
    "latest_published",
    "list_tops",
    "publication_mark",
    "published_list",
    "published_lists",
]


@dataclass(frozen=True)
class CurrentLists:
    """The lists readers see now, and a player's entry in each that holds them."""

    lists: dict[str, ListInfo]
    entries: dict[str, EntryInfo] = field(default_factory=dict)


def current_lists(*, player_pk: int | None = None) -> CurrentLists:
    """Discipline -> its current published list and, for a player, -> their entry in it."""
    found = sql.CURRENT.rows(sql.current_lists(player_pk))
    return CurrentLists(
        lists={c.ranking_list.discipline: c.ranking_list for c in found},
        entries={c.ranking_list.discipline: c.entry for c in found if c.entry is not None},
    )


def current_list(*, discipline: str) -> ListInfo | None:
    return current_lists().lists.get(discipline)


def published_list(*, discipline: str, month: Month, edition: int | None = None) -> ListInfo | None:
    """The month's list: its latest version, or version ``edition`` (superseded or not)."""
    found = sql.LIST_INFO.rows(sql.published_list(discipline, month, edition))
    return found[0] if found else None


def published_lists(*, discipline: str | None = None) -> list[Published]:
    """Every published list (of ``discipline``, or of all), newest month first, each with
    whether it is its discipline's current one."""
    return sql.PUBLISHED_LIST.rows(sql.published_lists(discipline))


@dataclass(frozen=True)
class DisciplineLists:
    """The published lists of a discipline as the ranking page shows them."""

    current: ListInfo | None
    """The list readers see now (the discipline's current pointer)."""
    of_month: ListInfo | None
    """The list of the requested month, if one was requested and is published."""
    months: list[dt.date]
    """Every published list's month, newest first (the month switcher)."""


def discipline_lists(discipline: str, month: Month | None = None) -> DisciplineLists:
    """The current list, the list of ``month`` and every published month of a discipline."""
    current = of_month = None
    months: list[dt.date] = []
    for published in published_lists(discipline=discipline):
        found = published.ranking_list
        months.append(found.month)
        if published.current:
            current = found
        if month is not None and found.month == month.first_day:
            of_month = found
    return DisciplineLists(current=current, of_month=of_month, months=months)


@dataclass(frozen=True)
class ArchiveRow:
    month: dt.date
    cells: list[ListInfo | None]
    """A cell per discipline, in the disciplines' order (None: no list that month)."""


@dataclass(frozen=True)
class Archive:
    """Every published list: a row per month, newest first."""

    rows: list[ArchiveRow]
    current_ids: set[int]
    total: int


def archive() -> Archive:
    by_month: dict[dt.date, dict[str, ListInfo]] = defaultdict(dict)
    current: set[int] = set()
    found = published_lists()
    for published in found:
        by_month[published.ranking_list.month][published.ranking_list.discipline] = (
            published.ranking_list
        )
        if published.current:
            current.add(published.ranking_list.id)
    rows = [
        ArchiveRow(month, [cells.get(code) for code in CODES])
        for month, cells in sorted(by_month.items(), reverse=True)
    ]
    return Archive(rows=rows, current_ids=current, total=len(found))


def latest_published(limit: int) -> list[ListInfo]:
    """The ``limit`` most recently published lists, every version (an erratum is an entry
    of its own; the version it replaced stays), newest first (the feed)."""
    return sql.LIST_INFO.rows(sql.recent_versions(limit))


def list_tops(list_ids: Sequence[int], max_rank: int) -> dict[int, list[ListRow]]:
    """List id -> its rows of rank <= ``max_rank``, in list order (one query for all)."""
    grouped: dict[int, list[ListRow]] = defaultdict(list)
    if not list_ids:
        return grouped
    for found in sql.LISTED_ROW.rows(sql.top_rows(list_ids, max_rank)):
        grouped[found.list_id].append(found.row)
    return grouped


def publication_mark() -> tuple[int | None, int]:
    """(the newest list version's id, the number of versions, latest and superseded): it
    changes whenever a list or an erratum is published."""
    mark = sql.PUBLICATION_MARK.rows(sql.publication_mark())[0]
    return mark.last_id, mark.versions
