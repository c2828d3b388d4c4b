"""The rows of a list's CSV download, written from the close's arrays by NumPy, for the
seal's content digest (no Django, no database).

In: the players' fields as PostgreSQL's ``COPY ... (FORMAT csv)`` writes them, one line
``id,player_id,name,country`` per player (:func:`player_fields`, which refuses an output
it cannot cut into lines: a field holding a line feed), and a computed list's columns in
list order. Out (:func:`csv_rows`): the bytes of the list's rows exactly as
:func:`rankings.loader.list_csv_sha256` reads them from PostgreSQL (``rank,player_id,name,
country,fladub,results_counted,previous_rank``, ``fladub`` with two decimals, a previous
rank of 0 written as nothing), in blocks of whole lines. The players' part of each line is
PostgreSQL's own bytes, so its quoting is PostgreSQL's; the numbers are written here, in
decimal, as PostgreSQL writes an integer and a ``numeric`` of scale 2.

Why: reading the new list back joined with a million players and sorted by rank took 2 to
3.5 s of PostgreSQL's CPU in every close, on the two cores that also build the list's
indexes (docs/performance.md, "The write stage"); written here, it is a few vector
operations over about 40 MB.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

_LF, _COMMA, _DOT, _MINUS, _ZERO = 10, 44, 46, 45, 48
# Rows written per block: about 300 KB of output, and temporaries (a position per byte)
# that stay in the CPU's caches. With 65,536 rows a block they did not, and the digest
# cost 20% more CPU (137 against 110 ms for 228,269 rows, docs/performance.md); in the
# close it runs beside PostgreSQL's index builds, which need the memory bandwidth too.
BLOCK_ROWS = 8_192
_MAX_ID_DIGITS = 19


@dataclass(frozen=True)
class PlayerFields:
    """Each player's ``player_id,name,country`` as bytes of ``data``: line ``k`` is the
    player of id ``ids[k]``, its fields ``data[start[k]:start[k] + length[k]]``."""

    data: np.ndarray  # uint8
    ids: np.ndarray  # int64
    start: np.ndarray  # int32 (int64 from 2 GiB of text)
    length: np.ndarray  # as ``start``

    def lines(self, player: np.ndarray) -> np.ndarray:
        """The line of each of these player ids; ``KeyError`` if one has none. Ids are
        dense in practice (a sequence): a table by id then, else a binary search."""
        if not len(player):
            return np.zeros(0, dtype=np.int64)
        if len(self.ids) == 0 or player.min() < 0:
            raise KeyError("a listed player has no line in the players' CSV")
        top = int(self.ids.max())
        if top <= 4 * len(self.ids) + 1024:
            if player.max() > top:
                raise KeyError("a listed player has no line in the players' CSV")
            table = np.full(top + 1, -1, dtype=np.int32 if len(self.ids) < 2**31 else np.int64)
            table[self.ids] = np.arange(len(self.ids))
            line = table[player]
        else:
            order = np.argsort(self.ids, kind="stable")
            at = np.minimum(np.searchsorted(self.ids[order], player), len(order) - 1)
            line = np.where(self.ids[order[at]] == player, order[at], -1)
        if line.min() < 0:
            raise KeyError("a listed player has no line in the players' CSV")
        return line


def player_fields(csv: bytes | bytearray, rows: int) -> PlayerFields | None:
    """Index ``csv``: ``rows`` lines ``id,fields\n`` (PostgreSQL's CSV of the players, in
    any order). None when its line feeds are not exactly one per row (a quoted field holds
    one: the lines cannot be told apart without parsing the quotes; the caller then reads
    the list's CSV from PostgreSQL). Offsets are 32-bit below 2 GiB of text: at a million
    players the index is 16 MB beside the text's 35 MB."""
    data = np.frombuffer(csv, dtype=np.uint8)
    offset = np.dtype(np.int32 if len(data) < 2**31 - 1 else np.int64)
    ends: np.ndarray = _line_ends(data).astype(offset)
    if len(ends) != rows or (rows and ends[-1] != len(data) - 1):
        return None
    if rows == 0:
        empty = np.zeros(0, dtype=np.int64)
        return PlayerFields(data, empty, empty.astype(offset), empty.astype(offset))
    # The id is the digits up to the first comma (an integer column is never quoted).
    at: np.ndarray = np.empty(rows, dtype=offset)  # each line's next byte
    at[0] = 0
    np.add(ends[:-1], 1, out=at[1:])
    ids = np.zeros(rows, dtype=np.int64)
    for _ in range(_MAX_ID_DIGITS + 1):
        byte = data[at]
        if (byte == _COMMA).all():
            break
        digit = byte - np.uint8(_ZERO)
        if ((byte != _COMMA) & (digit > 9)).any():
            raise ValueError("players' CSV: a line does not begin with an id")
        reading = byte != _COMMA
        ids[reading] = ids[reading] * 10 + digit[reading]
        at[reading] += 1
    else:
        raise ValueError("players' CSV: an id longer than 19 digits")
    at += 1  # past the comma: the fields
    return PlayerFields(data, ids, at, ends - at)


def _line_ends(data: np.ndarray, chunk: int = 1 << 22) -> np.ndarray:
    """Where ``data``'s line feeds are, found a few MB at a time (no mask of its size)."""
    found = [np.flatnonzero(data[at : at + chunk] == _LF) + at for at in range(0, len(data), chunk)]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def csv_rows(
    fields: PlayerFields,
    *,
    rank: np.ndarray,
    player: np.ndarray,
    fladub_cents: np.ndarray,
    results_counted: np.ndarray,
    previous_rank: np.ndarray,
    block_rows: int = BLOCK_ROWS,
) -> Iterator[bytes]:
    """The list's CSV rows in list order, in blocks of whole lines (see the module).
    Raises ``KeyError`` for a player with no line in ``fields``."""
    lines = fields.lines(np.asarray(player, dtype=np.int64))
    for lo in range(0, len(rank), block_rows):
        part = slice(lo, lo + block_rows)
        yield _block(
            fields,
            rank[part],
            lines[part],
            fladub_cents[part],
            results_counted[part],
            previous_rank[part],
        )


def decimal_digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-negative integers as decimal text: a ``(n, width)`` matrix of ASCII digits,
    right-aligned (the first ``width - length`` columns are padding), and each length
    (``0`` is one digit, as ``str`` writes it)."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and values.min() < 0:
        raise ValueError("decimal_digits: a negative value")
    top = int(values.max()) if len(values) else 0
    width = len(str(top))
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (values[:, None] // powers[None, :]) % 10
    length = np.ones(len(values), dtype=np.int64)
    for k in range(1, width):
        length += values >= 10**k
    return (digits + _ZERO).astype(np.uint8), length


def _block(
    fields: PlayerFields,
    rank: np.ndarray,
    line: np.ndarray,
    cents: np.ndarray,
    counted: np.ndarray,
    previous: np.ndarray,
) -> bytes:
    n = len(rank)
    cents = np.asarray(cents, dtype=np.int64)
    negative = cents < 0
    magnitude = np.abs(cents)
    previous = np.asarray(previous, dtype=np.int64)
    # Each line's pieces in order: (ASCII digits right-aligned, lengths) or a single byte.
    rank_d = decimal_digits(rank)
    units_d = decimal_digits(magnitude // 100)
    hundredths = magnitude % 100
    counted_d = decimal_digits(counted)
    previous_d = decimal_digits(np.where(previous > 0, previous, 0))
    previous_len = np.where(previous > 0, previous_d[1], 0)
    field_start, field_len = fields.start[line], fields.length[line]
    lengths = (
        (rank_d[1] + 1 + field_len + 1 + negative + units_d[1] + 3 + 1 + counted_d[1] + 1)
        + previous_len
        + 1
    )
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]) if n else 0, dtype=np.uint8)
    at = ends - lengths  # where each line's next piece goes

    at = _put_digits(out, at, *rank_d)
    out[at] = _COMMA
    at = _put_fields(out, at + 1, fields.data, field_start, field_len)
    out[at] = _COMMA
    at += 1
    out[at[negative]] = _MINUS
    at = _put_digits(out, at + negative, *units_d)
    out[at] = _DOT
    out[at + 1] = _ZERO + hundredths // 10
    out[at + 2] = _ZERO + hundredths % 10
    out[at + 3] = _COMMA
    at = _put_digits(out, at + 4, *counted_d)
    out[at] = _COMMA
    at = _put_digits(out, at + 1, previous_d[0], previous_len)
    out[at] = _LF
    return out.tobytes()


def _put_digits(
    out: np.ndarray, at: np.ndarray, digits: np.ndarray, length: np.ndarray
) -> np.ndarray:
    """Write each row's last ``length`` digits at ``at``; return where the row goes on."""
    width = digits.shape[1]
    for column in range(width):
        shown = length >= width - column
        out[(at + length - (width - column))[shown]] = digits[shown, column]
    return at + length


def _put_fields(
    out: np.ndarray, at: np.ndarray, data: np.ndarray, start: np.ndarray, length: np.ndarray
) -> np.ndarray:
    """Copy each row's ``data[start:start + length]`` to ``out`` at ``at``."""
    total = int(length.sum())
    if total:
        first = np.cumsum(length) - length  # each row's first byte among the copied ones
        offset = np.arange(total, dtype=np.int64) - np.repeat(first, length)
        out[np.repeat(at, length) + offset] = data[np.repeat(start, length) + offset]
    return at + length
