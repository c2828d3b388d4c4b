"""The admin's review before the close: ``GET /dashboard/review/<discipline>/``.

Staff only (as the cycle dashboard, which links it from each discipline's card). Shows the
projected list's biggest movers, new entries and drop-outs against the current list
(:mod:`rankings.selectors.review_movers`) and the anomaly flags of the open month, each
with the matches behind it (:mod:`rankings.selectors.anomalies`), and the form to hold the
close with a reason (the dashboard's). Reads only. 404 for an unknown discipline; without
a projection the page says so and offers the refresh on the dashboard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from matches import clock
from matches.disciplines import DISCIPLINES
from matches.months import Month

from ..selectors import anomalies
from ..selectors.holds import close_hold
from ..selectors.lists import current_list
from ..selectors.projection import projected_list
from ..selectors.review_movers import projection_movers
from .dashboard import staff_page


def _sentence(flag: anomalies.Flag) -> str:
    """What the flag says, in the user's words."""
    f = flag.figures
    if flag.kind == "club_volume":
        text = _(
            "%(club)s: %(matches)s matches this month, usually %(usual)s a month "
            "(the mean of the %(months)s months before)."
        )
        return text % {**f, "club": flag.subject, "usual": number_format(f["usual"], 1)}
    if flag.kind == "busy_day":
        text = _("%(player)s: %(results)s results played on %(day)s; a day allows %(most)s.")
        return text % {**f, "player": flag.subject}
    if flag.kind == "last_hour":
        text = _("%(club)s: %(matches)s results entered in the last hour before the deadline.")
        return text % {**f, "club": flag.subject}
    if flag.kind == "pair":
        text = _(
            "%(pair)s: %(shared)s matches against each other, of %(first_total)s and "
            "%(second_total)s results this month."
        )
        return text % {**f, "pair": flag.subject}
    text = _("%(matches)s: the same players on the same day (%(day)s).")
    return text % {**f, "matches": flag.subject}


QUESTIONS = (
    ("club_volume", gettext_lazy("A club far above its usual monthly volume")),
    ("busy_day", gettext_lazy("More results in one day than a day allows")),
    ("last_hour", gettext_lazy("Many results entered in the last hour before the deadline")),
    ("pair", gettext_lazy("Two players with most of their results against each other")),
    ("near_duplicate", gettext_lazy("Near-duplicate matches")),
)


def _flags(kind: str, discipline: str, month: Month) -> list[anomalies.Flag]:
    if kind == "last_hour":
        return anomalies.last_hour_flags(discipline, month, clock.federation_tz())
    ask: Callable[[str, Month], list[anomalies.Flag]] = getattr(anomalies, f"{kind}_flags")
    return ask(discipline, month)


def _questions(discipline: str, month: Month) -> list[dict[str, Any]]:
    found = []
    for kind, title in QUESTIONS:
        flags = _flags(kind, discipline, month)
        found.append(
            {
                "kind": kind,
                "title": title,
                "flags": [{"flag": flag, "sentence": _sentence(flag)} for flag in flags],
            }
        )
    return found


@never_cache
@require_GET
@staff_page
def review(request: HttpRequest, discipline: str) -> HttpResponse:
    if discipline not in DISCIPLINES:
        raise Http404(_("No such discipline."))
    projected = projected_list(discipline)
    context: dict[str, Any] = {
        "discipline": discipline,
        "label": DISCIPLINES[discipline].label,
        "projected": projected,
        "hold": close_hold(discipline),
        "federation_tz": clock.federation_tz().key,
    }
    if projected is not None:
        current = current_list(discipline=discipline)
        month = Month.of(projected.ranking_list.month)
        questions = _questions(discipline, month)
        context.update(
            month=month,
            current=current,
            movers=projection_movers(projected.ranking_list, current),
            questions=questions,
            flag_count=sum(len(q["flags"]) for q in questions),
        )
    return render(request, "dashboard/review.html", context)
