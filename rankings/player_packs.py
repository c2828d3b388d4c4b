"""Packs of a busy player's match points: the player page and the API read a player's
points from one row instead of reading and scoring every match of the player again
(PostgreSQL; :class:`~rankings.models.PlayerPointsPack`).

A match's points never change once computed (SPEC.md section 4.2: they read the results of
its table and L(M - 1), and a published list is immutable), so after the close of R a task
stores, for every player with many results, their results of counting months R - 12 .. R
with their points: what :func:`rankings.selectors.counting_results.player_points` computes
for the lists L(R - 1) and L(R). A reader of any span of lists from L(R - 1) on takes the
pack's rows that count in it and reads as rows, and scores, only what the pack cannot say:

- the results of counting months after R (the open month, or lists closed since);
- the matches a change logged after the pack's snapshot touched (``rankings_memberchange``,
  migration 0017: a void, a correction's void of its old revision, a merge or its undo,
  anything done by hand; an INSERT into a month a pack covers, migration 0018), dropped
  from the pack and read again; a TRUNCATE makes the pack unusable;
- the months played whose strength list L(M - 1) an erratum replaced since: the pack names
  the version each month's points read (:attr:`Stored.strengths`).

In: a player, a discipline, the earliest list of the span. Out: :func:`read` gives the
latest usable pack (:class:`Stored`: its rows, the changed matches), or None;
:func:`encode` and :func:`decode` give the format, :data:`READ` and :data:`WRITE` its
statements; :func:`read_tables` gives the pack's tables of its matches
(:mod:`rankings.player_tables`), with the players renamed since its snapshot. The writer is
:mod:`rankings.services.player_packs`.

Guaranteed: the rows a reader keeps plus those it reads again are every result of the
span, each with the points :func:`rankings.fladub.match_points` gives today (tested
against the scoring of every result, after each kind of change). The format
(little-endian, column after column, one row per result of the player, in match order):
``match_id`` int64, ``month_played`` int32, ``counting_month`` int32, ``void_month`` int32
(the month index from which a voided result counts no more; :data:`NOT_VOIDED` if it is
not voided), ``points`` float64: :data:`ROW_BYTES` bytes a result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from matches.months import Month

from . import player_tables
from .result_packs import strengths_stored

logger = logging.getLogger(__name__)

ROW_BYTES = 8 + 4 + 4 + 4 + 8
NOT_VOIDED = int(np.iinfo(np.int32).max)
"""The void month of a result not voided (later than any month)."""

_TABLE = "rankings_playerpointspack"
_CHANGES = "rankings_memberchange"
_PLAYER_CHANGES = "rankings_playerchange"


@dataclass(frozen=True)
class Columns:
    """A pack's rows, column by column (month indices)."""

    match_id: np.ndarray
    month_played: np.ndarray
    counting_month: np.ndarray
    void_month: np.ndarray
    points: np.ndarray

    def __len__(self) -> int:
        return len(self.match_id)

    def take(self, rows: np.ndarray) -> Columns:
        return Columns(
            match_id=self.match_id[rows],
            month_played=self.month_played[rows],
            counting_month=self.counting_month[rows],
            void_month=self.void_month[rows],
            points=self.points[rows],
        )


_LAYOUT = (
    ("match_id", "<i8"),
    ("month_played", "<i4"),
    ("counting_month", "<i4"),
    ("void_month", "<i4"),
    ("points", "<f8"),
)


def encode(columns: Columns) -> bytes:
    """The pack's bytes of ``columns`` (in match order)."""
    order = np.argsort(columns.match_id, kind="stable")
    return b"".join(
        np.ascontiguousarray(getattr(columns, name)[order], dtype=dtype).tobytes()
        for name, dtype in _LAYOUT
    )


def decode(data: bytes | memoryview, rows: int) -> Columns:
    """The columns of a pack's bytes (native types: int64, int32 and float64)."""
    if len(data) != rows * ROW_BYTES:
        raise ValueError(f"a pack of {rows} rows holds {len(data)} bytes")
    found: dict[str, np.ndarray] = {}
    at = 0
    for name, dtype in _LAYOUT:
        size = np.dtype(dtype).itemsize * rows
        found[name] = np.frombuffer(data, dtype=dtype, count=rows, offset=at).astype(
            dtype.lstrip("<")
        )
        at += size
    return Columns(**found)


@dataclass(frozen=True)
class StoredTables:
    """The tables of a pack (:mod:`rankings.player_tables`) and the players renamed since
    its snapshot, whose matches' tables the reader reads as rows."""

    tables: player_tables.Tables
    renamed: frozenset[int]


@dataclass(frozen=True)
class Stored:
    """A usable pack of a player: made after the close of ``month`` (a month index)."""

    month: int
    columns: Columns
    strengths: dict[int, int | None]
    """Month played (index) -> id of the version of L(M - 1) the points read (None: none),
    stored as a result pack stores them (:func:`rankings.result_packs.strengths_read`)."""
    changed: np.ndarray
    """The pack's matches changed after its snapshot (int64, sorted)."""
    tables_read: bool = False
    """Whether :attr:`tables` was read with the pack (:func:`read`)."""
    tables: StoredTables | None = None
    """Its tables (None: not read, or none: a pack made before they were packed)."""

    @property
    def first_played(self) -> int:
        """The earliest month played the pack holds results of: R - 12."""
        return self.month - 12


