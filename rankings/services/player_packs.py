"""Packing the match points of a discipline's busiest players after a close
(:mod:`rankings.player_packs`), so that their pages read them from one row.

:func:`player_packs_write`: for the discipline's current list L(R), every player with at
least ``FIDO_PLAYER_PACK_MIN_RESULTS`` results counting in it and no pack of R yet, or
one that read a strength list an erratum has replaced since, gets one (the stale one
replaced): their results of counting months R - 12 .. R with the points
:func:`rankings.selectors.counting_results.player_points` computes (the scoring of every
result, never a pack), read in one ``REPEATABLE READ`` snapshot per batch of players,
whose text the pack records, with the tables of their matches
(:func:`~rankings.selectors.counting_results.tables_to_pack`: facts and names, from the
same snapshot). Then the packs made after earlier closes go (a pack made
after R serves every span a reader of the current lists asks for). The Celery task
``rankings.player_packs_write`` runs it after each close, ``manage.py pack_lists`` too.

:func:`player_changes_prune` deletes the logged renames of players every pack sees (the
nightly task and ``manage.py pack_lists`` run it, never beside a writer).

Guaranteed: one writer of a discipline at a time (a session advisory lock; a second one
returns 0 at once); safe to repeat (a player packed for R is not packed again, unless an
erratum has made the pack stale since) and beside submissions (a change after a batch's
snapshot is logged, and readers read its match as rows); nothing but the packs changes.
Off PostgreSQL: nothing (readers score every result).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from matches import clock, locks
from matches import sql as matches_sql
from matches.disciplines import CODES
from matches.months import Month

from .. import player_packs, result_packs
from ..selectors.counting_results import player_points, tables_to_pack
from ..selectors.lists import current_list
from ..selectors.strength_lists import published_ids

logger = logging.getLogger(__name__)

BATCH = 100
"""Players packed in one snapshot and one transaction."""


def min_results() -> int:
    """The results counting in the current list from which a player gets a pack."""
    return int(settings.FIDO_PLAYER_PACK_MIN_RESULTS)


def player_packs_write(
    discipline: str,
    *,
    at_least: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Pack the points of the discipline's players with at least ``at_least`` (default
    :func:`min_results`) results counting in its current list; return how many players it
    packed (0: nothing to do, another writer at work, or not PostgreSQL). ``progress(done,
    total)`` after each batch."""
    if connection.vendor != "postgresql":
        return 0
    latest = current_list(discipline=discipline)
    if latest is None:
        return 0
    month = Month.of(latest.month)
    threshold = min_results() if at_least is None else at_least
    with _writer_lock(discipline) as held:
        if not held:
            logger.info("player packs of %s: another writer is at work", discipline)
            return 0
        lists = _strength_lists(discipline, month)
        players = _players_to_pack(latest.id, discipline, month, threshold, lists)
        written = 0
        for start in range(0, len(players), BATCH):
            written += _write_batch(discipline, month, players[start : start + BATCH], lists)
            if progress is not None:
                progress(min(start + BATCH, len(players)), len(players))
        with connection.cursor() as cursor:
            cursor.execute(
                "DELETE FROM rankings_playerpointspack WHERE discipline = %s AND month < %s",
                [discipline, month.first_day],
            )
    return written


def _strength_lists(discipline: str, month: Month) -> dict[int, int]:
    """L(M - 1) in force for every month played M of a pack of ``month``, R - 12 .. R:
    month index -> list id."""
    return published_ids(discipline, {month + k for k in range(-13, 0)})


def _players_to_pack(
    list_id: int, discipline: str, month: Month, threshold: int, lists: dict[int, int]
) -> list[int]:
    """The players of list ``list_id`` with at least ``threshold`` counting results whose
    pack of ``month`` is missing, has no tables (made before they were packed), or read a
    strength list that an erratum has replaced since (``lists``: :func:`_strength_lists`),
    by primary key. Such a pack still reads right (its readers read the tables as rows and
    score the stale months again), only slower: it is packed again."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.player_id, p.strengths, p.id IS NOT NULL AND p.tables IS NULL "
            "FROM rankings_rankingentry e "
            "LEFT JOIN rankings_playerpointspack p ON p.player_id = e.player_id "
            "AND p.discipline = %s AND p.month = %s "
            "WHERE e.ranking_list_id = %s AND e.results_counted >= %s ORDER BY e.player_id",
            [discipline, month.first_day, list_id, max(1, threshold)],
        )
        return [
            int(player_pk)
            for player_pk, strengths, untabled in cursor.fetchall()
            if strengths is None
            or untabled
            or result_packs.stale_months(result_packs.strengths_stored(strengths), lists)
        ]


def _write_batch(discipline: str, month: Month, players: list[int], lists: dict[int, int]) -> int:
    """Pack ``players`` in one snapshot (replacing a pack of ``month`` they have: one that
    read a replaced strength list); return how many packs were written. ``lists``: the
    strength lists in force when the run began, :func:`_strength_lists`: an erratum
    published after it leaves the packs it wrote stale, and the run it sends packs them
    again."""
    now = clock.now()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("SELECT pg_current_snapshot()::text")
        snapshot = str(cursor.fetchone()[0])
        points = [
            player_points(
                player_pk, discipline=discipline, months=[month.prev(), month], packs=False
            )
            for player_pk in players
        ]
        rows = []
        for player_pk, read, tables in zip(players, points, tables_to_pack(points), strict=True):
            columns = read.columns()
            played = np.unique(columns.month_played).tolist()
            rows.append(
                (
                    player_pk,
                    discipline,
                    month.first_day,
                    snapshot,
                    json.dumps(result_packs.strengths_read(played, lists)),
                    len(columns),
                    player_packs.encode(columns),
                    tables,
                    now,
                )
            )
        cursor.executemany(player_packs.WRITE, rows)
    return len(rows)


def player_changes_prune() -> int | None:
    """Delete the logged renames of players (``rankings_playerchange``) that every pack's
    snapshot sees; return how many, 0 off PostgreSQL, or None when a discipline's writer
    was at work (nothing deleted: the next run prunes). Without it the log keeps a row per
    rename, and every reader of a pack's tables reads those after the pack's snapshot."""
    if connection.vendor != "postgresql":
        return 0
    with contextlib.ExitStack() as stack:
        if not all(stack.enter_context(_writer_lock(code)) for code in CODES):
            return None
        with connection.cursor() as cursor:
            cursor.execute(player_packs.PRUNE_PLAYER_CHANGES)
            return int(cursor.rowcount)


@contextlib.contextmanager
def _writer_lock(discipline: str) -> Iterator[bool]:
    """The discipline's pack writer lock, without waiting: True held, False not."""
    key = (locks.LOCK_NAMESPACE, locks.lock_key(f"player-packs:{discipline}"))
    held = bool(matches_sql.scalar(matches_sql.advisory_lock("pg_try_advisory_lock", *key)))
    try:
        yield held
    finally:
        if held:
            matches_sql.execute(matches_sql.advisory_lock("pg_advisory_unlock", *key))
