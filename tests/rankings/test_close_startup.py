"""The start-up of ``manage.py close_month``: what the command imports before it works.

The close is timed as a whole process (bench/close_month.py), so the command must not
pay for what it never uses: Django's system checks (which import every URL module, view
and the API schema generator), Celery with its broker clients (``--inline`` never talks
to a broker), the apps' admin modules, and the close's own NumPy code until a close is
due. A month that does not parse stops the command in ``handle``, after every
module-level import and after the checks would have run, and before any database access.
"""

from __future__ import annotations

import os
import subprocess

from tests.processes import run_python


def _imported_modules(*args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "fido.settings.base"}
    done = run_python("-X", "importtime", "manage.py", *args, env=env)
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return modules, done


def test_close_month_starts_without_checks_or_celery() -> None:
    modules, done = _imported_modules("close_month", "2026-13", "--inline")
    assert done.returncode != 0
    assert "month must be 1..12" in done.stderr  # refused in handle(), not before
    # The listing is real: the command's own imports are in it (the command module
    # itself is loaded by importlib.import_module, which -X importtime does not list).
    assert {"django.core.management", "rankings.services.close_run"} <= modules
    unwanted = ("celery", "kombu", "redis", "drf_spectacular.views", "rest_framework.views")
    assert {name for name in unwanted if name in modules} == set()
    # Nor the close itself before it is needed (NumPy, the loader: a month already
    # published answers without them), nor the apps' admin modules (discovered when the
    # URLs load, SimpleAdminConfig) with the services and forms they import.
    later = ("numpy", "rankings.services.close", "rankings.loader", "matches.admin")
    assert {name for name in later if name in modules} == set()


def test_the_admin_is_still_discovered_with_the_urls() -> None:
    from django.contrib import admin
    from django.urls import reverse

    from matches.models import Match
    from rankings.models import RankingList

    reverse("admin:index")  # loads the URLs, which discover the admin modules
    assert admin.site.is_registered(Match) and admin.site.is_registered(RankingList)


def test_another_command_still_runs_the_checks() -> None:
    """The control: a command with checks imports the URL modules (fido/urls.py imports
    drf_spectacular.views), so the test above would see it if close_month ran them."""
    modules, done = _imported_modules("check")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "drf_spectacular.views" in modules
