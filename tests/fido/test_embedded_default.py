"""The embedded default (SQLite file + kombu filesystem broker + file results) really works.

Runs in a subprocess with ``DATABASE_URL`` and ``REDIS_URL`` removed, so the settings fall
back to the embedded default whatever the surrounding suite uses; a real worker (the same
``start_worker`` harness) consumes the file broker and answers a task that queries SQLite.
"""

from __future__ import annotations

import json
import os

from tests.processes import run_python

SCRIPT = r"""
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from celery.contrib.testing.worker import start_worker
from fido.celery import app
from django.conf import settings
# Tasks are sent by name, without importing their module here: the worker must find them
# itself, as a separate `celery worker` process does.
with start_worker(app, perform_ping_check=False, shutdown_timeout=30.0):
    answer = {
        "ping": app.send_task("fido.ping").get(timeout=60),
        "db": app.send_task("fido.database_ping").get(timeout=60),
    }
answer["broker"] = app.conf.broker_url
answer["backend"] = str(app.conf.result_backend)
answer["engine"] = settings.DATABASES["default"]["ENGINE"]
print("RESULT " + json.dumps(answer))
"""


def test_embedded_default_runs_a_real_worker_on_sqlite_and_the_file_broker(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["FIDO_VAR_DIR"] = str(tmp_path / "var")
    env["DJANGO_SETTINGS_MODULE"] = "fido.settings.base"
    proc = run_python("-c", SCRIPT, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    answer = json.loads(line.removeprefix("RESULT "))
    assert answer["ping"] == "pong"
    assert answer["db"] == {"vendor": "sqlite", "result": 1}
    assert answer["broker"] == "filesystem://"
    assert answer["backend"].startswith("fido.embedded_broker:AtomicFilesystemBackend+file://")
    assert answer["engine"] == "django.db.backends.sqlite3"
    assert (tmp_path / "var" / "fido.sqlite3").exists()
