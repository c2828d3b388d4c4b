"""Errata (issue 14, item 3): after a correction or a void touches a closed month, the admin
asks for a corrected version; the close service publishes it as v2 (same run record, same
lock, the earlier version superseded in the publication's transaction); the later months
that read it are recomputed in order on request; ``verify_list`` verifies every version as
it stood. Bad requests are refused with a message and change nothing.

The task runs in-process (``apply``) with the broker's ``send_task`` recorded; the same
path on a real worker is in test_errata_worker.py."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from fido.celery import app as celery_app
from matches import clock
from matches.models import Match
from matches.months import Month
from matches.services import match_correct, match_void
from rankings import dispatch, tasks
from rankings.models import CloseRun, Erratum, RankingEntry, RankingList
from rankings.selectors.errata import errata_due, later_months_stale
from rankings.services.errata import ErratumRefused, erratum_request, later_months_recompute
from tests.matches.factories import AdminFactory, match_payload
from tests.rankings.factories import close, submit_table
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)
from tests.rankings.test_verify_list import alter_first_entry

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fast_passwords")]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """The tasks handed to the broker (not sent: the test runs them); the sends wait for
    the commit, which the test's transaction never makes, so they run at once."""
    calls: list[tuple[str, dict[str, Any]]] = []
    monkeypatch.setattr(celery_app, "send_task", lambda name, **kw: calls.append((name, kw)))
    monkeypatch.setattr(transaction, "on_commit", lambda send, **_kw: send())
    yield calls


@pytest.fixture
def history(march_results):  # noqa: F811
    """March and April closed; then the March table t1 corrected by the federation (Di's
    -4 was 99: Di wins), after both closes."""
    a, b, c, d = march_results
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    march, april = close("2026-03"), close("2026-04")
    admin = AdminFactory()
    t1 = Match.objects.get(external_id="t1")
    payload = match_payload(
        a.club, [([a], 57), ([b], 31), ([c], 31), ([d], 99)], id="t1", date="2026-03-14"
    )
    match_correct(
        match=t1,
        payload=payload,
        by=admin,
        now=clock.now(),
        reason="Di's score was 99, not -4 (scoresheet)",
        as_admin=True,
        channel="web",
    )
    return {"march": march, "april": april, "admin": admin, "players": (a, b, c, d)}


def _run_task(run: CloseRun) -> dict[str, Any]:
    """The close task as the worker runs it, in this process."""
    return tasks.month_close.apply(
        args=(str(Month.of(run.month)), run.discipline, run.pk), task_id=run.task_id
    ).get()


def _entries(ranking_list: RankingList) -> list[tuple[str, int]]:
    return list(
        RankingEntry.objects.filter(ranking_list=ranking_list)
        .order_by("rank", "player__player_id")
        .values_list("player__player_id", "rank")
    )


def test_the_dashboard_sees_which_closed_months_a_correction_touches(history) -> None:
    due = errata_due("fido")
    assert [str(d.month) for d in due] == ["2026-03", "2026-04"]  # t1 counts in both windows
    (correction,) = due[0].corrections
    assert correction.kind == "corrected"
    assert correction.reason == "Di's score was 99, not -4 (scoresheet)"
    assert correction.match == "CLUB-7/t1"
    assert errata_due("allfives") == []


def test_an_erratum_publishes_v2_through_the_close_and_supersedes_v1(history, sent) -> None:
    march = history["march"]
    run = erratum_request(
        discipline="fido",
        month=Month(2026, 3),
        reason="t1 corrected: Di won",
        by=history["admin"],
    )
    assert [name for name, _kw in sent] == ["rankings.month_close"]
    assert run.erratum is not None and run.erratum.by == history["admin"]
    outcome = _run_task(run)
    assert outcome["state"] == "published"
    v2 = RankingList.objects.get(pk=outcome["ranking_list"])
    assert (v2.edition, v2.status, v2.erratum_id) == (2, "published", run.erratum.pk)
    assert v2.as_of_match is not None and v2.as_of_event is not None
    march.refresh_from_db()
    assert (march.edition, march.status) == (1, "superseded")
    # v1 as it was (Ana first, Di with no points unlisted); v2 with the correction (Di first).
    assert _entries(march)[0] == ("P-000001", 1) and "P-000004" not in dict(_entries(march))
    assert _entries(v2)[0] == ("P-000004", 1)
    finished = CloseRun.objects.get(pk=run.pk)
    assert (finished.state, finished.stage, finished.ranking_list_id) == (
        "succeeded",
        "done",
        v2.pk,
    )
    # A second delivery of the same task publishes nothing more.
    again = tasks.month_close.apply(args=("2026-03", "fido", run.pk), task_id="another").get()
    assert again["state"] in {"published", "superseded"}
    assert RankingList.objects.filter(month="2026-03-01", status="published").count() == 1
    assert RankingList.objects.filter(month="2026-03-01").exclude(status="failed").count() == 2
    # The month is no longer due; April is (it read v1 of March and t1 counts in it).
    assert [str(d.month) for d in errata_due("fido")] == ["2026-04"]


