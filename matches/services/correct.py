"""Correcting a match: a new revision replaces it, and the old one stops counting."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches import audit, locks, store
from matches.clock import federation_tz
from matches.models import Match, MatchEvent, Submission
from matches.months import Classification, Month, Rejection, classify, deadline
from matches.records_check import check_records
from matches.selectors import last_closed_month
from matches.validation import InvalidSubmission, MatchInput, Problem, parse_match, resolve

from .events import match_events_record
from .refusals import NotAllowed, rejection_text
from .rows import Planned, entry
from .void import apply_void


def correction_deadline(match: Match) -> dt.datetime:
    """Until when the club's secretary may still correct the match themselves."""
    return deadline(Month.of(match.counting_month), federation_tz())


@audit.recording()
def match_correct(
    *,
    match: Match,
    payload: Any,
    by: Any,
    now: dt.datetime,
    reason: str,
    as_admin: bool,
    channel: str,
) -> Match:
    """Replace a match by a corrected revision; the old one stops counting.

    A secretary may correct their club's match until the deadline of the month it counts
    in (and while that month is open); an admin at any time, the correction then counting
    from the first open month.
    """
    reason = (reason or "").strip() or "corrected by the club"
    _check_correctable(match, as_admin=as_admin, now=now)
    parsed = _parse_correction(match, payload)
    with transaction.atomic():
        locks.discipline_shared(parsed.discipline)
        verdict = _classify_now(parsed, now)
        old = Match.objects.select_for_update().get(pk=match.pk)
        new = _store_revision(old, parsed, verdict, by=by, now=now, channel=channel)
        effective = apply_void(old, by=by, reason=f"corrected: {reason}", now=now)
        details = {
            "old_revision": old.revision,
            "new_revision": new.revision,
            "old_void_effective_month": str(effective),
        }
        match_events_record(
            [old.pk, new.pk],
            kind=MatchEvent.Kind.CORRECTED,
            by=by,
            at=now,
            reason=reason,
            details=details,
        )
    return new


def _check_correctable(match: Match, *, as_admin: bool, now: dt.datetime) -> None:
    """NotAllowed for a voided or replaced match, or a secretary past the deadline."""
    if match.voided_at is not None or Match.objects.filter(replaces=match).exists():
        raise NotAllowed(_("%(match)s was already voided or replaced") % {"match": match})
    if not as_admin and now >= correction_deadline(match):
        raise NotAllowed(
            _("the deadline for %(month)s has passed; ask the federation to correct this match")
            % {"month": Month.of(match.counting_month)}
        )


def _parse_correction(match: Match, payload: Any) -> MatchInput:
    """The corrected match, validated and resolved (its id and club are the old one's)."""
    if not isinstance(payload, dict):
        raise InvalidSubmission([Problem("", _("a match must be a JSON object"))])
    payload = {**payload, "id": match.external_id, "club": match.club.club_id}
    parsed, problems = parse_match(payload)
    if parsed is None:
        raise InvalidSubmission(problems)
    problems = resolve([("", parsed)]) + check_records(parsed)
    if problems:
        raise InvalidSubmission(problems)
    return parsed


def _classify_now(parsed: MatchInput, now: dt.datetime) -> Classification:
    """On time or late, and the counting month, of a correction received ``now`` (under the
    discipline's lock, which the caller holds)."""
    try:
        return classify(
            date_played=parsed.date_played,
            received_at=now,
            tz=federation_tz(),
            last_closed=last_closed_month(parsed.discipline),
        )
    except Rejection as exc:
        raise InvalidSubmission([Problem(exc.field, rejection_text(exc))]) from exc


def _store_revision(
    old: Match,
    parsed: MatchInput,
    verdict: Classification,
    *,
    by: Any,
    now: dt.datetime,
    channel: str,
) -> Match:
    """Store the corrected match as the next revision of ``old``."""
    submission = Submission(club=old.club, submitted_by=by, received_at=now, channel=channel)
    new = entry(
        Planned(
            match=parsed,
            received_at=now,
            status=verdict.status,
            counting_month=verdict.counting_month,
            submission=submission,
            revision=old.revision + 1,
            replaces=old,
        ),
        {},
    )
    store.write([submission], [new], event=None)
    return new.match
