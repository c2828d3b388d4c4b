"""rankings.services.close.month_close end to end: matches submitted through the real service,
months closed, the published entries checked against SPEC.md section 4's worked examples."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from matches.audit import recording
from matches.models import ClosedMonth
from matches.months import Month
from matches.services import match_void
from rankings import writer
from rankings.models import CloseRun, RankingEntry, RankingList
from rankings.selectors.counting_results import counting_results
from rankings.selectors.lists import current_list
from rankings.selectors.player_history import player_history
from rankings.services.close import (
    CloseRefused,
    PublishedListImmutable,
    list_mutable_check,
    month_close,
)
from tests.matches.factories import AdminFactory, PlayerFactory
from tests.rankings.factories import after_deadline, close, received, submit_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def abcd(club):
    return [PlayerFactory(player_id=f"P-{name}", name=name, club=club) for name in "ABCD"]


def rows(ranking_list: RankingList) -> list[tuple[str, str, int, int | None, int | None]]:
    """(player id, FLADUB, rank, previous rank, movement) in list order."""
    return [
        (e.player.player_id, f"{e.fladub:.2f}", e.rank, e.previous_rank, e.movement)
        for e in RankingEntry.objects.filter(ranking_list=ranking_list)
        .select_related("player")
        .order_by("rank", "player__player_id")
    ]


def worked_example_table(club, abcd) -> None:
    a, b, c, d = abcd
    submit_table(club, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], id="t1", date="2026-03-14")


def test_spec_worked_example_month_by_month(club, abcd) -> None:
    worked_example_table(club, abcd)

    march = close("2026-03")
    assert march.status == RankingList.Status.PUBLISHED
    assert march.edition == 1  # v1 of the month: the close; errata are v2, v3, ...
    assert march.entry_count == 3
    # D scored 0 points: not on the list. B and C share rank 2, ordered by federation id.
    assert rows(march) == [
        ("P-A", "10.00", 1, None, None),
        ("P-B", "5.00", 2, None, None),
        ("P-C", "5.00", 2, None, None),
    ]
    assert (
        RankingEntry.objects.get(ranking_list=march, player__player_id="P-A").results_counted == 1
    )

    april = close("2026-04")
    assert rows(april) == [
        ("P-A", "9.17", 1, 1, 0),
        ("P-B", "4.58", 2, 2, 0),
        ("P-C", "4.58", 2, 2, 0),
    ]
    expected_a = {
        "2026-05": "8.33",
        "2026-06": "7.50",
        "2026-07": "6.67",
        "2026-08": "5.83",
        "2026-09": "5.00",
        "2026-10": "4.17",
        "2026-11": "3.33",
        "2026-12": "2.50",
        "2027-01": "1.67",
        "2027-02": "0.83",
    }
    for month, fladub in expected_a.items():
        listed = close(month)
        assert rows(listed)[0][:2] == ("P-A", fladub), month
    gone = close("2027-03")
    assert gone.status == RankingList.Status.PUBLISHED
    assert rows(gone) == []
    assert current_list(discipline="fido").id == gone.pk

    a = abcd[0]
    history = player_history(a, discipline="fido")
    assert [str(h.list_month) for h in history][:2] == ["2026-03", "2026-04"]
    listed = [h for h in history if h.listed]
    assert [f"{h.fladub:.2f}" for h in listed][-1] == "0.83"
    assert str(listed[-1].list_month) == "2027-02"
    assert (str(history[-1].list_month), history[-1].rank, history[-1].fladub_cents) == (
        "2027-03",
        None,
        0,
    )


def test_second_example_opponent_strength_reads_the_previous_list(club) -> None:
    a, x, y, p1, p2 = (PlayerFactory(player_id=f"P-{n}", club=club) for n in "AXYQR")
    # February: X wins ten club tables (100.00), Y five (50.00); the first list, all q = 0.
    for n in range(10):
        submit_table(club, [([x], 10), ([p1], 0)], id=f"fx{n}", date="2026-02-10")
    for n in range(5):
        submit_table(club, [([y], 10), ([p2], 0)], id=f"fy{n}", date="2026-02-11")
    february = close("2026-02")
    assert rows(february)[:2] == [("P-X", "100.00", 1, None, None), ("P-Y", "50.00", 2, None, None)]
    # March, a table of three: A first, X second, Y last.
    submit_table(club, [([a], 30), ([x], 20), ([y], 10)], id="m1", date="2026-03-05")
    march = close("2026-03")
    got = {pid: fladub for pid, fladub, *_ in rows(march)}
    assert got["P-A"] == "17.50"  # 10 * ((1 + 1.0) + (1 + 0.5)) / 2
    assert got["P-X"] == "99.17"  # 100 * 11/12 + 10 * (1 + 0.5) / 2 = 91.67 + 7.50
    assert got["P-Y"] == "45.83"  # 50 * 11/12 + 0

    breakdown = counting_results(a.pk, discipline="fido", month=Month(2026, 3))
    assert [(r.match_id, r.points, r.age, r.in_best) for r in breakdown.results] == [
        ("m1", 17.5, 0, True)
    ]
    assert breakdown.fladub == RankingEntry.objects.get(ranking_list=march, player=a).fladub
    x_breakdown = counting_results(x.pk, discipline="fido", month=Month(2026, 3))
    assert len(x_breakdown.results) == 11
    assert f"{x_breakdown.fladub:.2f}" == "99.17"


def test_a_late_result_counts_in_the_month_received_with_its_age(club, abcd) -> None:
    a, b, *_ = abcd
    submit_table(club, [([a], 5), ([b], 1)], id="early", date="2026-03-02")
    close("2026-03")
    # Played in March, received on 5 April: late, counts in April with age 1.
    submit_table(
        club, [([b], 9), ([a], 1)], id="late", date="2026-03-30", now=received(dt.date(2026, 4, 5))
    )
    april = close("2026-04")
    assert rows(april) == [("P-A", "9.17", 1, 1, 0), ("P-B", "9.17", 1, None, None)]


def test_a_result_voided_after_the_close_leaves_the_next_list_only(club, abcd) -> None:
    worked_example_table(club, abcd)
    march = close("2026-03")
    match = abcd[0].results.get().match
    match_void(match=match, by=AdminFactory(), reason="wrong table", now=after_deadline("2026-03"))
    assert rows(close("2026-04")) == []
    assert len(rows(march)) == 3  # the published list did not change


def test_refused_before_the_deadline(club, abcd) -> None:
    worked_example_table(club, abcd)
    just_before = after_deadline("2026-03", minutes=0) - dt.timedelta(seconds=1)
    with pytest.raises(CloseRefused, match="before its deadline, 2026-04-01 00:00"):
        month_close(month=Month(2026, 3), discipline="fido", now=just_before)
    assert not RankingList.objects.exists()
    assert not ClosedMonth.objects.exists()
    run = CloseRun.objects.get()
    assert run.state == CloseRun.State.FAILED
    assert "deadline" in run.error


def test_refused_while_the_previous_month_is_open(club, abcd) -> None:
    worked_example_table(club, abcd)
    close("2026-03")
    with pytest.raises(CloseRefused, match="while 2026-04 is not closed"):
        close("2026-05")
    # Nor may a month before the first close be closed any more.
    with pytest.raises(CloseRefused, match="while 2026-01 is not closed"):
        close("2026-02")
    assert RankingList.objects.count() == 1


def test_the_very_first_close_may_be_any_month(club, abcd) -> None:
    worked_example_table(club, abcd)
    assert rows(close("2026-06"))[0][:2] == ("P-A", "7.50")


def test_unknown_discipline_is_refused() -> None:
    with pytest.raises(CloseRefused, match="unknown discipline"):
        month_close(month=Month(2026, 3), discipline="chess", now=after_deadline("2026-03"))


def test_a_second_close_returns_the_same_list(club, abcd) -> None:
    worked_example_table(club, abcd)
    first = close("2026-03")
    second = close("2026-03")
    assert second.pk == first.pk
    assert RankingList.objects.count() == 1
    assert RankingEntry.objects.count() == 3
    runs = list(CloseRun.objects.order_by("id"))
    assert [r.state for r in runs] == ["succeeded", "succeeded"]
    assert runs[0].ranking_list_id == runs[1].ranking_list_id == first.pk
    assert set(runs[0].timings) == {"freeze", "load", "compute", "write", "publish"}
    assert runs[0].percent == 100


def test_an_exception_half_way_leaves_the_previous_list_live(club, abcd, monkeypatch) -> None:
    worked_example_table(club, abcd)
    march = close("2026-03")

    def broken(**_kwargs):
        raise RuntimeError("disk full (simulated)")

    monkeypatch.setattr(writer, "write_entries", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        close("2026-04")
    assert current_list(discipline="fido").id == march.pk
    assert not RankingList.objects.filter(month="2026-04-01", status="published").exists()
    run = CloseRun.objects.order_by("-id").first()
    assert run is not None
    assert run.state == CloseRun.State.FAILED
    assert run.error == "RuntimeError: disk full (simulated)"
    assert run.stage == "write"
    assert set(run.timings) == {"freeze", "load", "compute", "write"}
    # April is frozen; the retry computes it and publishes once.
    monkeypatch.undo()
    april = close("2026-04")
    assert current_list(discipline="fido").id == april.pk
    assert rows(april)[0][:2] == ("P-A", "9.17")
    assert RankingList.objects.filter(month="2026-04-01").count() == 1


def test_a_crashed_attempt_is_discarded_by_the_retry(club, abcd) -> None:
    worked_example_table(club, abcd)
    # What a worker killed after writing leaves behind: a computing list with entries.
    with recording():
        leftover = RankingList.objects.create(
            discipline="fido",
            month=dt.date(2026, 3, 1),
            version=1,
            created_at=after_deadline("2026-03"),
        )
        RankingEntry.objects.create(
            ranking_list=leftover, player=abcd[3], rank=1, fladub_cents=99999, results_counted=1
        )
    published = close("2026-03")
    assert published.version == 2
    leftover.refresh_from_db()
    assert leftover.status == RankingList.Status.FAILED
    assert not leftover.entries.exists()
    assert rows(published)[0][:2] == ("P-A", "10.00")


def test_a_published_list_is_immutable(club, abcd) -> None:
    worked_example_table(club, abcd)
    march = close("2026-03")
    with pytest.raises(PublishedListImmutable):
        list_mutable_check(march)
    with pytest.raises(IntegrityError), transaction.atomic():
        RankingList.objects.filter(pk=march.pk).update(version=7)
    with pytest.raises(IntegrityError), transaction.atomic():
        RankingEntry.objects.filter(ranking_list=march).update(fladub_cents=1)
    assert rows(march)[0][:2] == ("P-A", "10.00")


def test_progress_is_reported_stage_by_stage(club, abcd) -> None:
    worked_example_table(club, abcd)
    seen: list[tuple[str, int]] = []
    close("2026-03", progress=lambda stage, percent: seen.append((stage, percent)))
    assert [s for s, _ in seen] == ["freeze", "load", "compute", "write", "publish", "done"]
    assert [p for _, p in seen] == sorted(p for _, p in seen)
    assert seen[-1] == ("done", 100)


@pytest.mark.postgres
def test_postgres_refuses_new_entries_in_a_published_list_or_a_missing_one(club, abcd) -> None:
    worked_example_table(club, abcd)
    march = close("2026-03")
    # Past the app's guard (matches.audit), as a superuser's shell could: the database refuses.
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic(), recording():
        RankingEntry.objects.create(
            ranking_list=march, player=abcd[3], rank=9, fladub_cents=1, results_counted=1
        )
    with pytest.raises(IntegrityError, match="does not exist"), transaction.atomic(), recording():
        RankingEntry.objects.create(
            ranking_list_id=march.pk + 1000,
            player=abcd[3],
            rank=9,
            fladub_cents=1,
            results_counted=1,
        )
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        RankingEntry.objects.filter(ranking_list=march).delete()
    with pytest.raises(IntegrityError, match="immutable"), transaction.atomic():
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM rankings_rankinglist WHERE id = %s", [march.pk])
    assert len(rows(march)) == 3


@pytest.mark.postgres
def test_the_close_refreshes_the_planners_statistics_of_the_entries(club, abcd) -> None:
    """A fresh list's entries are in the planner's statistics once the close is done (with
    autovacuum off or behind, a new list's pages were planned as if it were empty)."""
    from django.db import connection

    from rankings.partitions import partition_name

    worked_example_table(club, abcd)
    march = close("2026-03")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT most_common_vals::text FROM pg_stats "
            "WHERE tablename = %s AND attname = 'ranking_list_id'",
            [partition_name(march.pk)],
        )
        found = cursor.fetchall()
    assert found and found[0][0].strip("{}").split(",") == [str(march.pk)]


def test_the_entries_are_analysed_before_the_list_is_sealed(club, abcd, monkeypatch) -> None:
    # The seal's CSV statement reads the new entries: planned before their statistics
    # exist, it plans them as an empty list (the publish stage took 2 to 3 times as long
    # at 1M / 12M), so the ANALYZE must be done first.
    from rankings import seal

    steps: list[str] = []
    analyze, list_seal = writer.analyze_entries, seal.list_seal

    def analyzing(list_id: int, **kwargs) -> None:
        steps.append("analyze")
        analyze(list_id, **kwargs)

    def sealing(*args, **kwargs) -> None:
        steps.append("seal")
        list_seal(*args, **kwargs)

    monkeypatch.setattr(writer, "analyze_entries", analyzing)
    monkeypatch.setattr(seal, "list_seal", sealing)
    worked_example_table(club, abcd)
    assert close("2026-03").status == RankingList.Status.PUBLISHED
    assert steps == ["analyze", "seal"]
