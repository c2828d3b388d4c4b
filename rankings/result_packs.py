"""Packs of counted results: a close reads the points it scored at earlier closes instead
of reading and scoring every result of its window again (PostgreSQL).

A match's points never change once computed (SPEC.md section 4.2): they read the results
of its table and L(M - 1), and published lists are immutable. So the close of R stores,
per counting month it is the first to count, the results of that month with their points
(:class:`~rankings.models.ResultPack`), and the close of a later month reads them back:
of its 12 months of results, only those no pack holds (usually the month being closed)
travel as rows and are scored.

In: a discipline and the month R of a close. Out:

- :func:`plan_read` (in the close's snapshot): the packs the close can use (:class:`Plan`:
  those of the counting months R - 11 .. R made at a close whose window held every result
  the close needs), the months none covers (the close packs them), the matches changed
  since a pack was made, the ids of the strength lists in force;
- :func:`fresh_condition`: what the close reads as rows, appended to the window's
  condition: a result of a month no usable pack covers, or of a changed match;
- :func:`pack_statement`, :func:`pack_groups` and :class:`PackSink`: the packs read on the
  close's connections, each copied into the window (:class:`WindowBuilder`) by the thread
  that read it as soon as it is whole; :class:`Assembled`: the window, the packs' pieces and
  the rows read, with the points known from the packs and NaN for the rest
  (:meth:`Assembled.score_missing` scores those);
- :func:`packs_encode` and :func:`packs_store`: the packs of the months none covered,
  with their points.

Guaranteed: the window assembled is the window read whole (every result counting in
L(R), the same columns), and every known point is the one :func:`rankings.fladub.match_points`
gives today. How: a pack holds the results of one counting month as they stood in the
snapshot ``snapshot`` it was read in; a trigger on ``matches_sidemember`` logs every
change made to a result after (migration 0017: an UPDATE or DELETE, an INSERT into a
packed month, a TRUNCATE); a logged change that a pack's snapshot does not see makes the
close drop that match from the pack and read it again (a TRUNCATE: every pack is set
aside). A pack names, per month played, the version of L(M - 1) its points read; when an
erratum replaced it since, those points are computed again from the pack's columns (it
holds every input of the computation, as the seal's inputs digest needs anyway). A pack
stores a result's void month; results voided by then are not in it. ``verify_list``
reads no pack: a list published from packs is checked against the results themselves.

The format (little-endian, column after column, whole matches in canonical order;
stored as chunks of :data:`CHUNK_BYTES`, :class:`~rankings.models.ResultPackChunk`): per
match ``match_id`` int64, ``month_played`` int32, ``void_month`` int32 (the month index of
a void that takes effect after the pack's close, else -1), ``base`` int16, ``rows``
int16; per result ``points`` float64, ``player`` int32 (a pack is not written for a
player key beyond int32: the next close reads those results as rows), ``score`` int32,
``side_no`` int16. The counting month is the pack's.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

from matches.months import Month

from . import fladub
from .loader import NO_VOID, header_length, in_thread

logger = logging.getLogger(__name__)

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

MATCH_FIELDS: tuple[tuple[str, str], ...] = (
    ("match_id", "<i8"),
    ("month_played", "<i4"),
    ("void_month", "<i4"),
    ("base", "<i2"),
    ("rows", "<i2"),
)
ROW_FIELDS: tuple[tuple[str, str], ...] = (
    ("points", "<f8"),
    ("player", "<i4"),
    ("score", "<i4"),
    ("side_no", "<i2"),
)
MATCH_BYTES = sum(np.dtype(code).itemsize for _, code in MATCH_FIELDS)
ROW_BYTES = sum(np.dtype(code).itemsize for _, code in ROW_FIELDS)
_TABLE = "rankings_resultpack"
_CHUNKS = "rankings_resultpackchunk"
_CHANGES = "rankings_memberchange"
CHUNK_BYTES = 8000


# --- the format -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Columns:
    """One pack's results: per match and per result, the arrays of the format."""

    month: int
    match: dict[str, np.ndarray]
    row: dict[str, np.ndarray]

    @property
    def matches(self) -> int:
        return len(self.match["match_id"])

    @property
    def rows(self) -> int:
        return len(self.row["points"])


