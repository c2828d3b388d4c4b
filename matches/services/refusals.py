"""Refusals the services raise besides :class:`~matches.validation.InvalidSubmission`."""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches.months import Rejection


class NotAllowed(Exception):
    """The user may not do this (another club's data, a deadline passed): maps to 403."""


def rejection_text(exc: Rejection) -> str:
    """The deadline module's refusal, worded in the active language."""
    if exc.code == "future":
        return _("the match date %(date)s is in the future (today is %(today)s in %(zone)s)") % (
            exc.params
        )
    if exc.code == "too_old":
        return (
            _(
                "the match of %(date)s would count in %(month)s, %(age)d months later: "
                "results older than %(max_age)d months weigh nothing"
            )
            % exc.params
        )
    return exc.message
