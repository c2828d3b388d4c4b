"""The rules engine: pure Python, no Django.

Contract: ``engine.replay(record_dict) -> report_dict`` checks a game record (RULES.md
section 2) move by move and returns the report of RULES.md section 6.1, or raises
``errors.RecordError`` (the JSON does not have the record's shape) or
``errors.IllegalMove`` (the first step the rules forbid). Nothing in this package imports
Django, so it is tested with plain unit tests and usable from any process.

The names below are loaded when first used (PEP 562): importing a submodule alone, as the
matches app does for :mod:`matches.rules.i18n` at start-up, does not load the engine and its
five variants (14 ms from bytecode, 45 ms from source) in a process that uses none of them:
a close, or a ``manage.py`` command that replays no game. A web or Celery worker still loads
them when it loads the URLconf, whose records API replays records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matches.rules.exports import lazy_names

if TYPE_CHECKING:
    from matches.rules.engine import replay
    from matches.rules.errors import IllegalMove, RecordError, RuleError

__all__ = ["IllegalMove", "RecordError", "RuleError", "replay"]

__getattr__, __dir__ = lazy_names(
    globals(),
    {
        "replay": "matches.rules.engine",
        "IllegalMove": "matches.rules.errors",
        "RecordError": "matches.rules.errors",
        "RuleError": "matches.rules.errors",
    },
)
