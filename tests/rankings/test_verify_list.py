"""``manage.py verify_list`` (issue 14, item 2): a published list verifies; an entry altered
past the immutability guard, or one byte of a downloaded file, does not, and the command
names what differs; bad input gets a message and a non-zero exit, and changes nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import CommandError
from django.db import connection

from matches.services import player_merge
from rankings.models import RankingEntry, RankingList
from tests.matches.factories import AdminFactory, PlayerFactory
from tests.rankings.factories import close, submit_table
from tests.rankings.test_commands import march_results, run  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_months(march_results):  # noqa: F811
    a, _b, c, _d = march_results
    submit_table(a.club, [([a], 20), ([c], 3)], id="t2", date="2026-04-02")
    return close("2026-03"), close("2026-04")


def test_published_lists_verify(two_months) -> None:
    march, april = two_months
    for month, stored in (("2026-03", march), ("2026-04", april)):
        out, _ = run("verify_list", month, "--discipline", "fido")
        assert out.strip() == f"fido {month} v1: verified (SHA-256 {stored.content_sha256})"
    out, _ = run("verify_list", "2026-04", "--version", "1")
    assert "verified" in out


def test_a_merge_after_the_close_does_not_break_the_verification(two_months) -> None:
    _march, april = two_months
    a = RankingEntry.objects.filter(rank=1).select_related("player").first().player
    newcomer = PlayerFactory(club=a.club)
    later = april.published_at + dt.timedelta(days=1)
    player_merge(source=a, target=newcomer, by=AdminFactory(), reason="dup", now=later)
    assert "verified" in run("verify_list", "2026-03")[0]
    assert "verified" in run("verify_list", "2026-04")[0]


@pytest.mark.postgres
def test_an_entry_altered_past_the_guard_is_found(two_months) -> None:
    march, _ = two_months
    alter_first_entry(march)
    out, err = _fails("verify_list", "2026-03")
    assert "DOES NOT VERIFY" in err
    assert "content: the stored entries give a CSV with SHA-256" in out
    assert "entry 1: stored P-000001 rank 1 FLADUB 10.01" in out
    assert "recomputed P-000001 rank 1 FLADUB 10.00" in out
    assert "inputs:" not in out  # the results are intact


def alter_first_entry(ranking_list: RankingList) -> None:
    """Add a cent to the first entry's FLADUB, as a superuser could (PostgreSQL: the
    immutability trigger off for one update)."""
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE rankings_rankingentry DISABLE TRIGGER USER")
        cursor.execute(
            "UPDATE rankings_rankingentry SET fladub_cents = fladub_cents + 1 "
            "WHERE ranking_list_id = %s AND rank = 1",
            [ranking_list.pk],
        )
        cursor.execute("ALTER TABLE rankings_rankingentry ENABLE TRIGGER USER")


def test_a_downloaded_file_is_checked_byte_for_byte(two_months, tmp_path) -> None:
    out, _ = run("export_ranking", "2026-03")
    good = tmp_path / "march.csv"
    good.write_bytes(out.encode("utf-8"))
    assert (
        "march.csv against the published fido 2026-03 v1: verified"
        in run("verify_list", "2026-03", "--file", str(good))[0]
    )
    bad = tmp_path / "march-edited.csv"
    bad.write_bytes(out.replace("5.00,1,", "5.01,1,", 1).encode("utf-8"))
    out, err = _fails("verify_list", "2026-03", "--file", str(bad))
    assert "DOES NOT VERIFY" in err
    assert (
        "line 3: the file has '2,P-000002,Bo,SE,5.01,1,', the list '2,P-000002,Bo,SE,5.00,1,'"
        in out
    )
    # The April file is not the March list.
    april = tmp_path / "april.csv"
    april.write_bytes(run("export_ranking", "2026-04")[0].encode("utf-8"))
    out, _ = _fails("verify_list", "2026-03", "--file", str(april))
    assert "file: SHA-256" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["2026-13"], "month must be 1..12, not 13"),
        (["2026-05"], "no published fido list for 2026-05"),
        (["2026-03", "--version", "7"], "no published version 7 of fido list for 2026-03"),
        (["2026-03", "--discipline", "chess"], "invalid choice: 'chess'"),
        (["2026-03", "--file", "/nonexistent/list.csv"], "no such file"),
    ],
)
def test_bad_input_gets_a_message(two_months, args, message) -> None:
    before = list(RankingList.objects.values_list("id", "status", "content_sha256"))
    with pytest.raises(CommandError, match=message.replace("(", r"\(")):
        run("verify_list", *args)
    assert list(RankingList.objects.values_list("id", "status", "content_sha256")) == before


def test_a_file_that_is_not_a_list_is_refused(two_months, tmp_path) -> None:
    other = tmp_path / "notes.csv"
    other.write_text("name,score\nAna,3\n")
    with pytest.raises(CommandError, match=r"notes\.csv is not a FIDO ranking list in CSV"):
        run("verify_list", "2026-03", "--file", str(other))


def _fails(*args: str) -> tuple[str, str]:
    """Run a command that must fail: (its stdout, the error message)."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    with pytest.raises(CommandError) as error:
        call_command(*args, stdout=out)
    return out.getvalue(), str(error.value)