def encode(columns: Columns) -> tuple[bytes, bytes]:
    """The two byte strings of a pack (ValueError when a value does not fit the format)."""
    return _join(columns.match, MATCH_FIELDS), _join(columns.row, ROW_FIELDS)


def _join(arrays: dict[str, np.ndarray], fields: Sequence[tuple[str, str]]) -> bytes:
    parts = []
    for name, code in fields:
        values = np.asarray(arrays[name])
        packed = values.astype(code)
        if not np.array_equal(packed, values):
            raise ValueError(f"a pack's {name} does not fit {np.dtype(code).name}")
        parts.append(packed.tobytes())
    return b"".join(parts)


def decode(month: int, matches: int, rows: int, payload: Any) -> Columns:
    """The arrays of a pack's bytes (read-only views of them, no copy)."""
    if len(payload) != matches * MATCH_BYTES + rows * ROW_BYTES:
        raise ValueError(f"the pack of {fladub.month_label(month)} is not its size")
    view = memoryview(payload)
    cut = matches * MATCH_BYTES
    return Columns(
        month=month,
        match=_split(view[:cut], MATCH_FIELDS, MATCH_BYTES),
        row=_split(view[cut:], ROW_FIELDS, ROW_BYTES),
    )


def _split(data: Any, fields: Sequence[tuple[str, str]], width: int) -> dict[str, np.ndarray]:
    if len(data) % width:
        raise ValueError(f"a pack's {len(data)} bytes are not records of {width}")
    count, offset, out = len(data) // width, 0, {}
    for name, code in fields:
        out[name] = np.frombuffer(data, dtype=code, count=count, offset=offset)
        offset += count * np.dtype(code).itemsize
    return out


def columns_of(window: Assembled, void_month: I32, rows: I64, month: int) -> Columns:
    """A pack of ``rows`` (indices of whole matches, in canonical order, all counting in
    ``month``) of the window's columns and points; ``void_month``: those rows' void months."""
    sides, points = window, window.points
    match_id = sides.match_id[rows]
    first = np.flatnonzero(np.r_[True, match_id[1:] != match_id[:-1]]) if len(rows) else rows
    heads = rows[first]
    return Columns(
        month=month,
        match={
            "match_id": match_id[first],
            "month_played": sides.month_played[heads],
            "void_month": void_month[first],
            "base": sides.base[heads],
            "rows": np.diff(np.r_[first, len(rows)]),
        },
        row={
            "points": points[rows],
            "player": sides.player[rows],
            "score": sides.score[rows],
            "side_no": sides.side_no[rows],
        },
    )


# --- what a close reads ---------------------------------------------------------------------


@dataclass(frozen=True)
class PackInfo:
    """A stored pack, without its bytes."""

    id: int
    month: int
    played_from: int
    snapshot: str
    strengths: dict[int, int | None]
    matches: int
    rows: int

    @property
    def bytes(self) -> int:
        return self.matches * MATCH_BYTES + self.rows * ROW_BYTES


@dataclass(frozen=True, eq=False)
class Plan:
    """What the close of ``month`` takes from packs, and what it reads as rows."""

    month: int
    snapshot: str
    packs: tuple[PackInfo, ...]
    uncovered: tuple[int, ...]
    changed: I64
    strength_ids: dict[int, int]

    @property
    def covered(self) -> list[int]:
        return [pack.month for pack in self.packs]

    def stale_months(self, pack: PackInfo) -> list[int]:
        """The months played whose points in ``pack`` read another version of L(M - 1)
        than the one in force now (an erratum since)."""
        return stale_months(pack.strengths, self.strength_ids)


def strengths_read(played: Iterable[int], strength_ids: Mapping[int, int]) -> dict[str, int | None]:
    """The versions of the strength lists the points of the months ``played`` (indices)
    read, as a pack stores them (``strengths``: month played ``YYYY-MM`` -> id of L(M - 1),
    None where none was published). ``strength_ids``: month index -> id of its list. The
    players' packs of points (:mod:`rankings.player_packs`) store them so too."""
    return {fladub.month_label(m): strength_ids.get(m - 1) for m in played}


