"""The close writes a list's entries on several connections at once
(``FIDO_CLOSE_WRITE_STREAMS``, PostgreSQL, outside any transaction): the same entries as
one stream; a stream that fails leaves nothing published, and the next close discards the
half-written attempt and publishes the full list."""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np
import pytest

from matches.models import Player
from matches.months import Month
from rankings import partitions, seal, writer
from rankings.models import RankingEntry, RankingList
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import close, submit_table
from tests.rankings.test_close_worker import (  # noqa: F401  (fixtures)
    TARGET,
    current_id,
    entries,
    history,
    undisturbed,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_three_streams_write_the_single_stream_entries(history, settings, caplog) -> None:  # noqa: F811
    settings.FIDO_CLOSE_WRITE_STREAMS = 3
    expected = undisturbed(TARGET)
    with caplog.at_level(logging.INFO, logger="rankings.writer"):
        published = close(TARGET)
    assert f"entries of list {published.pk} in 3 streams" in caplog.text
    assert entries(published) == expected
    assert published.entry_count == len(expected)
    assert current_id() == published.pk


def test_a_failed_stream_publishes_nothing_and_the_next_close_recovers(
    history,  # noqa: F811
    settings,
    monkeypatch,
) -> None:
    settings.FIDO_CLOSE_WRITE_STREAMS = 2
    expected = undisturbed(TARGET)
    copy = writer._copy

    def broken(conn: Any, buffer: bytes, table: str, **options: Any) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise ConnectionError("the second stream lost its connection")
        copy(conn, buffer, table, **options)

    monkeypatch.setattr(writer, "_copy", broken)
    with pytest.raises(ConnectionError, match="second stream"):
        close(TARGET)
    attempt = RankingList.objects.get(month=TARGET.first_day)
    assert attempt.status == RankingList.Status.FAILED
    # The first half is in the attempt's table, never attached: no reader sees it.
    assert partition_rows(attempt.pk) > 0
    assert not RankingEntry.objects.filter(ranking_list=attempt).exists()
    assert current_id() == RankingList.objects.get(month=TARGET.prev().first_day).pk

    monkeypatch.setattr(writer, "_copy", copy)
    published = close(TARGET)
    assert partition_rows(attempt.pk) is None  # the next close dropped it
    assert entries(published) == expected
    lists = RankingList.objects.filter(month=TARGET.first_day).order_by("version")
    assert [(x.version, x.status) for x in lists] == [(1, "failed"), (2, "published")]


def partition_rows(list_id: int) -> int | None:
    """The rows of list ``list_id``'s own table (attached or not), None when it has none."""
    from django.db import connection

    name = partitions.partition_name(list_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
        if not cursor.fetchone()[0]:
            return None
        cursor.execute(f"SELECT count(*) FROM {name}")  # noqa: S608
        return int(cursor.fetchone()[0])


def test_stream_cuts_fall_where_a_rank_begins() -> None:
    rank = np.array([1, 2, 2, 2, 2, 6, 7, 7, 9, 10])
    assert writer.stream_bounds(rank, 1) == [0, 10]
    assert writer.stream_bounds(rank, 2) == [0, 5, 10]  # 5 begins rank 6
    assert writer.stream_bounds(rank, 3) == [0, 1, 6, 10]  # 3 is inside the tie at 2
    assert writer.stream_bounds(np.array([1, 1, 1, 1]), 2) == [0, 0, 4]  # one tie: one slice


def second_stream_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the writer's second stream copy its rows before the first stream (Django's
    connection, the main thread) starts copying its own."""
    second_done = threading.Event()
    copy = writer._copy

    def second_first(conn: Any, buffer: bytes, table: str, **options: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            assert second_done.wait(30)
            copy(conn, buffer, table, **options)
        else:
            copy(conn, buffer, table, **options)
            second_done.set()

    monkeypatch.setattr(writer, "_copy", second_first)


def test_several_streams_keep_each_tie_in_list_order(settings, monkeypatch) -> None:
    # One player with two wins, then a tie of eleven (one win each): an even split in
    # two would cut the tie. The second stream is made to write first, so its rows draw
    # the lower ids; read back by (rank, id), as the pages and the download read a list,
    # the tie must still come in federation-id order.
    club = ClubFactory()
    players = [PlayerFactory(club=club) for _ in range(25)]
    winners, losers = players[:12], players[12:]
    for i, (winner, loser) in enumerate(zip(winners, losers, strict=False)):
        submit_table(club, [([winner], 2), ([loser], 1)], id=f"t{i}", date="2026-03-10")
    submit_table(club, [([winners[0]], 2), ([losers[-1]], 1)], id="top", date="2026-03-11")
    settings.FIDO_CLOSE_WRITE_STREAMS = 2
    second_stream_first(monkeypatch)
    published = close(Month(2026, 3))
    read_back = list(
        RankingEntry.objects.filter(ranking_list=published)
        .order_by("rank", "id")
        .values_list("rank", "player__player_id")
    )
    tie = sorted(str(p.player_id) for p in winners[1:])
    assert read_back == [(1, winners[0].player_id)] + [(2, player_id) for player_id in tie]


@pytest.mark.parametrize("name", [None, "a line\nfeed"])
def test_the_seal_of_a_close_on_two_streams_is_the_download_s_digest(
    history,  # noqa: F811
    settings,
    caplog,
    name: str | None,
) -> None:
    """Written from the close's arrays (rankings.list_csv), or, when a player's name holds
    a line feed, read back from PostgreSQL: either way the digest of the download."""
    settings.FIDO_CLOSE_WRITE_STREAMS = 2
    if name is not None:
        Player.objects.filter(pk=Player.objects.order_by("pk").first().pk).update(name=name)
    with caplog.at_level(logging.INFO, logger="rankings.services.close"):
        published = close(TARGET)
    said = "not computed (read back instead)" if name else "done"
    assert f"content digest from the arrays: {said}" in caplog.text
    assert published.content_sha256 == seal.export_digest(published)
