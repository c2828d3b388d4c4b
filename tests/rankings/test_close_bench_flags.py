"""Bad input to ``bench/close_month.py``: one clear line on stderr, a non-zero exit, no
traceback, nothing created (the checks run before any database work)."""

from __future__ import annotations

import pytest

from tests.processes import refused


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "0"], "--scale must be above 0 and at most 2, not 0"),
        (["--scale", "-1"], "--scale must be above 0 and at most 2, not -1"),
        (["--workers", "0"], "--workers must be 1..16, not 0"),
        (["--repeat", "0"], "--repeat must be 1..50, not 0"),
        (["--database", "x; drop"], "--database must be a plain name"),
        # Nothing listens on port 1: the server is missing.
        (["--port", "1", "--scale", "0.01"], "cannot connect to PostgreSQL at 127.0.0.1:1"),
    ],
)
def test_bad_flags_give_one_line_and_a_non_zero_exit(args: list[str], message: str) -> None:
    done = refused("bench/close_month.py", *args, status=2, message=message)
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout.count("\n") <= 1  # at most "preparing", never a run


@pytest.mark.postgres
def test_a_missing_role_gives_one_line() -> None:
    done = refused(
        "bench/close_month.py",
        *("--superuser", "no_such_role_fido", "--scale", "0.01"),
        status=2,
        message="cannot connect to PostgreSQL",
    )
    assert "no_such_role_fido" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.postgres
def test_the_data_step_on_a_missing_database_gives_one_line() -> None:
    done = refused(
        "bench/close_data.py",
        *("reset", "--database", "no_such_db_fido"),
        status=1,
        message='database "no_such_db_fido" does not exist',
    )
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_cold_case_has_its_own_result_file_and_docs_block() -> None:
    """``--cold`` (the earlier lists without packs) never overwrites the packed figures."""
    import importlib

    bench = importlib.import_module("bench.close_month")
    warm, cold = bench.parse(["--lists", "12"]), bench.parse(["--lists", "12", "--cold"])
    assert bench.default_out(warm).name == "close_month_lists12.json"
    assert bench.default_out(cold).name == "close_month_lists12_cold.json"
    assert bench.docs_key(warm) == "bench/close_month.py --scale 1 --lists 12"
    assert bench.docs_key(cold) == "bench/close_month.py --scale 1 --lists 12 --cold"