def strengths_stored(stored: str | Mapping[str, Any]) -> dict[int, int | None]:
    """A pack's ``strengths`` as read back (JSON text or already decoded), by month played
    (index)."""
    found = json.loads(stored) if isinstance(stored, str) else stored
    return {
        Month.parse(key).index: (None if value is None else int(value))
        for key, value in found.items()
    }


def stale_months(strengths: Mapping[int, int | None], strength_ids: Mapping[int, int]) -> list[int]:
    """The months played of ``strengths`` (:func:`strengths_stored`) whose version of
    L(M - 1) is not the one in ``strength_ids`` (month index -> id of the list in force)."""
    return [
        played for played, list_id in strengths.items() if list_id != strength_ids.get(played - 1)
    ]


def plan_read(discipline: str, month: Month, strength_ids: dict[int, int]) -> Plan:
    """The packs the close of ``month`` can use (in the caller's transaction, whose
    snapshot it reads in: PostgreSQL only). ``strength_ids``: month index -> id of the
    published list in force (L(M - 1) for a match of M)."""
    first = month.index + 1 - fladub.WINDOW_MONTHS
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_snapshot()::text")
        snapshot = str(cursor.fetchone()[0])
        stored = _stored(cursor, discipline, month)
        # A pack made at a close whose window began after R - 11 lacks results R needs.
        usable = [pack for pack in stored if pack.played_from <= first]
        changed, everything = _changes(cursor, [pack.snapshot for pack in usable])
    if everything:
        logger.warning("results were truncated since the packs were made: none is used")
        usable = []
    return Plan(
        month=month.index,
        snapshot=snapshot,
        packs=tuple(usable),
        uncovered=_uncovered(stored, month),
        changed=changed,
        strength_ids=dict(strength_ids),
    )


def uncovered_months(discipline: str, month: Month) -> tuple[int, ...]:
    """The counting months of L(``month``)'s window that no pack holds (one statement:
    what :func:`plan_read` calls ``uncovered``, without a plan)."""
    with connection.cursor() as cursor:
        return _uncovered(_stored(cursor, discipline, month), month)


def _stored(cursor: Any, discipline: str, month: Month) -> list[PackInfo]:
    """The discipline's packs of the counting months of L(``month``)'s window."""
    first = month + (1 - fladub.WINDOW_MONTHS)
    cursor.execute(
        f"SELECT id, month, played_from, snapshot, strengths, matches, rows "  # noqa: S608
        f"FROM {_TABLE} WHERE discipline = %s AND month >= %s AND month <= %s "
        "ORDER BY month",
        [discipline, first.first_day, month.first_day],
    )
    return [_info(row) for row in cursor.fetchall()]


def _uncovered(stored: Iterable[PackInfo], month: Month) -> tuple[int, ...]:
    first = month.index + 1 - fladub.WINDOW_MONTHS
    packed = {pack.month for pack in stored}
    return tuple(m for m in range(first, month.index + 1) if m not in packed)


def _info(row: Sequence[Any]) -> PackInfo:
    return PackInfo(
        id=int(row[0]),
        month=Month.of(row[1]).index,
        played_from=Month.of(row[2]).index,
        snapshot=str(row[3]),
        strengths=strengths_stored(row[4]),
        matches=int(row[5]),
        rows=int(row[6]),
    )


def _changes(cursor: Any, snapshots: list[str]) -> tuple[I64, bool]:
    """The matches changed after any of ``snapshots`` (sorted), and whether a change
    concerned every match (a TRUNCATE)."""
    if not snapshots:
        return np.zeros(0, dtype=np.int64), False
    cursor.execute(
        f"SELECT DISTINCT c.match_id FROM {_CHANGES} c "  # noqa: S608
        "WHERE EXISTS (SELECT 1 FROM unnest(%s::text[]) s "
        "WHERE NOT pg_visible_in_snapshot(c.xid, s::pg_snapshot))",
        [snapshots],
    )
    ids = [row[0] for row in cursor.fetchall()]
    everything = any(match_id is None for match_id in ids)
    found = np.array(sorted(i for i in ids if i is not None), dtype=np.int64)
    return found, everything


