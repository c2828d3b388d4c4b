"""The rules engine: pure Python, no Django.

Contract: ``engine.replay(record_dict) -> report_dict`` checks a game record (RULES.md
section 2) move by move and returns the report of RULES.md section 6.1, or raises
``errors.RecordError`` (the JSON does not have the record's shape) or
``errors.IllegalMove`` (the first step the rules forbid). Nothing in this package imports
Django, so it is tested with plain unit tests and usable from any process.
"""

from matches.rules.engine import replay
from matches.rules.errors import IllegalMove, RecordError, RuleError

__all__ = ["IllegalMove", "RecordError", "RuleError", "replay"]
