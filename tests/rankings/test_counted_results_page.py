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


def test_the_same_page_without_the_tables(busiest: list[int], copies: list[str]) -> None:
    for pk in busiest:
        number = 1
        while True:
            copies.clear()
            with CaptureQueriesContext(connection) as read:
                page = counted_results_page(
                    pk, discipline="fido", month=MONTH, page=number, page_size=7
                )
            read_copies = list(copies)  # the members, on PostgreSQL
            tables = counting_results_page(
                pk, discipline="fido", month=MONTH, page=number, page_size=7
            )
            assert [_named(r) for r in page.results] == [_named(r) for r in tables.results]
            assert all(type(r) is CountedResult for r in page.results)
            totals = ("count", "offset", "limit", "fladub_cents", "next_month_cents", "num_pages")
            assert [getattr(page, t) for t in totals] == [getattr(tables, t) for t in totals]
            # The members of the player's matches, the strength lists and their entries,
            # the shown matches' facts: no seats, no names (and on PostgreSQL the player's
            # pack of points, none here).
            packs = 1 if connection.vendor == "postgresql" else 0
            assert len(read.captured_queries) + len(read_copies) == 4 + packs
            read_sql = [q["sql"] for q in read.captured_queries] + read_copies
            assert not any("matches_player" in sql for sql in read_sql)
            if number == page.num_pages:
                break
            number += 1
        assert page.count > 7  # several pages were read
        with pytest.raises(PageOutOfRange):
            counted_results_page(pk, discipline="fido", month=MONTH, page=number + 1, page_size=7)


@pytest.mark.postgres
@pytest.mark.parametrize("statement", ["match_facts", "match_members"])
def test_a_match_s_club_is_a_probe_not_a_hash_of_every_club(
    busiest: list[int], statement: str
) -> None:
    """A page's results (their facts, their tables): a probe of each match's club."""
    from rankings import sql

    match_ids = list(SideMember.objects.values_list("match_id", flat=True)[:30])
    made = getattr(sql, statement)(match_ids)
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + made.sql, made.params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan using matches_club_pkey" in plan, plan
    assert "Seq Scan on matches_club" not in plan, plan


def test_many_matches_join_their_clubs_with_the_same_facts(
    busiest: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over CLUB_PROBES_UP_TO matches the clubs are joined (hashed once on PostgreSQL, not
    probed a match at a time): the same facts and tables, one statement each."""
    from rankings import sql

    match_ids = sorted(set(SideMember.objects.values_list("match_id", flat=True)))
    probed = (
        sql.MATCH_FACTS.rows(sql.match_facts(match_ids)),
        sql.fetch(sql.match_members(match_ids)),
    )
    assert ("LATERAL" in sql.match_facts(match_ids).sql) == sql.postgres()  # probes below
    monkeypatch.setattr(sql, "CLUB_PROBES_UP_TO", len(match_ids) - 1)
    facts, members = sql.match_facts(match_ids), sql.match_members(match_ids)
    assert "LATERAL" not in facts.sql and "LATERAL" not in members.sql
    with CaptureQueriesContext(connection) as read:
        joined = (sql.MATCH_FACTS.rows(facts), sql.fetch(members))
    assert len(read.captured_queries) == 2
    assert sorted(joined[0], key=lambda f: f.match_pk) == sorted(
        probed[0], key=lambda f: f.match_pk
    )
    assert joined[1] == probed[1]
    assert len(joined[0]) == len(match_ids) and {f.club_id for f in joined[0]}