def fresh_condition(plan: Plan) -> tuple[str, dict[str, Any]]:
    """What the close reads as rows besides the packs (appended to the window's
    condition, unaliased): results of a month no usable pack covers, or of a changed
    match. Said positively, so that PostgreSQL finds them by index (``member_window``,
    ``member_once_per_match``) instead of reading the whole table: a result of the
    window counts in one of its 12 months."""
    covered = set(plan.covered)
    first = plan.month + 1 - fladub.WINDOW_MONTHS
    months = [m for m in range(first, plan.month + 1) if m not in covered]
    condition = "(counting_month = ANY(%(read_months)s) OR match_id = ANY(%(changed)s))"
    return condition, {
        "read_months": [Month.from_index(m).first_day for m in months],
        "changed": [int(m) for m in plan.changed],
    }


_buffers = threading.local()


def pack_statement(pack_ids: Sequence[int]) -> str:
    """A binary ``COPY`` of the chunks of packs ``pack_ids``, pack after pack, in order."""
    ids = ",".join(str(int(i)) for i in pack_ids)
    return (
        f"COPY (SELECT pack_id, data FROM {_CHUNKS} WHERE pack_id IN ({ids}) "  # noqa: S608
        "ORDER BY pack_id, seq) TO STDOUT (FORMAT binary)"
    )


def pack_groups(packs: Sequence[PackInfo], groups: int) -> list[list[PackInfo]]:
    """The packs dealt into ``groups`` statements of about equal bytes (largest first)."""
    shares: list[list[PackInfo]] = [[] for _ in range(max(1, min(groups, len(packs))))]
    sizes = [0] * len(shares)
    for info in sorted(packs, key=lambda info: -info.bytes):
        emptiest = sizes.index(min(sizes))
        shares[emptiest].append(info)
        sizes[emptiest] += info.bytes
    return [sorted(share, key=lambda info: info.id) for share in shares if share]


class PackSink:
    """Reads the ``COPY`` of some packs (:func:`pack_statement`) as it arrives: each chunk
    copied at its place in a buffer of its pack's size, its message let go at once, and
    ``done(info, payload)`` called as soon as a pack is whole (in the reading thread,
    before the next pack: ``payload`` is a view of the thread's buffer, which serves the
    next pack too). A close reads eleven packs on two connections into two buffers;
    keeping the messages until the end held every pack's bytes at once, twice."""

    def __init__(self, packs: Sequence[PackInfo], done: Callable[[PackInfo, memoryview], None]):
        self._packs = {info.id: info for info in packs}
        # A pack of a month without results has no chunk: it is whole at once.
        self._empty = [info for info in packs if not info.bytes]
        self._left = sorted(info.id for info in packs if info.bytes)
        self._done = done
        self._current: PackInfo | None = None
        self._at = 0
        self._started = False
        self._ended = False
        self._buffer = bytearray()

    def feed(self, message: Any) -> None:
        view = memoryview(message)
        at = 0
        if not self._started:
            at, self._started = header_length(view), True
            for info in self._empty:
                self._done(info, memoryview(b""))
        while at < len(view):
            fields = int.from_bytes(view[at : at + 2], "big", signed=True)
            if self._ended:
                raise ValueError("a pack's COPY goes on after its trailer")
            if fields == -1:
                self._finish()
                self._ended, at = True, at + 2
                if self._left:
                    raise ValueError(f"packs {self._left} have no chunks")
                continue
            if fields != 2 or int.from_bytes(view[at + 2 : at + 6], "big") != 8:
                raise ValueError("a pack's COPY is not made of (pack, chunk) rows")
            pack_id = int.from_bytes(view[at + 6 : at + 14], "big", signed=True)
            length = int.from_bytes(view[at + 14 : at + 18], "big", signed=True)
            data = at + 18
            if self._current is None or pack_id != self._current.id:
                self._start(pack_id)
            assert self._current is not None  # noqa: S101
            end = self._at + length
            if length < 0 or data + length > len(view) or end > self._current.bytes:
                raise ValueError("a pack's COPY is not made of whole chunks of its size")
            self._buffer[self._at : end] = view[data : data + length]
            self._at, at = end, data + length

    def _start(self, pack_id: int) -> None:
        self._finish()
        if not self._left or pack_id != self._left[0]:
            raise ValueError(f"pack {pack_id} comes out of order or was not asked for")
        self._left.pop(0)
        self._current, self._at = self._packs[pack_id], 0
        self._buffer = _thread_buffer(self._current.bytes)

    def _finish(self) -> None:
        if self._current is None:
            return
        info, self._current = self._current, None
        if self._at != info.bytes:
            raise ValueError(f"the pack of {fladub.month_label(info.month)} is not its size")
        self._done(info, memoryview(self._buffer)[: info.bytes])


