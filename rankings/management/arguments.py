"""What the rankings commands share in reading their arguments.

``month_argument(raw)``: the month a command was given (``YYYY-MM``), or a ``CommandError``
(its message on stderr, exit 1) saying what is wrong with it.
"""

from __future__ import annotations

from django.core.management.base import CommandError

from matches.months import Month


def month_argument(raw: str) -> Month:
    try:
        return Month.parse(raw)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
