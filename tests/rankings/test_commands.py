"""close_month and export_ranking, to the letter of SPEC.md 5.3."""

from __future__ import annotations

import json
import os
import re
import subprocess
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from rankings.models import RankingList
from tests.matches.factories import ClubFactory, PlayerFactory
from tests.processes import run_python
from tests.rankings.factories import close, submit_table


@pytest.fixture
def march_results():
    club = ClubFactory(club_id="CLUB-7")
    a, b, c, d = (
        PlayerFactory(player_id=f"P-00000{i}", name=n, country=k, club=club)
        for i, (n, k) in enumerate(
            [("Ana, the first", "ES"), ("Bo", "SE"), ("Cy", "DE"), ("Di", "DE")], start=1
        )
    )
    submit_table(club, [([a], 57), ([b], 31), ([c], 31), ([d], -4)], id="t1", date="2026-03-14")
    return a, b, c, d


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_close_month_inline_prints_each_stage(march_results) -> None:
    out, _ = run("close_month", "2026-03", "--discipline", "fido", "--inline")
    lines = out.splitlines()
    assert re.fullmatch(r"fido 2026-03: closing in this process \(run \d+\)", lines[0])
    assert re.fullmatch(r"fido 2026-03: published \(list \d+, version 1, 3 entries\)", lines[1])
    assert [line.split()[0] for line in lines[2:]] == ["load", "compute", "write", "publish"]
    for line in lines[2:]:
        assert re.fullmatch(r"  \w+ +\d+\.\d{3} s", line), line
    # Again: nothing to do, the same list.
    again, _ = run("close_month", "2026-03", "--discipline", "fido", "--inline")
    assert re.fullmatch(
        r"fido 2026-03: already published \(list \d+, version 1, 3 entries\)\n", again
    )
    assert RankingList.objects.count() == 1


@pytest.mark.django_db
def test_close_month_without_discipline_closes_every_discipline(march_results) -> None:
    out, _ = run("close_month", "2026-03", "--inline")
    assert [line.split(":")[0] for line in out.splitlines() if "published" in line] == [
        "fido 2026-03",
        "allfives 2026-03",
        "austrian 2026-03",
    ]
    assert sorted(RankingList.objects.values_list("discipline", "entry_count")) == [
        ("allfives", 0),
        ("austrian", 0),
        ("fido", 3),
    ]


@pytest.mark.django_db
def test_close_month_refusals_are_errors(march_results) -> None:
    with pytest.raises(CommandError, match="1 of 1 close"):
        run("close_month", "2999-01", "--discipline", "fido", "--inline")
    run("close_month", "2026-03", "--discipline", "fido", "--inline")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("close_month", "2026-05", "--discipline", "fido", "--inline", stderr=err)
    assert (
        "fido 2026-05: 2026-05 (fido) cannot be closed while 2026-04 is not closed"
        in err.getvalue()
    )
    with pytest.raises(CommandError, match=r"month must be 1\.\.12, not 13"):
        run("close_month", "2026-13", "--inline")


@pytest.mark.django_db
def test_export_ranking_csv_to_the_letter(march_results) -> None:
    for month in ("2026-03", "2026-04"):
        close(month)
    out, _ = run("export_ranking", "2026-03")
    assert out == (
        "rank,player_id,name,country,fladub,results_counted,previous_rank\n"
        '1,P-000001,"Ana, the first",ES,10.00,1,\n'
        "2,P-000002,Bo,SE,5.00,1,\n"
        "2,P-000003,Cy,DE,5.00,1,\n"
    )
    out, _ = run("export_ranking", "2026-04", "--discipline", "fido", "--format", "csv")
    assert out.splitlines()[1:] == [
        '1,P-000001,"Ana, the first",ES,9.17,1,1',
        "2,P-000002,Bo,SE,4.58,1,2",
        "2,P-000003,Cy,DE,4.58,1,2",
    ]