def buffer_release() -> None:
    """Let go of this thread's pack buffer (the close's own thread, once it has read)."""
    _buffers.buffer = None


def _thread_buffer(size: int) -> bytearray:
    buffer: bytearray | None = getattr(_buffers, "buffer", None)
    if buffer is None or len(buffer) < size:
        buffer = _buffers.buffer = bytearray(size)
    return buffer


# --- the window from packs and rows -------------------------------------------------------------


class Assembled:
    """The close's window as columns: the packs' results and the rows read, in pieces
    (one per pack, one for the rows read), each piece in canonical order. Narrow where
    the values allow (``base`` int16, ``side_no`` int16, ``score`` int32: 40 bytes a
    result here, 58 as :class:`rankings.fladub.Sides` with its points); the columns of
    the window read whole, and what :func:`rankings.seal.inputs_digest` hashes.
    ``points``: the packs' points, NaN where a result is to be scored
    (:meth:`score_missing`). ``fresh``: the slice of the rows read, ``fresh_void`` their
    void months (:data:`NO_VOID` for none); ``pieces``: each piece's first and last
    match id and its slice."""

    def __init__(
        self,
        columns: dict[str, np.ndarray],
        *,
        fresh: slice,
        fresh_void: I32,
        pieces: Sequence[tuple[int, int, slice]],
        months: set[int],
    ) -> None:
        self.match_id: I64 = columns["match_id"]
        self.month_played: I32 = columns["month_played"]
        self.counting_month: I32 = columns["counting_month"]
        self.base: np.ndarray = columns["base"]
        self.side_no: np.ndarray = columns["side_no"]
        self.score: np.ndarray = columns["score"]
        self.player: I64 = columns["player"]
        self.points: F64 = columns["points"]
        self.fresh, self.fresh_void = fresh, fresh_void
        self.pieces = tuple(pieces)
        self._months = months

    @classmethod
    def of_rows(cls, sides: fladub.Sides, void_month: I32) -> Assembled:
        """The window when no pack holds any of it (the first close after the upgrade, or
        after a TRUNCATE, reads all 12 months as rows): the rows' own columns, but
        ``base`` and ``score`` made narrow (the caller lets go of the wide ones)."""
        n = len(sides)
        columns = {name: getattr(sides, name) for name in _COLUMNS if name != "points"}
        columns["base"] = sides.base.astype(_COLUMNS["base"])
        columns["score"] = sides.score.astype(_COLUMNS["score"])
        first, last = (int(sides.match_id[0]), int(sides.match_id[-1])) if n else (0, 0)
        return cls(
            {**columns, "points": np.full(n, np.nan)},
            fresh=slice(0, n),
            fresh_void=void_month,
            pieces=[(first, last, slice(0, n))] if n else [],
            months=set(np.unique(sides.month_played).tolist()),
        )

    def __len__(self) -> int:
        return len(self.match_id)

    def months_played(self) -> list[int]:
        """The months played present, ascending."""
        return sorted(self._months)

    def take(self, rows: I64 | slice) -> fladub.Sides:
        """The rows ``rows`` as :class:`rankings.fladub.Sides` (a slice: views, no copy)."""
        return fladub.Sides(
            match_id=self.match_id[rows],
            month_played=self.month_played[rows],
            counting_month=self.counting_month[rows],
            base=self.base[rows],
            side_no=self.side_no[rows],
            score=self.score[rows],
            player=self.player[rows],
        )

    def score_missing(self, published: Mapping[int, fladub.PublishedList]) -> int:
        """Compute the points still NaN (whole matches: the rows read, the packs' rows
        whose strength list was replaced), in place; return how many."""
        nan = np.isnan(self.points)
        count = int(np.count_nonzero(nan))
        if not count:
            return 0
        first = int(nan.argmax())
        # Most often one run of rows (the rows read; the first close's whole window): then
        # views of the columns, not a copy of them (12 million rows: 0.5 GB).
        run = bool(nan[first : first + count].all())
        missing: I64 | slice = slice(first, first + count) if run else np.flatnonzero(nan)
        del nan
        scored = self.take(missing)
        if not scored.is_canonical():
            order = np.lexsort((scored.player, scored.side_no, scored.match_id))
            missing = order + first if isinstance(missing, slice) else missing[order]
            scored = scored.take(order)
        self.points[missing] = fladub.match_points(scored, published).points
        return count

    def results(self) -> fladub.Results:
        """The window's results with their points (all computed: :meth:`score_missing`)."""
        return fladub.Results(
            match_id=self.match_id,
            month_played=self.month_played,
            counting_month=self.counting_month,
            player=self.player,
            points=self.points,
        )

    def canonical_order(self) -> list[slice] | I64 | None:
        """How to read the window in canonical order: None when it stands in that order;
        the pieces' slices in the order of their match ids when the pieces do not
        overlap (match ids follow receipt, and a pack holds a month of receipts); else
        the permutation (a match lies in one piece, so a stable sort of the match ids
        merges the pieces and keeps each match's rows in their order)."""
        by_id = sorted(self.pieces, key=lambda piece: piece[0])
        if any(by_id[i][1] >= by_id[i + 1][0] for i in range(len(by_id) - 1)):
            return np.argsort(self.match_id, kind="stable")
        if [piece[2] for piece in by_id] == [piece[2] for piece in self.pieces]:
            return None
        return [piece[2] for piece in by_id]


