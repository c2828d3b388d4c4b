"""``matches.rules`` loads the engine when one of its names is first used, not when a
process starts: Django's start-up imports only :mod:`matches.rules.i18n` (the matches
app installs the translator), and the close's service imports only the month's freeze of
``matches.services`` (whose names load when first used too), so a process that never
replays a game (a close, any ``manage.py`` command) does not load the engine and its five
variants."""

from __future__ import annotations

import os

import pytest

import matches.rules
from tests.processes import run_python

CHILD = (
    "import sys, django\n"
    "django.setup()\n"
    "import rankings.management.commands.close_month\n"
    "import rankings.services.close\n"
    "from matches.rules import i18n\n"
    "print(sorted(m for m in sys.modules if m.startswith('matches.rules.')))\n"
    "print(i18n._translator is not str)\n"
)


def test_a_close_s_process_does_not_load_the_engine() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "fido.settings.base"}
    done = run_python("-c", CHILD, env=env)
    assert done.returncode == 0, done.stderr
    loaded, installed = done.stdout.strip().splitlines()
    assert loaded == "['matches.rules.exports', 'matches.rules.i18n']"
    assert installed == "True"  # the app's ready() still gave the engine Django's gettext


def test_the_package_s_names_load_when_first_used() -> None:
    from matches.rules import IllegalMove, RecordError, RuleError, replay
    from matches.rules.engine import replay as engine_replay
    from matches.rules.errors import IllegalMove as Illegal

    assert replay is engine_replay
    assert IllegalMove is Illegal
    assert issubclass(RecordError, RuleError)
    assert set(matches.rules.__all__) <= set(dir(matches.rules))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'replay_all'"):
        matches.rules.replay_all  # noqa: B018


def test_the_services_names_load_when_first_used() -> None:
    import matches.services
    from matches.services import InvalidSubmission, match_submit, month_freeze
    from matches.services.freeze import month_freeze as freeze
    from matches.services.submit import match_submit as submit
    from matches.validation import InvalidSubmission as Invalid

    assert (month_freeze, match_submit, InvalidSubmission) == (freeze, submit, Invalid)
    assert set(matches.services.__all__) <= set(dir(matches.services))
    with pytest.raises(AttributeError, match="no attribute 'match_delete'"):
        matches.services.match_delete  # noqa: B018
