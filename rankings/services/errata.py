"""Asking for errata: a corrected version (v2, v3, ...) of a closed month's list, and the
recomputation of the later months that read it.

- :func:`erratum_request`: the admin asks for the next version of ``month``'s list, with a
  reason. Refused (:class:`ErratumRefused`, translated, nothing recorded) for an unknown
  discipline, an empty or overlong reason, a month without a published list, a month that
  no correction or void touched since its latest version
  (:func:`rankings.selectors.errata.errata_due`), or while another erratum of the
  discipline is queued or running. Else it records an :class:`~rankings.models.Erratum`
  (who, when, why) and a :class:`~rankings.models.CloseRun` for it, and hands the run to a
  worker after the commit, exactly as a monthly close is
  (:func:`rankings.services.close.close_run_send`: the outbox, beat's re-sending, the
  heartbeat); the worker runs :func:`rankings.services.close.month_close` with the erratum.
- :func:`later_months_recompute`: the admin asks, with a reason, that the months after a
  newer version of an earlier month be recomputed
  (:func:`rankings.selectors.errata.later_months_stale`). One erratum per month is
  recorded at once (``cause``: the erratum they follow; one request time), but only the
  first month's run is sent: :func:`erratum_continue`, called when an erratum's close
  succeeds, sends the next month's, so the months are published in order, each reading
  the version just published before it.

History is append-only: an erratum is never edited; a failed one stays recorded with its
run's error, and the admin may ask again.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches import audit, clock
from matches.disciplines import CODES, DISCIPLINES
from matches.months import Month

from ..models import CloseRun, Erratum, RankingList
from ..selectors.errata import errata_due, erratum_in_progress, later_months_stale
from ..selectors.lists import published_list
from .close import close_run_send
from .close_run import CloseRefused, close_run_create

MAX_REASON = 2000


class ErratumRefused(CloseRefused):
    """The erratum cannot be asked for: the message says why (translated)."""


def _checked(discipline: str, reason: str) -> str:
    if discipline not in CODES:
        raise ErratumRefused(_("Unknown discipline."))
    reason = " ".join((reason or "").split())
    if not reason:
        raise ErratumRefused(_("Give a reason: it is recorded with the erratum and shown with it."))
    if len(reason) > MAX_REASON:
        raise ErratumRefused(_("The reason is too long (at most 2000 characters)."))
    running = erratum_in_progress(discipline)
    if running is not None:
        raise ErratumRefused(
            _("An erratum of %(month)s is already under way (run %(run)s): wait for it to finish.")
            % {"month": Month.of(running.month), "run": running.pk}
        )
    return reason


def erratum_request(
    *, discipline: str, month: Month, reason: str, by: Any, now: dt.datetime | None = None
) -> CloseRun:
    """Record an erratum of ``month``'s list and send its close run (after the commit)."""
    reason = _checked(discipline, reason)
    label = DISCIPLINES[discipline].label
    latest = published_list(discipline=discipline, month=month)
    if latest is None:
        raise ErratumRefused(
            _("%(month)s of the %(discipline)s has no published list: there is nothing to correct.")
            % {"month": month, "discipline": label}
        )
    if not any(due.month == month for due in errata_due(discipline)):
        raise ErratumRefused(
            _(
                "No correction or void has touched %(month)s of the %(discipline)s since its "
                "version %(version)s was published: there is nothing to correct."
            )
            % {"month": month, "discipline": label, "version": latest.edition or 1}
        )
    return _record([month], discipline=discipline, reason=reason, by=by, now=now, cause=None)


def later_months_recompute(
    *, discipline: str, reason: str, by: Any, now: dt.datetime | None = None
) -> CloseRun:
    """Record an erratum of each month after a newer version of an earlier month, and send
    the first one's close run (the next ones follow, :func:`erratum_continue`)."""
    reason = _checked(discipline, reason)
    stale = later_months_stale(discipline)
    cause = None
    if stale is not None:
        cause = RankingList.objects.filter(pk=stale.after.id).values_list("erratum", flat=True)[0]
    if stale is None or cause is None:
        raise ErratumRefused(
            _(
                "No later month of the %(discipline)s needs recomputing: every list was "
                "computed from the latest versions of the lists before it."
            )
            % {"discipline": DISCIPLINES[discipline].label}
        )
    return _record(
        stale.months,
        discipline=discipline,
        reason=reason,
        by=by,
        now=now,
        cause=Erratum.objects.get(pk=cause),
    )


def _record(
    months: list[Month],
    *,
    discipline: str,
    reason: str,
    by: Any,
    now: dt.datetime | None,
    cause: Erratum | None,
) -> CloseRun:
    """One erratum per month (one request: the same time), the first one's run, sent."""
    at = now or clock.now()
    who = by if getattr(by, "pk", None) else None
    with transaction.atomic(), audit.recording():
        errata = [
            Erratum.objects.create(
                discipline=discipline,
                month=month.first_day,
                reason=reason,
                by=who,
                at=at,
                cause=cause,
            )
            for month in months
        ]
        run = close_run_create(month=months[0], discipline=discipline, by=who, erratum=errata[0])
        close_run_send(run)
    return run


def erratum_continue(erratum: Erratum) -> CloseRun | None:
    """After ``erratum``'s list is published: send the run of the next month of the same
    "recompute later months" request, if any (None: the request is done)."""
    if erratum.cause_id is None:
        return None
    following = (
        Erratum.objects.filter(
            cause_id=erratum.cause_id,
            at=erratum.at,
            discipline=erratum.discipline,
            month__gt=erratum.month,
            runs__isnull=True,
        )
        .order_by("month", "id")
        .first()
    )
    if following is None:
        return None
    with transaction.atomic(), audit.recording():
        run = close_run_create(
            month=Month.of(following.month),
            discipline=following.discipline,
            by=following.by,
            erratum=following,
        )
        close_run_send(run)
    return run