_COLUMNS = {
    "match_id": np.int64,
    "month_played": np.int32,
    "counting_month": np.int32,
    "base": np.int16,
    "side_no": np.int16,
    "score": np.int32,
    "player": np.int64,
    "points": np.float64,
}


class WindowBuilder:
    """Builds the :class:`Assembled` window of a plan, pack by pack as each arrives (from
    any thread: a pack is copied in by the thread that read it, while the other
    connections still read) and then the rows read. The columns have room for every
    result of every pack and some for the rows read: room never written takes no memory
    (the kernel maps a page when it is first written)."""

    def __init__(self, plan: Plan) -> None:
        largest = max((info.rows for info in plan.packs), default=0)
        room = sum(info.rows for info in plan.packs) + 3 * largest + 16 * len(plan.changed)
        self.plan = plan
        self.col: dict[str, np.ndarray] = {
            name: np.empty(room + (1 << 16), dtype) for name, dtype in _COLUMNS.items()
        }
        self.at = 0
        self.pieces: list[tuple[int, int, slice]] = []
        self.months: set[int] = set()
        self._lock = threading.Lock()

    def _reserve(self, n: int, first: int, last: int, months: Iterable[int]) -> slice:
        with self._lock:
            if self.at + n > len(self.col["match_id"]):
                self._grow(self.at + n)
            rows = slice(self.at, self.at + n)
            self.at += n
            self.pieces.append((first, last, rows))
            self.months.update(months)
        return rows

    def _grow(self, rows: int) -> None:
        for name, column in self.col.items():
            grown = np.empty(rows, column.dtype)
            grown[: self.at] = column[: self.at]
            self.col[name] = grown

    def add_pack(self, info: PackInfo, pack: Columns) -> None:
        """Copy in the results of ``pack`` (stored as ``info``) that count in the plan's
        month and did not change since."""
        plan = self.plan
        month, first = plan.month, plan.month + 1 - fladub.WINDOW_MONTHS
        if pack.matches != info.matches or pack.rows != info.rows:
            raise ValueError(f"the pack of {fladub.month_label(info.month)} is not its size")
        m, r = pack.match, pack.row
        keep = m["month_played"] >= first
        keep &= (m["void_month"] == NO_VOID) | (m["void_month"] > month)
        if len(plan.changed):
            keep &= ~_member_of(m["match_id"], plan.changed)
        kept = m["rows"][keep].astype(np.int64)
        n = int(kept.sum())
        if not n:
            return
        match_id = m["match_id"][keep]
        played = m["month_played"][keep]
        at = self._reserve(n, int(match_id[0]), int(match_id[-1]), np.unique(played).tolist())
        col = self.col
        col["match_id"][at] = np.repeat(match_id, kept)
        col["month_played"][at] = np.repeat(played, kept)
        col["base"][at] = np.repeat(m["base"][keep], kept)
        col["counting_month"][at] = pack.month
        rows = None if keep.all() else np.repeat(keep, m["rows"].astype(np.int64))
        for name in ("points", "player", "score", "side_no"):
            col[name][at] = r[name] if rows is None else r[name][rows]
        stale = plan.stale_months(info)
        if stale:
            points = col["points"][at]
            points[np.isin(col["month_played"][at], stale)] = np.nan

    def add_rows(self, sides: fladub.Sides, void_month: I32) -> None:
        """Copy in the rows read (in canonical order), points to be scored; last."""
        self.fresh_void = void_month
        n = len(sides)
        if not n:
            self.fresh = slice(self.at, self.at)
            return
        months = np.unique(sides.month_played).tolist()
        at = self._reserve(n, int(sides.match_id[0]), int(sides.match_id[-1]), months)
        for name in ("match_id", "month_played", "counting_month", "base", "side_no", "score"):
            self.col[name][at] = getattr(sides, name)
        self.col["player"][at] = sides.player
        self.col["points"][at] = np.nan
        self.fresh = at

    def finish(self) -> Assembled:
        return Assembled(
            {name: column[: self.at] for name, column in self.col.items()},
            fresh=self.fresh,
            fresh_void=self.fresh_void,
            pieces=self.pieces,
            months=self.months,
        )