def test_later_months_are_recomputed_in_order_each_as_a_new_version(history, sent) -> None:
    run = erratum_request(
        discipline="fido", month=Month(2026, 3), reason="t1 corrected", by=history["admin"]
    )
    _run_task(run)
    stale = later_months_stale("fido")
    assert stale is not None and [str(m) for m in stale.months] == ["2026-04"]
    first = later_months_recompute(
        discipline="fido", reason="March v2 changes the strengths", by=history["admin"]
    )
    assert str(Month.of(first.month)) == "2026-04"
    assert first.erratum.cause_id == run.erratum.pk
    outcome = _run_task(first)
    april_v2 = RankingList.objects.get(pk=outcome["ranking_list"])
    assert (str(Month.of(april_v2.month)), april_v2.edition) == ("2026-04", 2)
    assert later_months_stale("fido") is None
    # April v2 read March v2: Di's previous rank is 1.
    di = RankingEntry.objects.get(ranking_list=april_v2, player__player_id="P-000004")
    assert di.previous_rank == 1


def test_a_chain_of_later_months_runs_one_after_the_other(march_results, sent) -> None:  # noqa: F811
    a, _b, c, _d = march_results
    for day in ("2026-04-02", "2026-05-02"):
        submit_table(a.club, [([a], 20), ([c], 3)], id=f"t{day}", date=day)
    close("2026-03"), close("2026-04"), close("2026-05")
    admin = AdminFactory()
    match_void(
        match=Match.objects.get(external_id="t1"),
        by=admin,
        reason="not a FIDO table",
        now=clock.now(),
    )
    _run_task(erratum_request(discipline="fido", month=Month(2026, 3), reason="void", by=admin))
    first = later_months_recompute(discipline="fido", reason="after March v2", by=admin)
    sent.clear()
    _run_task(first)
    # April done, May's run created and sent only now.
    (may_run,) = CloseRun.objects.filter(month="2026-05-01", erratum__isnull=False)
    closes = [kw["args"] for name, kw in sent if name == dispatch.MONTH_CLOSE]
    assert closes == [("2026-05", "fido", may_run.pk)]
    # After each close, the busiest players' packs of points.
    assert (dispatch.PLAYER_PACKS_WRITE, ("fido",)) in [(n, kw["args"]) for n, kw in sent]
    _run_task(may_run)
    assert later_months_stale("fido") is None
    editions = dict(RankingList.objects.filter(status="published").values_list("month", "edition"))
    assert {str(Month.of(m)): e for m, e in editions.items()} == {
        "2026-03": 2,
        "2026-04": 2,
        "2026-05": 2,
    }
    assert "verified" in run("verify_list", "2026-05")[0]


def test_every_version_verifies_as_it_stood(history, sent) -> None:
    _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    )
    out, _ = run("verify_list", "2026-03")
    assert "fido 2026-03 v1: verified" in out and "fido 2026-03 v2: verified" in out
    assert "verified" in run("verify_list", "2026-03", "--version", "2")[0]
    # April v1 read March v1 (as it stood), not the later v2.
    assert "fido 2026-04 v1: verified" in run("verify_list", "2026-04")[0]


def test_a_download_of_a_superseded_version_is_named_as_such(history, sent, client, tmp_path):
    """Acceptance of issue 14: a journalist's download made before the erratum is checked
    against the latest version and differs; verify_list says which version it is."""
    before = tmp_path / "fido-2026-03.csv"
    before.write_bytes(b"".join(client.get("/api/rankings/fido/2026-03.csv").streaming_content))
    _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    )
    out = StringIO()
    with pytest.raises(CommandError, match="against the published fido 2026-03 v2: DOES NOT"):
        call_command("verify_list", "2026-03", "--file", str(before), stdout=out)
    assert (
        "it is version 1 of this month's list, superseded by version 2: check it with --version 1"
    ) in out.getvalue()
    assert (
        "v1: verified" in run("verify_list", "2026-03", "--version", "1", "--file", str(before))[0]
    )


