"""Who passed a player, who entered above, whom they passed, who above left the list
(rankings.sql.rank_change_counts): the statement near the top (the two lists' heads
matched) and the one further down (a probe per player above) count the same for every
player of two lists, and the counts add up to the change of rank."""

from __future__ import annotations

import pytest

from matches.months import Month
from rankings import sql
from rankings.models import RankingEntry
from tests.matches.factories import PlayerFactory
from tests.rankings.factories import close, random_results, submit_table

pytestmark = pytest.mark.django_db

MONTHS = [Month.parse("2025-02") + n for n in range(14)]  # 2025-02 .. 2026-03


def _counts(previous: int, current: int, before: int, now: int) -> sql.RankChangeCounts:
    [found] = sql.RANK_CHANGE_COUNTS.rows(
        sql.rank_change_counts(previous, current, rank_before=before, rank_now=now)
    )
    return found


def test_both_statements_count_the_same_for_every_player(
    club: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    random_results(seed=5, matches=150, players=120, months=MONTHS)
    # Four players new to the list of 2026-03 (some leave it: their results aged out).
    new = [PlayerFactory(player_id=f"P-NEW{n}", club=club) for n in range(4)]
    submit_table(club, [([new[0]], 9), ([new[1]], 1)], id="new1", date="2026-03-10")
    submit_table(club, [([new[2]], 9), ([new[3]], 1)], id="new2", date="2026-03-11")
    previous = close("2026-02")
    current = close("2026-03")
    before = dict(
        RankingEntry.objects.filter(ranking_list=previous).values_list("player_id", "rank")
    )
    now = dict(RankingEntry.objects.filter(ranking_list=current).values_list("player_id", "rank"))
    both = [pk for pk in now if pk in before]
    assert len(both) > 20 and set(now) - set(before) and set(before) - set(now)
    moved = 0
    for pk in both:
        ranks = (previous.pk, current.pk, before[pk], now[pk])
        monkeypatch.setattr(sql, "RANK_CHANGE_NARROW_UP_TO", 10_000)
        heads = _counts(*ranks)
        monkeypatch.setattr(sql, "RANK_CHANGE_NARROW_UP_TO", 0)
        probes = _counts(*ranks)
        assert heads == probes, pk
        # By hand: the players above in each list, and who of them is in the other.
        above_now = {p for p, r in now.items() if r < now[pk]}
        above_before = {p for p, r in before.items() if r < before[pk]}
        assert heads.new_above == len(above_now - set(before))
        assert heads.was_above == len(above_now & above_before)
        assert heads.gone_above == len(above_before - set(now))
        moved += before[pk] != now[pk]
    assert moved > 10
