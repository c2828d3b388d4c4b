"""The event rows of a write: who did what to which matches, when and why.

:func:`match_events_record` adds one :class:`~matches.models.MatchEvent` per match, all of
one kind with the same who, when, why and details, in one statement. Called by the
services inside their transaction (under :func:`matches.audit.recording`, which lets audit
rows be written); events are never edited afterwards.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from matches.models import MatchEvent


def match_events_record(
    match_pks: Iterable[int],
    *,
    kind: str,
    by: Any,
    at: dt.datetime,
    reason: str,
    details: dict[str, Any],
) -> None:
    """One event of ``kind`` for each match primary key in ``match_pks``."""
    MatchEvent.objects.bulk_create(
        MatchEvent(match_id=pk, kind=kind, at=at, by=by, reason=reason, details=details)
        for pk in match_pks
    )
