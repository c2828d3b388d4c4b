"""The web server's PostgreSQL sessions run without parallel workers (fido/wsgi.py sets
``FIDO_PG_PARALLEL_WORKERS=0``, applied when the connection starts); other processes, the
close among them, keep the server's setting."""

from __future__ import annotations

import os

import psycopg
import pytest
from django.conf import settings

from tests.processes import run_python

pytestmark = pytest.mark.postgres

SHOW = (
    "from django.db import connection\n"
    "with connection.cursor() as cursor:\n"
    "    cursor.execute('SHOW max_parallel_workers_per_gather')\n"
    "    print(cursor.fetchone()[0])\n"
)


def _child(setup: str, **extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "FIDO_PG_PARALLEL_WORKERS"}
    env.update(DJANGO_SETTINGS_MODULE="fido.settings.base", **extra)
    done = run_python("-c", setup + SHOW, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _server_default() -> str:
    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"]
    ) as conn:
        row = conn.execute("SHOW max_parallel_workers_per_gather").fetchone()
        assert row is not None
        return str(row[0])


def test_the_web_server_s_sessions_start_without_parallel_workers(db) -> None:
    assert _child("import fido.wsgi\n") == "0"
    assert _child("import fido.wsgi\n", FIDO_PG_PARALLEL_WORKERS="1") == "1"


def test_other_processes_keep_the_server_s_setting(db) -> None:
    assert _child("import django\ndjango.setup()\n") == _server_default() != "0"
