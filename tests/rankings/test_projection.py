"""The projected list (rankings.services.projection): the close's own computation on the
results stored so far, kept apart from published lists, replaced on every refresh."""

from __future__ import annotations

import datetime as dt

import pytest

from matches.months import Month
from rankings.models import ProjectionRun, RankingEntry, RankingList
from rankings.selectors.cycle import open_month
from rankings.selectors.lists import current_list, published_lists
from rankings.selectors.projection import projected_list, projected_standing
from rankings.services.close import CloseRefused
from rankings.services.projection import (
    NothingToProject,
    projection_refresh,
    projections_refresh_all,
)
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.rankings.factories import close, random_results, submit_table

pytestmark = pytest.mark.django_db

MONTHS = [Month.parse(m) for m in ("2026-01", "2026-02", "2026-03", "2026-04")]


def entries(ranking_list_id: int) -> list[tuple[int, int, int, int, int | None, int | None]]:
    return list(
        RankingEntry.objects.filter(ranking_list_id=ranking_list_id)
        .order_by("rank", "player_id")
        .values_list(
            "player_id", "rank", "fladub_cents", "results_counted", "previous_rank", "movement"
        )
    )


def history(seed: int) -> None:
    random_results(seed=seed, matches=120, players=40, months=MONTHS)
    for month in MONTHS[:3]:
        close(month)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_close_with_nothing_new_publishes_the_projection_exactly(seed: int) -> None:
    history(seed)
    projected = projection_refresh(discipline="fido")
    assert projected.status == RankingList.Status.PROJECTED
    assert Month.of(projected.month) == MONTHS[3] == open_month("fido")
    projection = entries(projected.pk)
    assert len(projection) == projected.entry_count > 10
    assert any(row[4] is not None for row in projection)  # previous ranks from March

    published = close(MONTHS[3])
    assert entries(published.pk) == projection


def test_a_result_stored_after_the_projection_makes_the_close_differ() -> None:
    history(3)
    projected = projection_refresh(discipline="fido")
    club = ClubFactory(club_id="CLUB-9")
    late, other = PlayerFactory(player_id="P-ZZ1", club=club), PlayerFactory(club=club)
    submit_table(club, [([late], 9), ([other], 0)], id="after", date="2026-04-20")
    published = close(MONTHS[3])
    assert entries(published.pk) != entries(projected.pk)
    assert late.pk in {row[0] for row in entries(published.pk)}
    assert late.pk not in {row[0] for row in entries(projected.pk)}


def test_the_projection_is_never_a_published_list() -> None:
    history(4)
    march = current_list(discipline="fido")
    projected = projection_refresh(discipline="fido")
    assert current_list(discipline="fido") == march
    assert projected.pk not in {p.ranking_list.id for p in published_lists(discipline="fido")}
    assert projected.published_at is None and projected.version == 0
    shown = projected_list("fido")
    assert shown is not None and shown.provisional
    assert shown.ranking_list.id == projected.pk
    assert shown.ranking_list.published_at is None


def test_a_refresh_replaces_the_previous_projection_and_a_close_makes_it_stale() -> None:
    history(5)
    first = projection_refresh(discipline="fido", now=dt.datetime(2026, 4, 20, tzinfo=dt.UTC))
    second = projection_refresh(discipline="fido", now=dt.datetime(2026, 4, 21, tzinfo=dt.UTC))
    assert not RankingList.objects.filter(pk=first.pk).exists()
    assert not RankingEntry.objects.filter(ranking_list_id=first.pk).exists()
    shown = projected_list("fido")
    assert shown is not None and shown.as_of == dt.datetime(2026, 4, 21, tzinfo=dt.UTC)
    assert shown.ranking_list.id == second.pk
    close(MONTHS[3])
    assert projected_list("fido") is None  # April is published: its projection is stale


def test_a_players_projected_entry() -> None:
    history(6)
    projected = projection_refresh(discipline="fido")
    shown = projected_list("fido")
    assert shown is not None
    player_id, rank, cents, _counted, _, _ = entries(projected.pk)[0]
    standing, entry = projected_standing("fido", player_id)
    assert standing == shown
    assert entry is not None and (entry.rank, entry.fladub_cents) == (rank, cents)
    nobody = PlayerFactory()
    assert projected_standing("fido", nobody.pk) == (shown, None)


def test_nothing_to_project_and_an_unknown_discipline_change_nothing() -> None:
    run = ProjectionRun.objects.create(discipline="fido", created_at=dt.datetime.now(dt.UTC))
    with pytest.raises(NothingToProject):
        projection_refresh(discipline="fido", run=run)
    run.refresh_from_db()
    assert run.state == ProjectionRun.State.FAILED and "nothing to project" in run.error
    with pytest.raises(CloseRefused):
        projection_refresh(discipline="chess")
    assert not RankingList.objects.exists()
    assert projections_refresh_all() == []


def test_the_run_records_its_progress() -> None:
    history(7)
    seen: list[tuple[str, int]] = []
    run = ProjectionRun.objects.create(discipline="fido", created_at=dt.datetime.now(dt.UTC))
    projected = projection_refresh(
        discipline="fido", run=run, progress=lambda s, p: seen.append((s, p))
    )
    run.refresh_from_db()
    assert run.state == ProjectionRun.State.SUCCEEDED and run.percent == 100
    assert run.ranking_list_id == projected.pk and run.month == MONTHS[3].first_day
    assert [stage for stage, _ in seen] == ["load", "compute", "write", "review", "done"]
