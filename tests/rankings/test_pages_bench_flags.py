"""Bad input to ``bench/pages.py``: a clear message naming what is wrong, exit status 2, no
traceback, nothing started (the flags are checked before any database work); ``--kind``
narrows the timed requests to the kinds named, each the request a run of every kind makes."""

from __future__ import annotations

import pytest

from bench import pages
from tests.processes import refused


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "page:nope"], "no kind 'page:nope'; the kinds are: page:ranking-first"),
        (["--kind", "whatif"], "api:player-results, page:whatif, api:whatif"),
        (
            ["--kind", "page:whatif", "--kind", "api:whatiff"],
            "no kind 'api:whatiff'; the kinds are:",
        ),
        (["--kind", "page:whatif", "--update-docs"], "--update-docs writes every kind"),
        (["--requests", "0"], "--requests must be 1..10000"),
        (["--concurrency", "33"], "--concurrency must be 1..32"),
    ],
)
def test_bad_flags_are_refused_before_any_work(args: list[str], message: str) -> None:
    done = refused("bench/pages.py", *args, status=2, message=message)
    assert done.stdout == ""  # nothing prepared, nothing timed


def test_kinds_default_to_every_kind_in_order_each_once() -> None:
    assert pages.parse([]).kinds == pages.KINDS
    named = ["--kind", "api:whatif", "--kind", "page:whatif", "--kind", "api:whatif"]
    assert pages.parse(named).kinds == ("page:whatif", "api:whatif")


def test_a_kind_alone_gets_the_requests_of_a_run_of_every_kind() -> None:
    found = {
        "deep_rank": 500_000,
        "players": [f"P{n:04d}" for n in range(40)],
        "searches": ["Player 0001", "12345", "234"],
        "club": "C-1",
    }
    every = pages.plan_requests(found, 5, seed=7)
    only = pages.plan_requests(found, 5, seed=7, kinds=("page:whatif", "api:whatif"))
    assert {p[0] for p in only} == {"page:whatif", "api:whatif"}
    assert sorted(only, key=repr) == sorted(
        (p for p in every if p[0] in {"page:whatif", "api:whatif"}), key=repr
    )
    assert len(every) == 5 * len(pages.KINDS)


@pytest.mark.postgres
def test_a_missing_role_for_a_database_that_exists_is_named_and_nothing_is_created() -> None:
    import psycopg
    from django.db import connection

    done = refused(
        "bench/pages.py",
        *("--user", "no_such_role_fido", "--database", "postgres", "--requests", "1"),
        status=1,
        message="database postgres exists (owner postgres) but role no_such_role_fido does not",
    )
    assert "run with --user postgres" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        user="postgres",
        dbname="postgres",
    ) as conn:
        found = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'no_such_role_fido'")
        assert found.fetchone() is None  # no role made for a database it cannot use
