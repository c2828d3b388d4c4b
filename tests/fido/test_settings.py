"""Configuration: production settings pass ``check --deploy``; CI runs on the real servers."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[2]


def test_production_settings_pass_check_deploy_without_warnings() -> None:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="fido.settings.production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="ranking.fido.example",
    )
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues (0 silenced)." in proc.stdout


def test_production_settings_refuse_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DJANGO_SETTINGS_MODULE="fido.settings.production", ALLOWED_HOSTS="x.example")
    proc = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "SECRET_KEY" in proc.stderr


def test_federation_time_zone_drives_django_and_celery() -> None:
    from fido.celery import app

    assert settings.TIME_ZONE == settings.FIDO_TIMEZONE
    assert app.conf.timezone == settings.FIDO_TIMEZONE
    assert settings.USE_TZ is True


@pytest.mark.skipif(not IN_CI, reason="only CI is required to run on PostgreSQL")
@pytest.mark.django_db
def test_ci_runs_on_postgresql() -> None:
    from django.db import connection

    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        (version,) = cursor.fetchone()
    assert int(version) >= 130000