def _member_of(values: I64, sorted_set: I64) -> np.ndarray:
    at = np.searchsorted(sorted_set, values)
    at[at == len(sorted_set)] = 0
    return sorted_set[at] == values


# --- writing ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Encoded:
    """A pack ready to store: its counting month, sizes, strengths and bytes."""

    month: int
    matches: int
    rows: int
    strengths: dict[str, int | None]
    payload: bytes


def packs_encode(plan: Plan, window: Assembled) -> list[Encoded]:
    """The packs of the months ``plan`` found uncovered (with results or not: an empty
    pack says the month has none), the window's points all computed. A month holding a
    value the format cannot (a player key beyond int32) is left unpacked, with a warning:
    the next close reads it as rows."""
    sides, fresh = window, window.fresh
    encoded = []
    for month in plan.uncovered:
        # A month no pack covered is read as rows only: its rows are the fresh piece's
        # (whole matches, in canonical order).
        at = np.flatnonzero(sides.counting_month[fresh] == month)
        columns = columns_of(window, window.fresh_void[at], at + fresh.start, month)
        try:
            match_bytes, row_bytes = encode(columns)
        except ValueError as exc:
            logger.warning("the results of %s are not packed: %s", fladub.month_label(month), exc)
            continue
        played = np.unique(columns.match["month_played"]).tolist()
        encoded.append(
            Encoded(
                month=month,
                matches=columns.matches,
                rows=columns.rows,
                strengths=strengths_read(played, plan.strength_ids),
                payload=match_bytes + row_bytes,
            )
        )
    return encoded


def packs_store(
    *,
    discipline: str,
    plan: Plan,
    packs: Sequence[Encoded],
    connect: Callable[[], Any],
    now: dt.datetime,
) -> int:
    """Store ``packs`` (:func:`packs_encode`) on a connection of their own (``connect()``),
    in one transaction. Returns the number stored (a month packed meanwhile, by a retry,
    is left as it is: the same results)."""
    if not packs:
        return 0
    started = time.perf_counter()
    played_from = Month.from_index(plan.month + 1 - fladub.WINDOW_MONTHS).first_day
    conn = connect()
    written = 0
    try:
        with conn.transaction(), conn.cursor() as cursor:
            for pack in packs:
                cursor.execute(
                    f"INSERT INTO {_TABLE} (discipline, month, played_from, snapshot, "  # noqa: S608
                    "strengths, matches, rows, created_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (discipline, month) DO NOTHING RETURNING id",
                    [
                        discipline,
                        Month.from_index(pack.month).first_day,
                        played_from,
                        plan.snapshot,
                        json.dumps(pack.strengths),
                        pack.matches,
                        pack.rows,
                        now,
                    ],
                )
                stored = cursor.fetchone()
                if stored is not None:
                    _chunks_copy(cursor, int(stored[0]), pack.payload)
                    written += 1
    finally:
        conn.close()
    logger.info(
        "packed the results of %d month(s) in %.3f s", written, time.perf_counter() - started
    )
    return written


