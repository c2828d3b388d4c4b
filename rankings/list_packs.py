"""Packs of published lists: each list's strengths as two packed arrays in one row
(:class:`~rankings.models.ListPack`), read by the close in a few milliseconds instead of a
``COPY`` of the list's entries (about 0.5 s for 900,000 entries).

In: a published list's players (``Player`` keys) and FLADUB cents
(:class:`rankings.fladub.PublishedList`), or the ids of published lists. Out:
:func:`pack_insert` writes the pack; :func:`packs_read` returns month index ->
:class:`~rankings.fladub.PublishedList` for the lists that have one (the others are
left to :func:`rankings.loader.whole_lists`); :func:`lists_without_pack` names the
published lists that have none (lists published before packs existed).

The format: ``players`` the keys as int64, ``cents`` the FLADUB cents as int32 (the
entries' own column type), both little-endian, in the order they were given (the close
gives its list order; a reader of the strengths needs no order), and ``count`` the
number of entries. Nothing is compressed (``STORAGE EXTERNAL``, migration 0016).

Guaranteed: a pack holds exactly its list's entries. The close packs the arrays it wrote
as the entries, in the transaction that publishes the list
(:func:`rankings.services.close.list_publish`); the backfill packs the entries it has
just read, in the same transaction. The database refuses a pack for an unpublished
list, a count other than the list's ``entry_count``, arrays of another length, and any
change or deletion of a pack (migration 0016). A pack belongs to one list id, that is to
one version of a month's list, so a reader never meets another version's pack. Read
inside the caller's transaction, the packs are in the same snapshot as everything else
it reads.

One statement per list, so that no more than one list's bytes are in flight; on
PostgreSQL the byte strings travel in binary (a server-binding psycopg cursor), elsewhere
(SQLite) through Django's cursor. Both databases read the packs: the portable path is
tested on the same packs.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection

from . import fladub
from .models import ListPack, RankingList

logger = logging.getLogger(__name__)

PLAYER_TYPE = np.dtype("<i8")
CENTS_TYPE = np.dtype("<i4")
_PACK = ListPack._meta.db_table
_LIST = RankingList._meta.db_table
_IMMUTABLE = (RankingList.Status.PUBLISHED.value, RankingList.Status.SUPERSEDED.value)


@dataclass(frozen=True)
class Pack:
    """One list's strengths in the stored form."""

    count: int
    players: bytes
    cents: bytes

    @classmethod
    def of(cls, listed: fladub.PublishedList) -> Pack:
        cents = listed.fladub_cents
        if len(cents) and int(cents.max()) > np.iinfo(CENTS_TYPE).max:
            raise ValueError("FLADUB cents beyond int32: an entry could not store them either")
        return cls(
            count=len(listed),
            players=listed.player.astype(PLAYER_TYPE, copy=False).tobytes(),
            cents=cents.astype(CENTS_TYPE).tobytes(),
        )

    def published(self) -> fladub.PublishedList:
        """The arrays again, as int64 (``player`` a read-only view of the stored bytes)."""
        player = np.frombuffer(self.players, dtype=PLAYER_TYPE)
        cents = np.frombuffer(self.cents, dtype=CENTS_TYPE)
        if len(player) != self.count or len(cents) != self.count:
            raise ValueError(f"a pack of {self.count} entries holds {len(player)}, {len(cents)}")
        return fladub.PublishedList(
            player=player.astype(np.int64, copy=False), fladub_cents=cents.astype(np.int64)
        )


def pack_insert(list_id: int, listed: fladub.PublishedList) -> bool:
    """Store the pack of a published list (inside the caller's transaction); False when
    the list already has one (another backfill packed it first: the same entries)."""
    started = time.perf_counter()
    pack = Pack.of(listed)
    with _cursor() as (cursor, binary):
        values = "(%s, %s, %b, %b)" if binary else "(%s, %s, %s, %s)"
        cursor.execute(
            f"INSERT INTO {_PACK} (ranking_list_id, count, players, cents) "  # noqa: S608
            f"VALUES {values} ON CONFLICT (ranking_list_id) DO NOTHING",
            [int(list_id), pack.count, pack.players, pack.cents],
        )
        stored = bool(cursor.rowcount == 1)
    logger.info(
        "packed list %d: %d entries in %.3f s%s",
        *(list_id, pack.count, time.perf_counter() - started, "" if stored else " (had one)"),
    )
    return stored


def packs_read(lists: Mapping[int, int]) -> dict[int, fladub.PublishedList]:
    """Month index -> the list's strengths, for those of ``lists`` (month index -> list
    id) that have a pack; players in the order they were packed."""
    started = time.perf_counter()
    found: dict[int, fladub.PublishedList] = {}
    statement = f"SELECT count, players, cents FROM {_PACK} WHERE ranking_list_id = %s"  # noqa: S608
    with _cursor() as (cursor, binary):
        for index, list_id in lists.items():
            cursor.execute(statement, [int(list_id)], **({"binary": True} if binary else {}))
            row = cursor.fetchone()
            if row is not None:
                found[index] = Pack(int(row[0]), bytes(row[1]), bytes(row[2])).published()
    logger.info(
        "read %d of %d published lists from their packs in %.3f s",
        *(len(found), len(lists), time.perf_counter() - started),
    )
    return found


def lists_without_pack(discipline: str | None = None) -> list[int]:
    """The ids of the published (or superseded) lists that have no pack, oldest first."""
    where = "" if discipline is None else "AND l.discipline = %s "
    statement = (
        f"SELECT l.id FROM {_LIST} l WHERE l.status IN (%s, %s) {where}"  # noqa: S608
        f"AND NOT EXISTS (SELECT 1 FROM {_PACK} p WHERE p.ranking_list_id = l.id) "
        "ORDER BY l.month, l.id"
    )
    params: list[Any] = [*_IMMUTABLE] + ([] if discipline is None else [discipline])
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return [int(row[0]) for row in cursor.fetchall()]


@contextlib.contextmanager
def _cursor() -> Iterator[tuple[Any, bool]]:
    """A cursor on Django's connection (in its transaction), and whether it is binary. On
    PostgreSQL a server-binding psycopg cursor: parameters ``%b`` and results
    (``binary=True``) travel as bytes, not as hex text; its errors are Django's
    (``IntegrityError`` for a refused pack), as through Django's own cursor."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            yield cursor, False
        return
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as raw:
        yield raw, True
