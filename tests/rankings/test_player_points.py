"""A player's match points read once for several lists (rankings.selectors.counting_results.
player_points): every list of the span gets exactly the results, numbers and facts that a
read of that list alone gives, late results and voids included, in a fixed number of
statements."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from matches.models import SideMember
from matches.months import Month
from rankings.models import RankingEntry
from rankings.selectors.counting_results import (
    counted_results,
    counting_results,
    player_points,
)
from tests.rankings.factories import close, random_results

pytestmark = pytest.mark.django_db

MONTHS = [Month.parse("2025-01") + n for n in range(15)]  # 2025-01 .. 2026-03
SPAN = [Month.parse(m) for m in ("2025-12", "2026-01", "2026-02")]


@pytest.fixture
def busiest() -> list[int]:
    random_results(seed=12, matches=400, players=30, months=MONTHS)
    close("2025-11")
    close("2025-12")
    close("2026-01")
    counts: dict[int, int] = {}
    for pk in SideMember.objects.values_list("player_id", flat=True):
        counts[pk] = counts.get(pk, 0) + 1
    return sorted(counts, key=lambda pk: -counts[pk])[:6]


def test_one_read_gives_each_list_what_a_read_of_that_list_gives(busiest: list[int]) -> None:
    late = SideMember.objects.exclude(counting_month=F("month_played"))
    # voided between two lists of the span: counting in the first, not in the later ones
    voided = SideMember.objects.filter(void_effective_month__in=[m.first_day for m in SPAN[1:]])
    assert late.exists() and voided.filter(player_id__in=busiest).exists()
    for pk in busiest:
        points = player_points(pk, discipline="fido", months=SPAN)
        for month in SPAN:
            alone = counted_results(pk, discipline="fido", month=month)
            shared = counted_results(pk, discipline="fido", month=month, points=points)
            assert shared == alone, (pk, month)
            assert shared.count > 0
            page = counting_results(pk, discipline="fido", month=month, limit=7, points=points)
            assert page == counting_results(pk, discipline="fido", month=month, limit=7)
            assert [r.match_pk for r in page.results] == [r.match_pk for r in alone.results[:7]]
        # The published numbers are the ones the shared read gives.
        for month in SPAN[:2]:
            entry = RankingEntry.objects.filter(
                ranking_list__month=month.first_day, player_id=pk
            ).first()
            shared = counted_results(pk, discipline="fido", month=month, points=points)
            assert shared.fladub_cents == (entry.fladub_cents if entry else 0)


def test_three_statements_for_the_span_and_one_for_every_result_s_facts(
    busiest: list[int], copies: list[str]
) -> None:
    pk = busiest[0]
    with CaptureQueriesContext(connection) as read:
        points = player_points(pk, discipline="fido", months=SPAN)
    # members (a COPY on PostgreSQL), the lists' ids, their entries; on PostgreSQL the
    # player's pack of points first (none here: test_player_packs reads with one)
    packs = 1 if connection.vendor == "postgresql" else 0
    assert len(read.captured_queries) + len(copies) == 3 + packs
    assert len(copies) == (1 if connection.vendor == "postgresql" else 0)
    copies.clear()
    with CaptureQueriesContext(connection) as named:
        for month in SPAN:
            counted_results(pk, discipline="fido", month=month, points=points)
    assert len(named.captured_queries) == 1  # the facts of every match, once
    assert not copies


def test_a_month_outside_the_span_is_read_on_its_own(busiest: list[int]) -> None:
    pk = busiest[0]
    points = player_points(pk, discipline="fido", months=SPAN)
    outside = Month.parse("2026-03")
    with pytest.raises(ValueError, match="outside"):
        points.breakdown(outside)
    assert counted_results(pk, discipline="fido", month=outside, points=points) == (
        counted_results(pk, discipline="fido", month=outside)
    )
    other = player_points(busiest[1], discipline="fido", months=SPAN)
    # Another player's points are never used for this player.
    assert counted_results(pk, discipline="fido", month=SPAN[0], points=other) == (
        counted_results(pk, discipline="fido", month=SPAN[0])
    )


def test_a_month_is_broken_down_once_and_shared_read_only(busiest: list[int]) -> None:
    """The page's ledgers, results and calendar share one breakdown per month: the same
    arrays each time, which no caller can write into."""
    points = player_points(busiest[0], discipline="fido", months=SPAN)
    first = points.breakdown(SPAN[1])
    assert points.breakdown(SPAN[1]) is first
    assert points.breakdown(SPAN[0]) is not first
    assert len(first.match_id) > 0
    with pytest.raises(ValueError, match="read-only"):
        first.weighted[0] = 0.0
    fresh = player_points(busiest[0], discipline="fido", months=SPAN).breakdown(SPAN[1])
    assert fresh is not first
    assert fresh.weighted.tolist() == first.weighted.tolist()


@pytest.mark.postgres
def test_the_binary_copy_reads_what_the_rows_read(
    busiest: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the members come by binary COPY into NumPy (void months included, the
    not-voided ones as the core's marker); the portable read of rows gives the same points,
    months and void months."""
    from rankings import loader

    voided = SideMember.objects.filter(void_effective_month__isnull=False, player_id__in=busiest)
    assert voided.exists()
    for pk in busiest:
        by_copy = player_points(pk, discipline="fido", months=SPAN)
        with monkeypatch.context() as patched:
            patched.setattr(loader, "uses_copy", lambda: False)
            by_rows = player_points(pk, discipline="fido", months=SPAN)
        for name in ("match_id", "month_played", "counting_month", "player", "points"):
            copied, read = getattr(by_copy._results, name), getattr(by_rows._results, name)
            assert copied.tolist() == read.tolist(), name
        assert by_copy._void_month.tolist() == by_rows._void_month.tolist()
        assert by_copy._void_month.dtype == by_rows._void_month.dtype
