"""Project-level pages that belong to no app: the home page, /favicon.ico."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from matches.disciplines import DISCIPLINES
from rankings.selectors.list_page import list_page
from rankings.selectors.lists import current_lists

HOME_TOP = 10


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The top 10 of every discipline's current list and the latest list's month."""
    lists = current_lists().lists
    cards = [
        {
            "code": code,
            "title": info.title,
            "game": info.game,
            "list": lists.get(code),
            "entries": list_page(lists[code], page_size=HOME_TOP).entries if code in lists else [],
        }
        for code, info in DISCIPLINES.items()
    ]
    latest = max((rl.month for rl in lists.values()), default=None)
    return render(request, "home.html", {"cards": cards, "latest_month": latest})


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page links: send them to the static icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
