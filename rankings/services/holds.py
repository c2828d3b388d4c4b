"""Holding a discipline's close, and releasing it: events with who, when and why.

- :func:`close_hold_set`: the admin holds the close (a reason is required); the beat skips
  a held close and logs why (:func:`rankings.services.schedule.due_months_enqueue`), the
  dashboard refuses the close button, the secretaries' pages say that the close is held;
- :func:`close_hold_release`: the admin releases it (a reason is required); the next beat
  tick closes the month if it is due.

Refused (:class:`HoldRefused`, nothing recorded): an unknown discipline, an empty reason,
holding a held close, releasing a close that is not held. History is append-only: each
call records a :class:`~rankings.models.CloseHold` event, none is edited.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches import audit, clock
from matches.disciplines import CODES

from ..models import CloseHold
from ..selectors.holds import close_hold

MAX_REASON = 2000


class HoldRefused(Exception):
    """The hold or release is not possible: the message says why (translated)."""


def _check(discipline: str, reason: str) -> str:
    if discipline not in CODES:
        raise HoldRefused(_("Unknown discipline."))
    reason = " ".join(reason.split())
    if not reason:
        raise HoldRefused(_("Give a reason: it is recorded with the hold or the release."))
    if len(reason) > MAX_REASON:
        raise HoldRefused(_("The reason is too long (at most 2000 characters)."))
    return reason


def _record(
    discipline: str, action: str, reason: str, by: Any, now: dt.datetime | None
) -> CloseHold:
    with audit.recording():
        return CloseHold.objects.create(
            discipline=discipline,
            action=action,
            reason=reason,
            by=by if getattr(by, "pk", None) else None,
            at=now or clock.now(),
        )


@transaction.atomic
def close_hold_set(
    *, discipline: str, reason: str, by: Any, now: dt.datetime | None = None
) -> CloseHold:
    """Hold the discipline's close."""
    reason = _check(discipline, reason)
    if close_hold(discipline) is not None:
        raise HoldRefused(_("The close is already held."))
    return _record(discipline, CloseHold.Action.HOLD, reason, by, now)


@transaction.atomic
def close_hold_release(
    *, discipline: str, reason: str, by: Any, now: dt.datetime | None = None
) -> CloseHold:
    """Release the discipline's held close."""
    reason = _check(discipline, reason)
    if close_hold(discipline) is None:
        raise HoldRefused(_("The close is not held."))
    return _record(discipline, CloseHold.Action.RELEASE, reason, by, now)
