"""The tables of a busy player's matches, packed beside their points
(:class:`~rankings.models.PlayerPointsPack`, column ``tables``): what the player page shows
of a result (the club's match id, the day, the category, the club, every side's score and
players) read from the pack's row, instead of probing a page's matches, their members and
their players one by one, most of them first reads of the disk's pages
(docs/performance-history.md, "The player page's tables are first reads").

In (:func:`encode`): the members of the player's matches (the core's
:class:`~rankings.fladub.Sides`: match, side position, score, player primary key), each
match's facts (:class:`Facts`) and each player's id and name (:class:`Named`), as they
stood in the pack's snapshot. Out (:func:`decode`): :class:`Tables`, whose
:meth:`Tables.matches` gives the tables of the matches asked for that it holds, a player
renamed since left out (the reader reads those matches as rows). Clubs are named by
primary key only: a club's code or name may change, and the reader names them live.

Guaranteed: what :meth:`Tables.matches` gives is what was encoded (tested, with names in
any script). Decoding reads the arrays in place (no copy) and only the shown matches'
strings, so a page of a hundred results costs a few hundred small decodes, whatever the
number of the player's matches. No Django: plain data.

Format, little-endian: four int32 (:data:`VERSION`, matches n, seats s, players p); match
id int64[n] (ascending), day int32[n] (proleptic Gregorian ordinal), club int64[n], first
seat int32[n + 1]; side position int16[s], score int32[s], player int32[s] (index among the
players), the seats in (match, side position, player) order; player primary key int64[p]
(ascending); string ends int32[2n + 2p] and the UTF-8 strings: each match's external id
and category, then each player's id and name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

import numpy as np

VERSION = 1
_HEADER = np.dtype("<i4")


class Facts(NamedTuple):
    """What a result names of its match, its club by primary key."""

    external_id: str
    date_played: dt.date
    category: str
    club_pk: int


class Named(NamedTuple):
    """A player as a table names them."""

    player_id: str
    name: str


class Seat(NamedTuple):
    """A player at a table: their side's position and score."""

    side_position: int
    score: int
    player_pk: int
    player_id: str
    name: str


class Table(NamedTuple):
    """A match as a page of results shows it."""

    match_pk: int
    facts: Facts
    seats: tuple[Seat, ...]
    """In (side position, player primary key) order."""


def encode(
    match_id: np.ndarray,
    side_position: np.ndarray,
    score: np.ndarray,
    player_pk: np.ndarray,
    facts: Mapping[int, Facts],
    players: Mapping[int, Named],
) -> bytes:
    """The bytes of the tables of the matches seating the given members (one row per
    member, any order; ``facts`` of each of their matches, ``players`` naming each of
    their players). A match or player without its facts or name raises ``KeyError``."""
    order = np.lexsort((player_pk, side_position, match_id))
    match_id, player_pk = match_id[order].astype(np.int64), player_pk[order].astype(np.int64)
    matches, first = np.unique(match_id, return_index=True)
    pks, seat_player = np.unique(player_pk, return_inverse=True)
    match_facts = [facts[int(m)] for m in matches.tolist()]
    named = [players[int(p)] for p in pks.tolist()]
    texts = [s for f in match_facts for s in (f.external_id, f.category)]
    texts += [s for n in named for s in (n.player_id, n.name)]
    encoded = [t.encode() for t in texts]
    parts = [
        np.array([VERSION, len(matches), len(match_id), len(pks)], dtype="<i4"),
        matches.astype("<i8"),
        np.array([f.date_played.toordinal() for f in match_facts], dtype="<i4"),
        np.array([f.club_pk for f in match_facts], dtype="<i8"),
        np.append(first, len(match_id)).astype("<i4"),
        side_position[order].astype("<i2"),
        score[order].astype("<i4"),
        seat_player.astype("<i4"),
        pks.astype("<i8"),
        np.cumsum([len(e) for e in encoded], dtype=np.int64).astype("<i4"),
    ]
    return b"".join(p.tobytes() for p in parts) + b"".join(encoded)


def _native(array: np.ndarray) -> memoryview[int]:
    """A little-endian array of int16, int32 or int64 as a memoryview of native ints (no
    copy on a little-endian machine): indexing it gives Python ints at once, where a NumPy
    array gives scalars to convert, several times slower for the few hundred values a page
    reads."""
    native = array.astype(array.dtype.newbyteorder("="), copy=False)
    raw = native.data.cast("B")
    size = native.dtype.itemsize
    return raw.cast("q") if size == 8 else raw.cast("i") if size == 4 else raw.cast("h")


