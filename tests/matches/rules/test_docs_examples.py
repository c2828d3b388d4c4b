"""The worked examples of docs/rules.md (issue 15, item 8): every record on that page is
replayed and every number of the tables under it is checked against the engine's report,
so that the page and the engine cannot disagree."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from matches.rules import replay

PAGE = Path(__file__).resolve().parents[3] / "docs" / "rules.md"
SEATS = ("A", "B", "C", "D")


def examples() -> dict[str, tuple[dict[str, Any], list[list[dict[str, str]]]]]:
    """Each ```json example=NAME``` block of the page: its record and the tables after it
    (up to the next example or heading), each a list of rows keyed by the header."""
    text = PAGE.read_text(encoding="utf-8")
    found = {}
    for block in re.finditer(r"```json example=(\w+)\n(.*?)```(.*?)(?=\n#|```json|\Z)", text, re.S):
        name, record, after = block.groups()
        tables = []
        for table in re.findall(r"((?:^\|.*\|\n)+)", after, re.M):
            lines = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()]
            header, rows = lines[0], lines[2:]
            tables.append([dict(zip(header, row, strict=True)) for row in rows])
        found[name] = (json.loads(record), tables)
    return found


EXAMPLES = examples()


def test_the_page_has_a_worked_example_of_each_game() -> None:
    assert sorted(EXAMPLES) == ["buki", "fido", "muggins", "pulle"]


def moves_and_players(report: dict[str, Any], tables: list[list[dict[str, str]]]) -> None:
    moves, players = tables
    (game,) = report["games"]
    assert [
        (int(r["n"]), r["player"], r["tile"], int(r["count"]), int(r["points"])) for r in moves
    ] == [(m["n"], m["player"], m["tile"], m["count"], m["points"]) for m in game["moves"]]
    columns = {
        "points": "points",
        "pips left": "pips_left",
        "final": "final",
        "hand end": "hand_end",
    }
    assert {
        r["player"]: {columns[k]: int(v) for k, v in r.items() if k in columns} for r in players
    } == game["players"]
    assert game["end"] == "domino"


def test_fido() -> None:
    record, tables = EXAMPLES["fido"]
    report = replay(record)
    moves_and_players(report, tables)
    assert report["session"]["winners"] == ["A", "C"]
    assert [s["total"] for s in report["session"]["sides"]] == [-21, -22]


@pytest.mark.parametrize("game", ["muggins", "fiveup"])
def test_muggins_and_five_up(game: str) -> None:
    record, tables = EXAMPLES["muggins"]
    report = replay({**record, "variant": {"game": game}})
    moves_and_players(report, tables)
    assert report["games"][0]["winners"] == ["A"]


def money_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{p: r[p] for p in SEATS} for r in rows if r["game"] != "session"]


def session_row(rows: list[dict[str, str]]) -> dict[str, str]:
    (row,) = [r for r in rows if r["game"] == "session"]
    return {p: row[p] for p in SEATS}


def test_buki() -> None:
    record, (ledger,) = EXAMPLES["buki"]
    report = replay(record)
    assert [g["ledger"] for g in report["games"]] == money_rows(ledger)
    assert [g["winners"] for g in report["games"]] == [
        [r["winner"]] for r in ledger if r["game"] != "session"
    ]
    assert {p: v["money"] for p, v in report["session"]["players"].items()} == session_row(ledger)
    assert report["session"]["winners"] == [session_row_winner(ledger)]


def session_row_winner(rows: list[dict[str, str]]) -> str:
    return next(r["winner"] for r in rows if r["game"] == "session")


def test_pulle() -> None:
    record, (scores, ledger) = EXAMPLES["pulle"]
    report = replay(record)
    games = report["games"]
    assert [[r["winner"]] for r in scores] == [g["winners"] for g in games]
    assert [{p: int(r[p]) for p in SEATS} for r in scores] == [g["pulle"]["scores"] for g in games]
    assert [r["buy-backs"] for r in scores] == [
        ", ".join(f"{b['player']} {b['from']} → {b['to']}" for b in g["pulle"]["buy_backs"])
        for g in games
    ]
    assert [r["out"] for r in scores] == [", ".join(g["pulle"]["eliminated"]) for g in games]
    assert [r["pool"] for r in scores] == [g["pulle"]["pool"] for g in games]
    assert [g["ledger"] for g in games] == money_rows(ledger)
    assert {p: v["money"] for p, v in report["session"]["players"].items()} == session_row(ledger)
    assert games[-1]["pulle"]["pool_taken_by"] == "C"