def _unseen(column: str, log: str) -> str:
    """The ``column`` of the rows of the change log ``log`` that the snapshot of the pack
    aliased ``p`` does not see (all of them at or after its ``xmin``: a range of the log's
    index on ``xid``), as an array."""
    return (
        f"ARRAY(SELECT DISTINCT c.{column} FROM {log} c "  # noqa: S608 (constants only)
        "WHERE c.xid >= pg_snapshot_xmin(p.snapshot::pg_snapshot) "
        "AND NOT pg_visible_in_snapshot(c.xid, p.snapshot::pg_snapshot))"
    )


_RENAMED = _unseen("player_id", _PLAYER_CHANGES)
_READ = f"""
SELECT p.month, p.strengths, p.rows, p.data, {_unseen("match_id", _CHANGES)}{{tables}}
FROM {_TABLE} p
WHERE p.player_id = %s AND p.discipline = %s AND p.month <= %s
ORDER BY p.month DESC LIMIT 1
"""  # noqa: S608 (constants only)
READ = _READ.format(tables="")
"""The latest pack of a player made after a close of a month up to the third parameter,
with the matches changed since its snapshot (NULL among them: a TRUNCATE)."""
READ_WITH_TABLES = _READ.format(tables=f", p.tables, {_RENAMED}")
""":data:`READ`, and the pack's tables with the players renamed since its snapshot (as
:data:`TABLES_READ`): what the player page reads, which shows the tables."""

WRITE = f"""
INSERT INTO {_TABLE}
    (player_id, discipline, month, snapshot, strengths, rows, data, tables, created_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (player_id, discipline, month) DO UPDATE SET snapshot = EXCLUDED.snapshot,
    strengths = EXCLUDED.strengths, rows = EXCLUDED.rows, data = EXCLUDED.data,
    tables = EXCLUDED.tables, created_at = EXCLUDED.created_at
"""  # noqa: S608 (constants only)
"""Insert a pack, or replace the player's pack of that month (the writer packs again only
a pack an erratum made stale; one writer of a discipline at a time)."""


TABLES_READ = f"""
SELECT p.tables, {_RENAMED}
FROM {_TABLE} p
WHERE p.player_id = %s AND p.discipline = %s AND p.month = %s
"""  # noqa: S608 (constants only)
"""The tables of a player's pack of a month (NULL: a pack made before tables were packed),
with the players whose id or name changed since its snapshot (NULL among them: a
TRUNCATE)."""


def read_tables(cursor: Any, player_pk: int, discipline: str, month: int) -> StoredTables | None:
    """The tables of the player's pack made after the close of ``month`` (a month index),
    or None: no such pack, one without tables, or a TRUNCATE of the players since."""
    cursor.execute(TABLES_READ, [player_pk, discipline, Month.from_index(month).first_day])
    row = cursor.fetchone()
    return None if row is None else _tables(*row)


def _tables(data: bytes | None, renamed: list[int | None]) -> StoredTables | None:
    """The tables of a pack's row, or None: none, a TRUNCATE of the players since, or
    bytes this code cannot read (another format: logged, and read as rows)."""
    if data is None or any(pk is None for pk in renamed):
        return None
    try:
        tables = player_tables.decode(data)
    except ValueError:
        logger.warning("a player pack's tables are unreadable: read as rows", exc_info=True)
        return None
    return StoredTables(tables=tables, renamed=frozenset(pk for pk in renamed if pk is not None))


PRUNE_PLAYER_CHANGES = f"""
DELETE FROM {_PLAYER_CHANGES} c
WHERE NOT EXISTS (
    SELECT 1 FROM (SELECT DISTINCT snapshot FROM {_TABLE}) q
    WHERE NOT pg_visible_in_snapshot(c.xid, q.snapshot::pg_snapshot)
)"""  # noqa: S608 (constants only)
"""Delete the logged renames that every pack's snapshot sees (a pack made later sees them
too): the writer of every discipline must not be at work, since its batch's snapshot may
be older than a rename, its pack not yet visible here."""


def read(
    cursor: Any, player_pk: int, discipline: str, earliest: Month, *, tables: bool = False
) -> Stored | None:
    """The latest pack of the player usable for a span of lists from L(``earliest``) on
    (one made after the close of ``earliest + 1`` or before: it holds every result played
    from ``earliest - 11`` on), or None: none, or a TRUNCATE of the results since.
    ``tables``: with its tables (:attr:`Stored.tables`), in the same statement."""
    cursor.execute(
        READ_WITH_TABLES if tables else READ, [player_pk, discipline, earliest.next().first_day]
    )
    row = cursor.fetchone()
    if row is None:
        return None
    month, strengths, rows, data, changed = row[:5]
    if any(match_id is None for match_id in changed):
        return None
    return Stored(
        month=Month.of(month).index,
        columns=decode(data, int(rows)),
        strengths=strengths_stored(strengths),
        changed=np.array(sorted(changed), dtype=np.int64),
        tables_read=tables,
        tables=_tables(*row[5:]) if tables else None,
    )
