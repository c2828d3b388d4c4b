"""Configuration: production settings pass ``check --deploy``; CI runs on the real servers."""

from __future__ import annotations

import os
import runpy
import secrets

import pytest
from django.conf import settings

from bench.common import GUNICORN_CONF, gunicorn_layout
from tests.conftest import IN_CI
from tests.processes import run_python


def test_production_settings_pass_check_deploy_without_warnings() -> None:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="fido.settings.production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="ranking.fido.example",
    )
    proc = run_python("manage.py", "check", "--deploy", "--fail-level", "WARNING", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues (0 silenced)." in proc.stdout


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


# --- the production path is production by default (issue 16, item 9) ---------------------

_NO_SETTINGS = ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS")


def _bare_env(**extra: str) -> dict[str, str]:
    """This environment without a settings module, a secret key or allowed hosts."""
    env = {k: v for k, v in os.environ.items() if k not in _NO_SETTINGS}
    env.update(extra)
    return env


@pytest.mark.parametrize(
    "entry",
    [
        ("manage.py", "check"),
        ("-c", "import fido.wsgi"),
        ("-c", "import fido.asgi"),
        ("-c", "from fido.celery import app; print(app.conf.broker_url)"),
    ],
    ids=["manage.py", "wsgi", "asgi", "celery"],
)
def test_every_entry_point_defaults_to_production_and_refuses_to_start_without_secrets(
    entry: tuple[str, ...],
) -> None:
    proc = run_python(*entry, env=_bare_env())
    assert proc.returncode != 0
    assert "The production settings (fido.settings.production) refuse to start" in proc.stderr
    assert "SECRET_KEY is not set" in proc.stderr
    assert "ALLOWED_HOSTS is not set" in proc.stderr
    assert "DJANGO_SETTINGS_MODULE=fido.settings.base" in proc.stderr  # what to do instead


@pytest.mark.parametrize(
    ("key", "hosts", "problem"),
    [
        ("django-insecure-embedded-default-do-not-use-in-production", "x.example", "not a real"),
        ("short-key", "x.example", "not a real secret"),
        ("a" * 80, "x.example", "not a real secret"),
        (secrets.token_urlsafe(64), "*", "not '*'"),
        (secrets.token_urlsafe(64), " , ", "ALLOWED_HOSTS is not set"),
    ],
    ids=["dev-key", "short", "one-letter", "star", "blank-hosts"],
)
def test_placeholder_secrets_are_refused_too(key: str, hosts: str, problem: str) -> None:
    proc = run_python("manage.py", "check", env=_bare_env(SECRET_KEY=key, ALLOWED_HOSTS=hosts))
    assert proc.returncode != 0
    assert problem in proc.stderr


def test_with_real_secrets_the_default_entry_point_runs_production() -> None:
    env = _bare_env(SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="ranking.fido.example")
    proc = run_python(
        "manage.py",
        "shell",
        "-c",
        "from django.conf import settings as s; "
        "print(s.SETTINGS_MODULE, s.DEBUG, s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS)",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.split() == ["fido.settings.production", "False", "True", "31536000"]


def test_the_production_procfile_sets_no_development_settings() -> None:
    from tests.processes import ROOT

    procfile = (ROOT / "deploy" / "Procfile").read_text()
    assert "fido.settings.base" not in procfile
    assert "DEBUG" not in procfile
    commands = dict(
        line.split(": ", 1) for line in procfile.splitlines() if line and not line.startswith("#")
    )
    assert commands["web"].startswith("gunicorn ") and "fido.wsgi:application" in commands["web"]
    assert commands["worker"].startswith("celery -A fido worker")
    # The release migrates, then packs what an upgrade left unpacked, before any close.
    release = commands["release"].split(" && ")
    assert release[0] == "python manage.py migrate --noinput"
    assert release[-1] == "python manage.py pack_lists"
    # The demo's Procfile is the development path, explicitly.
    demo = (ROOT / "deploy" / "Procfile.demo").read_text()
    assert demo.count("DJANGO_SETTINGS_MODULE=fido.settings.base") == 3


def test_gunicorn_workers_switch_threads_every_half_millisecond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """deploy/gunicorn.conf.py as gunicorn reads it: its post_fork hook sets the worker's
    thread switch interval (0.5 ms, GUNICORN_SWITCH_INTERVAL overrides)."""
    import sys

    from gunicorn.config import Config

    def hook_of(conf: dict[str, object]) -> object:
        cfg = Config()
        cfg.set("post_fork", conf["post_fork"])
        return cfg.post_fork

    before = sys.getswitchinterval()
    try:
        monkeypatch.delenv("GUNICORN_SWITCH_INTERVAL", raising=False)
        conf = runpy.run_path(str(GUNICORN_CONF))
        hook_of(conf)(None, None)
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        monkeypatch.setenv("GUNICORN_SWITCH_INTERVAL", "0.002")
        conf = runpy.run_path(str(GUNICORN_CONF))
        hook_of(conf)(None, None)
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(before)


def test_gunicorn_runs_two_processes_per_cpu_with_two_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """deploy/gunicorn.conf.py's layout: two worker processes per CPU (at least two), two
    threads each, WEB_CONCURRENCY and GUNICORN_THREADS overriding; the benchmarks start
    and label their servers with the same figures (bench.common.gunicorn_layout)."""
    import multiprocessing

    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("GUNICORN_THREADS", raising=False)
    for cpus, processes in ((1, 2), (2, 4), (8, 16)):
        monkeypatch.setattr(multiprocessing, "cpu_count", lambda cpus=cpus: cpus)
        conf = runpy.run_path(str(GUNICORN_CONF))
        assert (conf["workers"], conf["threads"]) == (processes, 2)
        assert gunicorn_layout() == (processes, 2)
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("GUNICORN_THREADS", "5")
    conf = runpy.run_path(str(GUNICORN_CONF))
    assert (conf["workers"], conf["threads"]) == (3, 5)
    assert gunicorn_layout() == (3, 5)


@pytest.mark.redis
def test_a_worker_looks_for_unacknowledged_tasks_as_its_environment_says() -> None:
    """kombu's sweep of a dead worker's tasks: about every 100 s by default (10 x 10), and
    every second for the worker tests, whose 3 s visibility timeout would otherwise wait
    for it (a redelivery test took 105 s instead of 6)."""
    script = (
        "from fido.celery import app; o = app.conf.broker_transport_options; "
        "print(o['unacked_restore_interval'], o['unacked_restore_throttle'])"
    )
    base = {**os.environ, "DJANGO_SETTINGS_MODULE": "fido.settings.base"}
    assert run_python("-c", script, env=base).stdout.split() == ["10", "10"]
    fast = {**base, "CELERY_UNACKED_RESTORE_INTERVAL": "1", "CELERY_UNACKED_RESTORE_THROTTLE": "1"}
    assert run_python("-c", script, env=fast).stdout.split() == ["1", "1"]
