"""``manage.py replay``: report on stdout, reasons on stderr, exit status 1 on refusal.

``call_command`` raises the CommandError that ``manage.py`` turns into stderr and the exit
status, so the tests check its message and ``returncode``; one test runs the real
``manage.py`` in a subprocess to check the streams and the exit status end to end. No test
touches the database.
"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.processes import run_python

from .rules.fido_records import DOMINO_GAME, SECTION_2_EXAMPLE


def write(tmp_path, content, name="record.json"):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def run(*args):
    out = io.StringIO()
    call_command("replay", *args, stdout=out)
    return out.getvalue()


def refused(*args):
    with pytest.raises(CommandError) as caught:
        run(*args)
    assert caught.value.returncode == 1
    return str(caught.value)


def test_prints_the_report_as_json(tmp_path):
    report = json.loads(run(write(tmp_path, DOMINO_GAME)))
    assert report["games"][0]["end"] == "domino"
    assert report["games"][0]["players"]["B"] == {"points": 10, "pips_left": 4, "final": 6}
    assert report["session"]["winners"] == ["B"]


def test_partial_reports_an_unfinished_game(tmp_path):
    data = {**SECTION_2_EXAMPLE, "moves": SECTION_2_EXAMPLE["moves"][:4]}
    path = write(tmp_path, data)
    assert "stops before the game ends" in refused(path)
    report = json.loads(run(path, "--partial"))
    assert report["games"][0]["end"] == "unfinished"


def test_illegal_move_names_path_move_player_and_rule(tmp_path):
    assert refused(write(tmp_path, SECTION_2_EXAMPLE)) == (
        "illegal move at games[0].moves[4] (move 5, A): A can place 18-7 and must play "
        "[pass-while-playable]"
    )


def test_schema_error_names_the_field(tmp_path):
    data = {**DOMINO_GAME, "variant": {"game": "fido", "set": 7}}
    assert refused(write(tmp_path, data)) == (
        "invalid record at variant.set: must be one of 6, 9, 12, 15, 18, 21, got 7"
    )


def test_missing_file(tmp_path):
    assert refused(str(tmp_path / "nope.json")) == (
        f"cannot read {tmp_path / 'nope.json'}: No such file or directory"
    )


def test_directory_is_unreadable(tmp_path):
    assert refused(str(tmp_path)).startswith(f"cannot read {tmp_path}: ")


def test_malformed_json(tmp_path):
    path = write(tmp_path, '{"variant": {"game": "fido",}')
    assert refused(path) == (
        f"{path} is not valid JSON: Expecting property name enclosed in double quotes "
        "at line 1, column 29"
    )


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"seats": ["\xe9"]}')
    assert refused(str(path)).startswith(f"cannot read {path}: ")


def test_json_that_is_not_a_record(tmp_path):
    assert refused(write(tmp_path, "[1, 2, 3]")) == (
        "invalid record: a game record is a JSON object"
    )


def test_reads_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(DOMINO_GAME)))
    assert json.loads(run("-"))["games"][0]["winners"] == ["B"]


def test_manage_py_exit_status_and_streams(tmp_path):
    good = run_python("manage.py", "replay", write(tmp_path, DOMINO_GAME), timeout=300)
    assert good.returncode == 0
    assert json.loads(good.stdout)["session"]["winners"] == ["B"]
    bad = run_python(
        "manage.py", "replay", write(tmp_path, SECTION_2_EXAMPLE, "bad.json"), timeout=300
    )
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert "illegal move at games[0].moves[4] (move 5, A)" in bad.stderr
