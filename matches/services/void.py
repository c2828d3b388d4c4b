"""Voiding a match: an event with who, when and why, effective from the first list the
match can still affect."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches import audit, locks
from matches.models import Match, MatchEvent, SideMember
from matches.months import Month
from matches.selectors import last_closed_month
from matches.validation import InvalidSubmission, Problem

from .events import match_events_record


def void_effective_month(match: Match) -> Month:
    """The first month whose list the void changes: the month the match counts in, or the
    first open month if that one is closed."""
    last = last_closed_month(match.discipline)
    counting = Month.of(match.counting_month)
    return max(counting, last.next()) if last else counting


def apply_void(match: Match, *, by: Any, reason: str, now: dt.datetime) -> Month:
    """Mark ``match`` and its members voided (no event: the caller records why)."""
    effective = void_effective_month(match)
    match.voided_at = now
    match.voided_by = by
    match.void_reason = reason
    match.void_effective_month = effective.first_day
    match.save(update_fields=["voided_at", "voided_by", "void_reason", "void_effective_month"])
    SideMember.objects.filter(match=match).update(void_effective_month=effective.first_day)
    return effective


@transaction.atomic
@audit.recording()
def match_void(*, match: Match, by: Any, reason: str, now: dt.datetime) -> Match:
    """Void a match from the first list it can still affect on (admin)."""
    reason = (reason or "").strip()
    if not reason:
        raise InvalidSubmission([Problem("reason", _("a void needs a reason"))])
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.voided_at is not None:
        raise InvalidSubmission(
            [Problem("match", _("match %(match)s is already voided") % {"match": match.label})]
        )
    locks.discipline_shared(match.discipline)
    effective = apply_void(match, by=by, reason=reason, now=now)
    match_events_record(
        [match.pk],
        kind=MatchEvent.Kind.VOIDED,
        by=by,
        at=now,
        reason=reason,
        details={"effective_month": str(effective)},
    )
    return match
