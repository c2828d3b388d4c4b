"""The close writes a list's entries on several connections at once
(``FIDO_CLOSE_WRITE_STREAMS``, PostgreSQL, outside any transaction): the same entries as
one stream; a stream that fails leaves nothing published, and the next close discards the
half-written attempt and publishes the full list."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest

from rankings import writer
from rankings.models import RankingEntry, RankingList
from tests.rankings.factories import close
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

    def broken(conn: Any, buffer: bytes) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise ConnectionError("the second stream lost its connection")
        copy(conn, buffer)

    monkeypatch.setattr(writer, "_copy", broken)
    with pytest.raises(ConnectionError, match="second stream"):
        close(TARGET)
    attempt = RankingList.objects.get(month=TARGET.first_day)
    assert attempt.status == RankingList.Status.FAILED
    assert RankingEntry.objects.filter(ranking_list=attempt).count() > 0  # the first half
    assert current_id() == RankingList.objects.get(month=TARGET.prev().first_day).pk

    monkeypatch.setattr(writer, "_copy", copy)
    published = close(TARGET)
    assert not RankingEntry.objects.filter(ranking_list=attempt).exists()
    assert entries(published) == expected
    lists = RankingList.objects.filter(month=TARGET.first_day).order_by("version")
    assert [(x.version, x.status) for x in lists] == [(1, "failed"), (2, "published")]
