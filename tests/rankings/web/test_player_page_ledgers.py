"""The player page's ledgers read the lists before and the player's entries from the
statement of the history (``rankings.selectors.ledger.Known``) and the projection's entry
from the projection's own statement: the same sentences as the ledger API, which reads
them itself; the rank change's three counts in one statement, equal to counting by hand."""

from __future__ import annotations

from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.months import Month
from rankings.models import RankingEntry
from rankings.selectors.ledger import player_ledger
from rankings.selectors.lists import published_list
from rankings.services.projection import projection_refresh
from tests.rankings.factories import close, random_results

pytestmark = pytest.mark.django_db

MONTHS = [Month.parse(m) for m in ("2026-01", "2026-02", "2026-03", "2026-04")]


@pytest.fixture
def three_lists_and_a_projection():
    random_results(seed=47, matches=140, players=30, months=MONTHS)
    for month in MONTHS[:3]:
        close(month)
    projection_refresh(discipline="fido")


def _paragraphs(html: str, css: str) -> list[str]:
    marker = f'<p class="{css}">'
    return [unescape(part.split("</p>", 1)[0]) for part in html.split(marker)[1:]]


def test_the_page_s_ledgers_say_what_the_api_says(
    client: Client, three_lists_and_a_projection
) -> None:
    march = published_list(discipline="fido", month=MONTHS[2])
    players = RankingEntry.objects.filter(ranking_list_id=march.id).values_list(
        "player__player_id", flat=True
    )
    explained = 0
    for player_id in players:
        html = client.get(f"/players/{player_id}/").content.decode()
        numbers, ranks = _paragraphs(html, "ledger-number"), _paragraphs(html, "ledger-rank")
        page = list(zip(numbers, ranks, strict=True))
        api = [
            client.get(f"/api/rankings/fido/players/{player_id}/ledger?month={month}").json()
            for month in ("2026-03", "2026-04")
        ]
        assert page == [tuple(body["sentences"]) for body in api], player_id
        explained += sum(body["rank_change"]["explained"] for body in api)
    assert explained  # some rank changes were explained with the counts


def test_the_rank_change_counts_what_counting_by_hand_gives(three_lists_and_a_projection) -> None:
    february = published_list(discipline="fido", month=MONTHS[1])
    march = published_list(discipline="fido", month=MONTHS[2])
    before = dict(
        RankingEntry.objects.filter(ranking_list_id=february.id).values_list("player_id", "rank")
    )
    now = dict(
        RankingEntry.objects.filter(ranking_list_id=march.id).values_list("player_id", "rank")
    )
    checked = 0
    for player in set(before) & set(now):
        with CaptureQueriesContext(connection) as read:
            rank = player_ledger(player, ranking_list=march).rank
        above_now = {p for p, r in now.items() if r < now[player]}
        above_before = {p for p, r in before.items() if r < before[player]}
        assert rank.new_above == len(above_now - set(before))
        assert rank.gone_above == len(above_before - set(now))
        was_above = len(above_now & above_before)
        assert rank.passed == len(above_now) - rank.new_above - was_above
        assert rank.overtaken == len(above_before) - was_above - rank.gone_above
        # the three counts in one statement (the heads' form near the top, else the probes')
        counts = [
            q
            for q in read.captured_queries
            if "count(*) FILTER" in q["sql"] or q["sql"].startswith("WITH a AS MATERIALIZED")
        ]
        assert len(counts) == 1
        checked += 1
    assert checked > 5
