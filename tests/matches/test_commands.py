"""The command-line contract of SPEC.md 5.3: import_clubs, import_players, import_results,
void_match — summary lines, per-line errors on stderr, exit codes, idempotency."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from matches.models import Club, Match, Player, SideMember

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except CommandError as exc:
        err.write(str(exc))
        code = exc.returncode
    return out.getvalue(), err.getvalue(), code


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    clubs = tmp_path / "clubs.csv"
    clubs.write_text(
        "club_id,name,country,city\n"
        "CLUB-7,Domino Club Sieben,de,Berlin\n"
        "CLUB-8,Achter,AT,Wien\n"
        "BAD-1,No prefix,DE,Berlin\n"
        "CLUB-9,=cmd|' /C calc'!A0,DE,Berlin\n",
        encoding="utf-8",
    )
    players = tmp_path / "players.csv"
    players.write_text(
        "player_id,name,country,club_id\n"
        + "".join(f"P-{i:06d},Player {i},DE,CLUB-7\n" for i in range(1, 5))
        + "P-000005,Lone,DE,\n"
        "P-000006,Ghost,DE,CLUB-404\n"
        "P-000007,Too,Many,DE,CLUB-7\n",
        encoding="utf-8",
    )
    return tmp_path


def test_import_clubs_upserts_and_reports_rejected_lines(registry: Path) -> None:
    out, err, code = run("import_clubs", str(registry / "clubs.csv"))
    assert out.strip() == "created 2, updated 0, unchanged 0, rejected 2"
    assert "line 4: club_id: a club id looks like CLUB-7" in err
    assert "line 5: name: name must not start with '='" in err
    assert code == 1
    assert Club.objects.get(club_id="CLUB-7").country == "DE"
    (registry / "clubs2.csv").write_text(
        "club_id,name,country,city\nCLUB-7,Domino Club 7,DE,Berlin\nCLUB-8,Achter,AT,Wien\n"
    )
    out, err, code = run("import_clubs", str(registry / "clubs2.csv"))
    assert (out.strip(), err, code) == ("created 0, updated 1, unchanged 1, rejected 0", "", 0)
    assert Club.objects.get(club_id="CLUB-7").name == "Domino Club 7"


def test_import_with_a_wrong_header_stores_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name\nCLUB-1,x\n")
    _, err, code = run("import_clubs", str(bad))
    assert code == 1 and "header must be exactly club_id,name,country,city" in err
    assert Club.objects.count() == 0
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    _, err, code = run("import_clubs", str(binary))
    assert code == 1 and "not UTF-8" in err
    _, err, code = run("import_clubs", str(tmp_path / "missing.csv"))
    assert code == 1 and "cannot read" in err


def test_import_players(registry: Path) -> None:
    run("import_clubs", str(registry / "clubs.csv"))
    out, err, code = run("import_players", str(registry / "players.csv"))
    assert out.strip() == "created 5, updated 0, unchanged 0, rejected 2"
    assert "line 7: club_id: unknown club CLUB-404" in err
    assert "line 8: wrong number of columns" in err
    assert code == 1
    assert Player.objects.get(player_id="P-000005").club is None


def line(i: int, **over: object) -> str:
    base = {
        "id": f"CLUB-7/2026-03-14/t{i}",
        "date": "2026-03-14",
        "club": "CLUB-7",
        "discipline": "fido",
        "category": "club",
        "sides": [{"players": ["P-000001"], "score": 57}, {"players": ["P-000002"], "score": 31}],
        "submitted_at": "2026-03-31T21:40:00+02:00",
    }
    base.update(over)
    return json.dumps(base)


def test_import_results_contract(registry: Path) -> None:
    run("import_clubs", str(registry / "clubs.csv"))
    run("import_players", str(registry / "players.csv"))
    jsonl = registry / "results.jsonl"
    jsonl.write_text(
        "\n".join(
            [
                line(1),
                line(2, submitted_at="2026-04-01T00:00:00+02:00"),
                "{not json",
                line(3, sides=[{"players": ["P-000001"], "score": 1}]),
                line(4, submitted_at=None),
                "",
                line(
                    5,
                    sides=[
                        {"players": ["P-000001"], "score": 1},
                        {"players": ["P-999"], "score": 0},
                    ],
                ),
            ]
        )
        + "\n"
    )
    out, err, code = run("import_results", str(jsonl), "--as-of", "2026-04-02T10:00:00+02:00")
    assert out.strip() == "imported 3, skipped 0 (already present), rejected 3"
    assert code == 1
    errors = err.splitlines()
    assert errors[0].startswith("line 3: not valid JSON")
    assert errors[1] == "line 4: sides: a match has 2 to 9 sides, not 1"
    assert (
        errors[2]
        == "line 7: sides[1].players[0]: there is no player P-999; check the federation id"
    )
    statuses = dict(Match.objects.values_list("external_id", "status"))
    assert statuses == {
        "CLUB-7/2026-03-14/t1": "on_time",
        "CLUB-7/2026-03-14/t2": "late",  # submitted at the deadline instant itself
        "CLUB-7/2026-03-14/t4": "late",  # no submitted_at: --as-of (2 April) is the clock
    }
    received = Match.objects.get(external_id="CLUB-7/2026-03-14/t1").received_at
    assert received == dt.datetime(2026, 3, 31, 19, 40, tzinfo=dt.UTC)
    # Idempotent per id: the same file again imports nothing new.
    out, err, code = run("import_results", str(jsonl), "--as-of", "2026-04-02T10:00:00+02:00")
    assert out.strip() == "imported 0, skipped 3 (already present), rejected 3"
    assert Match.objects.count() == 3 and SideMember.objects.count() == 6


def test_import_results_bad_arguments(tmp_path: Path) -> None:
    _, err, code = run("import_results", str(tmp_path / "none.jsonl"))
    assert code == 1 and "cannot read" in err
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    _, err, code = run("import_results", str(empty), "--as-of", "yesterday")
    assert code == 1 and "--as-of is not an ISO 8601 instant" in err


def test_void_match(registry: Path) -> None:
    run("import_clubs", str(registry / "clubs.csv"))
    run("import_players", str(registry / "players.csv"))
    jsonl = registry / "r.jsonl"
    jsonl.write_text(line(1) + "\n")
    run("import_results", str(jsonl))
    out, err, code = run("void_match", "CLUB-7/2026-03-14/t1", "--reason", "forfeit")
    assert code == 0 and out.strip() == "voided CLUB-7/2026-03-14/t1 from 2026-03 on"
    match = Match.objects.get()
    assert match.void_reason == "forfeit"
    _, err, code = run("void_match", "CLUB-7/2026-03-14/t1", "--reason", "again")
    assert code == 1 and "already voided" in err
    _, err, code = run("void_match", "nope", "--reason", "x")
    assert code == 1 and "no match with id nope" in err
