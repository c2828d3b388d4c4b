"""The iCalendar feed of the monthly cycle: ``/calendar.ics`` (public, no login).

The submission deadlines and the closes of the coming 12 months
(:func:`rankings.selectors.cycle_calendar.cycle_dates`), written as RFC 5545 text by
:mod:`rankings.ical` in the reader's language (``Accept-Language`` or the site's language
cookie), ``text/calendar``; calendar apps poll it, so it is cached for an hour.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from matches import clock
from matches.disciplines import DISCIPLINES

from .. import ical
from ..selectors.cycle_calendar import CycleDate, cycle_dates

MAX_AGE = 60 * 60


def _event(date: CycleDate, home: str) -> ical.Event:
    tz = clock.federation_tz()
    words = {
        "month": date_format(date.month.first_day, "YEAR_MONTH_FORMAT"),
        "time": date_format(timezone.localtime(date.at, tz), "DATETIME_FORMAT"),
        "zone": str(tz),
    }
    if date.kind == "deadline":
        return ical.Event(
            uid=f"deadline-{date.month}@fido-ranking",
            start=date.at,
            summary=_("FIDO: deadline for the results of %(month)s") % words,
            description=_(
                "Results of matches played in %(month)s received before %(time)s (%(zone)s) "
                "are on time and count in the list of %(month)s; later ones count in the "
                "list of the month in which they arrive."
            )
            % words,
            url=home,
        )
    names = ", ".join(str(DISCIPLINES[code].name) for code in date.disciplines)
    held = ", ".join(str(DISCIPLINES[code].name) for code in date.held)
    description = _(
        "The lists of %(month)s (%(names)s) are closed and published automatically a few "
        "minutes after the deadline, at about %(time)s (%(zone)s)."
    ) % {**words, "names": names}
    if held:
        description += " " + _(
            "The close of %(names)s is held by the federation: it waits for the release."
        ) % {"names": held}
    return ical.Event(
        uid=f"close-{date.month}@fido-ranking",
        start=date.at,
        summary=_("FIDO: lists of %(month)s published") % words,
        description=description,
        url=home,
    )


@require_GET
def cycle_calendar(request: HttpRequest) -> HttpResponse:
    now = clock.now()
    home = request.build_absolute_uri(reverse("rankings:archive"))
    text = ical.calendar(
        [_event(date, home) for date in cycle_dates(now)],
        name=str(_("FIDO world ranking: deadlines and closes")),
        tz=clock.federation_tz(),
        stamp=now,
    )
    response = HttpResponse(text.encode("utf-8"), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="fido-cycle.ics"'
    response["Cache-Control"] = f"public, max-age={MAX_AGE}"
    response["Vary"] = "Accept-Language, Cookie"
    return response