def packs_write(
    *,
    discipline: str,
    plan: Plan,
    window: Assembled,
    connect: Callable[[], Any],
    now: dt.datetime,
) -> int:
    """:func:`packs_encode` then :func:`packs_store`."""
    packs = packs_encode(plan, window)
    return packs_store(discipline=discipline, plan=plan, packs=packs, connect=connect, now=now)


def _chunks_copy(cursor: Any, pack_id: int, payload: bytes) -> None:
    """The pack's bytes as chunks, by one binary ``COPY``."""
    view = memoryview(payload)
    with cursor.copy(f"COPY {_CHUNKS} (pack_id, seq, data) FROM STDIN (FORMAT binary)") as copy:
        copy.set_types(["int8", "int4", "bytea"])
        for seq, start in enumerate(range(0, len(view), CHUNK_BYTES)):
            copy.write_row((pack_id, seq, view[start : start + CHUNK_BYTES]))


def packs_store_later(**kwargs: Any) -> Callable[[], int]:
    """:func:`packs_store` in a thread; the returned function waits for it and returns its
    count (0, with the error logged, when it failed: a pack is an optimisation, and the
    next close reads those results as rows)."""
    discipline = kwargs["discipline"]

    def store() -> int:
        try:
            return packs_store(**kwargs)
        except Exception:
            logger.exception("could not pack the results of %s", discipline)
            return 0
        finally:
            kwargs.clear()  # the bytes: freed once stored, not when waited for

    return in_thread(store, name="fido-result-packs").result


def months_of(packs: Iterable[PackInfo]) -> list[str]:
    return [fladub.month_label(pack.month) for pack in packs]


# --- the change log's upkeep ------------------------------------------------------------------

PRUNE_CHANGES = f"""
DELETE FROM {_CHANGES} c
WHERE NOT EXISTS (
    SELECT 1 FROM {_TABLE} p
    LEFT JOIN (
        SELECT discipline, max(month) AS latest FROM rankings_rankinglist
        WHERE status IN ('published', 'superseded') GROUP BY discipline
    ) l ON l.discipline = p.discipline
    WHERE (l.latest IS NULL OR p.month >= l.latest - interval '{fladub.WINDOW_MONTHS - 1} months')
      AND NOT pg_visible_in_snapshot(c.xid, p.snapshot::pg_snapshot)
)
AND NOT EXISTS (
    SELECT 1 FROM (SELECT DISTINCT snapshot FROM rankings_playerpointspack) q
    WHERE NOT pg_visible_in_snapshot(c.xid, q.snapshot::pg_snapshot)
)"""  # noqa: S608 (constants only)
"""The changes no pack a close may still read needs (:func:`changes_prune`), nor any
player's pack of points (:mod:`rankings.player_packs`: a batch of players shares one
snapshot, so there are a few dozen distinct ones)."""


def changes_prune(cursor: Any) -> int:
    """Delete the logged changes that every pack a future close may read already sees;
    return how many. Such a pack is one of a month from the discipline's latest published
    month L - 11 on (the close of L + 1 reads L - 10 .. L; a retried close of L, L - 11 ..
    L), or any pack of a discipline with no published list. A change every one of them
    sees tells no close anything, and a pack made later sees it too (its snapshot is
    later). A change some player's pack of points does not see stays too (its reader
    reads that match again). The caller holds every discipline's close lock: a close
    under way may be making packs in a snapshot older than a change it has not read,
    before they are visible here."""
    cursor.execute(PRUNE_CHANGES)
    return int(cursor.rowcount)