class Tables:
    """A pack's tables, decoded on demand (:func:`decode`)."""

    def __init__(self, data: bytes) -> None:
        version, n, s, p = np.frombuffer(data, dtype=_HEADER, count=4).tolist()
        if version != VERSION:
            raise ValueError(f"tables of version {version}, not {VERSION}")
        at = 16
        arrays = {}
        for name, dtype, count in (
            ("match_id", "<i8", n),
            ("day", "<i4", n),
            ("club", "<i8", n),
            ("first_seat", "<i4", n + 1),
            ("side_position", "<i2", s),
            ("score", "<i4", s),
            ("seat_player", "<i4", s),
            ("player_pk", "<i8", p),
            ("ends", "<i4", 2 * n + 2 * p),
        ):
            if len(data) < at + np.dtype(dtype).itemsize * count:
                raise ValueError(f"tables of {n} matches hold {len(data)} bytes")
            arrays[name] = np.frombuffer(data, dtype=dtype, count=count, offset=at)
            at += np.dtype(dtype).itemsize * count
        self._data, self._matches = data, n
        self.match_id: np.ndarray = arrays["match_id"]
        self._day, self._club = _native(arrays["day"]), _native(arrays["club"])
        self._first_seat = _native(arrays["first_seat"])
        self._side, self._score = _native(arrays["side_position"]), _native(arrays["score"])
        self._seat_player = _native(arrays["seat_player"])
        self._player_pk = _native(arrays["player_pk"])
        # Where each string starts and ends in ``data`` (string i: its i-th and i+1-th).
        self._bounds = _native(np.concatenate([[0], arrays["ends"]]).astype(np.int64) + at)
        if len(data) != self._bounds[-1]:
            raise ValueError(f"tables of {n} matches hold {len(data)} bytes")

    def __len__(self) -> int:
        return self._matches

    def _text(self, i: int) -> str:
        return str(self._data[self._bounds[i] : self._bounds[i + 1]], "utf-8")

    def _held(self, match_ids: Iterable[int]) -> tuple[list[int], list[int]]:
        """(the match ids asked for that the pack holds, their places in it)."""
        wanted = np.asarray(list(match_ids), dtype=np.int64)
        at = np.searchsorted(self.match_id, wanted)
        held = at < self._matches
        held[held] = self.match_id[at[held]] == wanted[held]
        return wanted[held].tolist(), at[held].tolist()

    def _facts(self, i: int) -> Facts:
        return Facts(
            self._text(2 * i),
            dt.date.fromordinal(self._day[i]),
            self._text(2 * i + 1),
            self._club[i],
        )

    def facts(self, match_ids: Iterable[int]) -> dict[int, Facts]:
        """The facts of ``match_ids`` that the pack holds, by match (no seats: what a
        ledger names)."""
        return {m: self._facts(i) for m, i in zip(*self._held(match_ids), strict=True)}

    def matches(
        self, match_ids: Iterable[int], *, renamed: Collection[int] = ()
    ) -> dict[int, Table]:
        """The tables of ``match_ids`` that the pack holds, by match, except those seating
        one of the players ``renamed`` (primary keys: players whose id or name changed
        after the pack's snapshot)."""
        gone = set(renamed)
        names: dict[int, tuple[int, str, str]] = {}
        side, score, seat_player = self._side, self._score, self._seat_player
        found = {}
        for m, i in zip(*self._held(match_ids), strict=True):
            seats = []
            for k in range(self._first_seat[i], self._first_seat[i + 1]):
                j = seat_player[k]
                named = names.get(j)
                if named is None:
                    at = 2 * (self._matches + j)
                    named = names[j] = (self._player_pk[j], self._text(at), self._text(at + 1))
                seats.append(Seat(side[k], score[k], *named))
            if gone and any(seat.player_pk in gone for seat in seats):
                continue
            found[m] = Table(m, self._facts(i), tuple(seats))
        return found


def decode(data: bytes | memoryview) -> Tables:
    """The tables of a pack's bytes (``ValueError``: not a pack of this format)."""
    return Tables(bytes(data))
