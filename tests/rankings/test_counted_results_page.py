"""A page of a player's counting results without their tables
(rankings.selectors.counting_results.counted_results_page, what the API's page of results
shows): the same results, numbers, facts and totals as the page with tables, page by page,
in four statements whatever the number of results (the tables' seats and names unread)."""

from __future__ import annotations

import dataclasses

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import SideMember
from matches.months import Month
from rankings.selectors.counting_results import (
    CountedResult,
    PageOutOfRange,
    counted_results_page,
    counting_results_page,
)
from tests.rankings.factories import close, random_results

pytestmark = pytest.mark.django_db

MONTHS = [Month.parse("2025-06") + n for n in range(10)]  # 2025-06 .. 2026-03
MONTH = MONTHS[-2]


@pytest.fixture
def busiest() -> list[int]:
    random_results(seed=29, matches=300, players=20, months=MONTHS)
    for month in MONTHS[:-1]:
        close(month)
    counts: dict[int, int] = {}
    for pk in SideMember.objects.values_list("player_id", flat=True):
        counts[pk] = counts.get(pk, 0) + 1
    return sorted(counts, key=lambda pk: -counts[pk])[:4]


def _named(result: CountedResult) -> dict[str, object]:
    """The fields of a counted result (a counting result's, its table left out)."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(CountedResult)}


def test_the_same_page_without_the_tables(busiest: list[int]) -> None:
    for pk in busiest:
        number = 1
        while True:
            with CaptureQueriesContext(connection) as read:
                page = counted_results_page(
                    pk, discipline="fido", month=MONTH, page=number, page_size=7
                )
            tables = counting_results_page(
                pk, discipline="fido", month=MONTH, page=number, page_size=7
            )
            assert [_named(r) for r in page.results] == [_named(r) for r in tables.results]
            assert all(type(r) is CountedResult for r in page.results)
            totals = ("count", "offset", "limit", "fladub_cents", "next_month_cents", "num_pages")
            assert [getattr(page, t) for t in totals] == [getattr(tables, t) for t in totals]
            # The members of the player's matches, the strength lists and their entries,
            # the shown matches' facts: no seats, no names.
            assert len(read.captured_queries) == 4
            assert not any("matches_player" in q["sql"] for q in read.captured_queries)
            if number == page.num_pages:
                break
            number += 1
        assert page.count > 7  # several pages were read
        with pytest.raises(PageOutOfRange):
            counted_results_page(pk, discipline="fido", month=MONTH, page=number + 1, page_size=7)


@pytest.mark.postgres
def test_a_match_s_club_is_a_probe_not_a_hash_of_every_club(busiest: list[int]) -> None:
    from rankings import sql

    match_ids = list(SideMember.objects.values_list("match_id", flat=True)[:30])
    statement = sql.match_facts(match_ids)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + statement.sql, statement.params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan using matches_club_pkey" in plan, plan
    assert "Hash" not in plan and "Seq Scan on matches_club" not in plan, plan