def test_a_correction_after_v2_is_left_out_of_its_verification(history, sent) -> None:
    _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    )
    t1 = Match.objects.get(external_id="t1", revision=2)
    match_void(match=t1, by=history["admin"], reason="not a FIDO table", now=clock.now())
    out, _ = run("verify_list", "2026-03")
    assert out.count("verified") == 2
    # The corrected revision counts in March in an erratum, so its void touches March: due.
    (due,) = [d for d in errata_due("fido") if str(d.month) == "2026-03"]
    assert [c.kind for c in due.corrections] == ["voided"]


@pytest.mark.postgres
def test_v1_altered_after_v2_exists_fails_and_names_it(history, sent) -> None:
    march = history["march"]
    _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    )
    alter_first_entry(march)
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    with pytest.raises(CommandError, match=r"fido 2026-03 v1: DOES NOT VERIFY"):
        call_command("verify_list", "2026-03", stdout=out)
    text = out.getvalue()
    assert "fido 2026-03 v2: verified" in text
    assert "entry 1: stored P-000001 rank 1 FLADUB" in text
    with pytest.raises(CommandError, match="v1: DOES NOT VERIFY"):
        call_command("verify_list", "2026-03", "--version", "1", stdout=StringIO())


@pytest.mark.parametrize(
    ("request_args", "message"),
    [
        ({"discipline": "chess"}, "Unknown discipline."),
        ({"reason": "  "}, "Give a reason"),
        ({"month": Month(2026, 6)}, "2026-06 of the FIDO divisor game has no published list"),
        ({"discipline": "allfives"}, "has no published list"),
    ],
)
def test_bad_requests_are_refused_and_change_nothing(history, sent, request_args, message) -> None:
    arguments = {
        "discipline": "fido",
        "month": Month(2026, 3),
        "reason": "t1",
        "by": history["admin"],
        **request_args,
    }
    with pytest.raises(ErratumRefused, match=message):
        erratum_request(**arguments)
    assert not Erratum.objects.exists() and not sent


def test_a_month_no_correction_touched_is_refused(march_results, sent) -> None:  # noqa: F811
    close("2026-03")
    with pytest.raises(ErratumRefused, match="No correction or void has touched 2026-03"):
        erratum_request(discipline="fido", month=Month(2026, 3), reason="why", by=None)
    with pytest.raises(ErratumRefused, match="No later month of the FIDO divisor game"):
        later_months_recompute(discipline="fido", reason="why", by=None)
    assert not Erratum.objects.exists() and not CloseRun.objects.filter(erratum__isnull=False)


def test_a_second_erratum_waits_for_the_first(history, sent) -> None:
    erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    with pytest.raises(ErratumRefused, match="already under way"):
        erratum_request(discipline="fido", month=Month(2026, 4), reason="t1", by=None)
    assert Erratum.objects.count() == 1


def test_the_diff_names_the_corrections_that_caused_each_move(history, sent, client) -> None:
    _run_task(
        erratum_request(discipline="fido", month=Month(2026, 3), reason="t1", by=history["admin"])
    )
    answer = client.get("/api/rankings/fido/2026-03/diff").json()
    (correction,) = answer["corrections"]
    assert correction["number"] == 1 and correction["kind"] == "corrected"
    assert correction["reason"] == "Di's score was 99, not -4 (scoresheet)"
    assert correction["match"] == "CLUB-7/t1" and correction["by"] == str(history["admin"])
    moved = {row["player_id"]: row["corrections"] for row in answer["results"]}
    assert moved["P-000004"] == [1]  # Di: new on the list, by the correction of t1
    page = client.get("/ranking/fido/2026-03/diff/").content.decode()
    assert 'id="correction-1"' in page and "Di&#x27;s score was 99" in page
    assert '<a href="#correction-1">#1</a>' in page
    # April v1 against March's latest (v2, published after it): no correction caused that.
    assert client.get("/api/rankings/fido/2026-04/diff").json()["corrections"] == []


def test_the_feed_announces_the_erratum_and_keeps_v1(history, sent, client) -> None:
    _run_task(
        erratum_request(
            discipline="fido", month=Month(2026, 3), reason="t1 rescored", by=history["admin"]
        )
    )
    feed = client.get("/feeds/lists.atom").content.decode()
    assert "FIDO world ranking, March 2026: corrected version 2" in feed
    assert "Erratum: this version replaces version 1. Why: t1 rescored." in feed
    assert "/ranking/fido/2026-03/v2/" in feed
    assert feed.count("fido-list:fido:2026-03:") == 2  # v1's entry stays
    german = client.get("/feeds/lists.atom", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "korrigierte Version 2" in german
