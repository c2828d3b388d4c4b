"""The admin's review before the close: ``GET /dashboard/review/<discipline>/``.

Staff only (as the cycle dashboard, which links it from each discipline's card). Shows the
projected list's biggest movers, new entries and drop-outs against the current list
(:mod:`rankings.selectors.review_movers`) and the anomaly flags of the open month, each
with the matches behind it (:mod:`rankings.selectors.anomalies`), as computed with the
projection on the worker and stored with it (:mod:`rankings.selectors.stored_review`), with
when; and the form to hold the close with a reason (the dashboard's). Reads only, and never
asks the review's questions itself (tens of seconds at full scale). 404 for an unknown
discipline; without a projection, or with one projected before reviews were stored, the
page says so and offers the refresh on the dashboard.
"""

from __future__ import annotations

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
from ..selectors.projection import projected_list
from ..selectors.stored_review import StoredReview, stored_review
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


TITLES = {
    "club_volume": gettext_lazy("A club far above its usual monthly volume"),
    "busy_day": gettext_lazy("More results in one day than a day allows"),
    "last_hour": gettext_lazy("Many results entered in the last hour before the deadline"),
    "pair": gettext_lazy("Two players with most of their results against each other"),
    "near_duplicate": gettext_lazy("Near-duplicate matches"),
}


def _questions(stored: StoredReview) -> list[dict[str, Any]]:
    return [
        {
            "kind": kind,
            "title": TITLES[kind],
            "flags": [{"flag": flag, "sentence": _sentence(flag)} for flag in stored.flags[kind]],
        }
        for kind in anomalies.KINDS
    ]


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
        stored = stored_review(projected.ranking_list.id)
        context.update(month=Month.of(projected.ranking_list.month), stored=stored)
        if stored is not None:
            questions = _questions(stored)
            context.update(
                movers=stored.movers,
                questions=questions,
                flag_count=sum(len(q["flags"]) for q in questions),
            )
    return render(request, "dashboard/review.html", context)