@pytest.mark.django_db
def test_export_ranking_json(march_results) -> None:
    close("2026-03")
    out, _ = run("export_ranking", "2026-03", "--format", "json")
    assert '"fladub": "10.00",' in out
    assert json.loads(out) == [
        {
            "rank": 1,
            "player_id": "P-000001",
            "name": "Ana, the first",
            "country": "ES",
            "fladub": "10.00",
            "results_counted": 1,
            "previous_rank": None,
        },
        {
            "rank": 2,
            "player_id": "P-000002",
            "name": "Bo",
            "country": "SE",
            "fladub": "5.00",
            "results_counted": 1,
            "previous_rank": None,
        },
        {
            "rank": 2,
            "player_id": "P-000003",
            "name": "Cy",
            "country": "DE",
            "fladub": "5.00",
            "results_counted": 1,
            "previous_rank": None,
        },
    ]


@pytest.mark.django_db
def test_export_ranking_without_a_list_is_an_error() -> None:
    with pytest.raises(CommandError, match="no published fido list for 2026-03"):
        run("export_ranking", "2026-03")
    with pytest.raises(CommandError, match="no published austrian list for 2026-03"):
        run("export_ranking", "2026-03", "--discipline", "austrian", "--format", "json")


def test_exit_codes_and_messages_of_a_real_manage_py(tmp_path) -> None:
    """The contract automation relies on: a refusal is a message on stderr and exit 1."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["FIDO_VAR_DIR"] = str(tmp_path / "var")

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return run_python("manage.py", *args, env=env, timeout=300)

    assert manage("migrate", "-v0").returncode == 0
    refused = manage("close_month", "2999-01", "--discipline", "fido", "--inline")
    assert refused.returncode == 1
    assert "fido 2999-01: 2999-01 (fido) cannot be closed before its deadline" in refused.stderr
    closed = manage("close_month", "2026-01", "--discipline", "austrian", "--inline")
    assert closed.returncode == 0, closed.stderr
    assert "austrian 2026-01: published (" in closed.stdout
    missing = manage("export_ranking", "2026-02", "--discipline", "austrian")
    assert missing.returncode == 1
    assert "no published austrian list for 2026-02" in missing.stderr
    empty = manage("export_ranking", "2026-01", "--discipline", "austrian")
    assert (empty.returncode, empty.stdout) == (
        0,
        "rank,player_id,name,country,fladub,results_counted,previous_rank\n",
    )


@pytest.mark.django_db
def test_the_demo_leaves_the_last_month_open_to_watch_a_close(set_now) -> None:
    """Issue 15, item 7: every past month but the last is published; the last is open with
    its deadline passed, and holds late results, a correction and a void."""
    import datetime as dt

    from matches.clock import federation_tz
    from matches.models import Match, MatchEvent
    from matches.months import Month, deadline
    from rankings.selectors.cycle import open_month

    now = dt.datetime(2026, 4, 2, 10, 0, tzinfo=federation_tz())
    set_now(now)
    out = StringIO()
    call_command("seed_demo", stdout=out)
    march = Month.parse("2026-03")
    assert "2026-03 is left open" in out.getvalue()
    assert deadline(march, federation_tz()) < now
    assert not RankingList.objects.filter(month=march.first_day).exists()
    assert RankingList.objects.filter(month=(march + -1).first_day, status="published").count() == 3
    for discipline in ("fido", "allfives", "austrian"):
        assert open_month(discipline) == march
    played_in_march = Match.objects.filter(
        date_played__gte=march.first_day, date_played__lte=march.last_day
    )
    late = played_in_march.filter(status="late")
    assert late.count() >= 3
    assert {m.counting_month for m in late} == {Month.parse("2026-04").first_day}
    events = MatchEvent.objects.filter(match__counting_month=march.first_day)
    assert events.filter(kind="corrected", by__username="secretary").exists()
    assert events.filter(kind="voided").exists()
