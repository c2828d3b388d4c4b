"""The public page of who moved between two published lists: two versions of a month (an
erratum) or a month and the one before (``/ranking/<d>/<YYYY-MM>/diff/``).

Query: ``version`` (the newer list, default the month's latest), ``from`` (a version
number of the same month, or a month ``YYYY-MM``; default the version before, else the
previous month), ``page``. 400 for a malformed parameter, 404 when a list is missing; the
rows come from :mod:`rankings.selectors.list_diff` (the API's selector)."""

from __future__ import annotations

from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from matches.disciplines import DISCIPLINES
from matches.months import Month

from ..selectors.list_diff import NothingToCompare, against_parse, list_diff
from .public import _discipline, _month, _page, list_version

PAGE_SIZE = 100


def _against(request: HttpRequest) -> int | Month | None:
    try:
        return against_parse(request.GET.get("from", ""))
    except ValueError:
        raise BadRequest(
            _("Compare with a version number (2) or a month written YYYY-MM (2026-02).")
        ) from None


@require_GET
def list_changes(request: HttpRequest, discipline: str, month: str) -> HttpResponse:
    discipline, parsed = _discipline(discipline), _month(month)
    version, against, page = list_version(request), _against(request), _page(request)
    try:
        diff = list_diff(
            discipline=discipline,
            month=parsed,
            version=version,
            against=against,
            limit=PAGE_SIZE,
            offset=(page - 1) * PAGE_SIZE,
        )
    except NothingToCompare:
        raise Http404(_("There is no list to compare this one with.")) from None
    keep = {"version": version or "", "from": request.GET.get("from", "").strip()}

    def link(number: int) -> str:
        query = urlencode({k: v for k, v in {**keep, "page": number}.items() if v})
        return f"{request.path}?{query}"

    return render(
        request,
        "rankings/diff.html",
        {
            "discipline": discipline,
            "title": DISCIPLINES[discipline].title,
            "diff": diff,
            "same_month": diff.old.month == diff.new.month,
            "previous_page": link(page - 1) if page > 1 else None,
            "next_page": link(page + 1) if page * PAGE_SIZE < diff.total else None,
        },
    )
