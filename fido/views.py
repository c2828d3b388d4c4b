"""Project-level pages that belong to no app: the home page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from rankings import selectors_public as selectors
from rankings.names import DISCIPLINE_GAMES, DISCIPLINE_NAMES, DISCIPLINE_TITLES

HOME_TOP = 10


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The top 10 of every discipline's current list and the latest list's month."""
    lists = selectors.current_lists()
    tops = selectors.top_entries([lists[c] for c in DISCIPLINE_NAMES if c in lists], HOME_TOP)
    cards = [
        {
            "code": code,
            "title": DISCIPLINE_TITLES[code],
            "game": DISCIPLINE_GAMES[code],
            "list": lists.get(code),
            "entries": tops.get(lists[code].pk, []) if code in lists else [],
        }
        for code in DISCIPLINE_NAMES
    ]
    latest = max((rl.month for rl in lists.values()), default=None)
    return render(request, "home.html", {"cards": cards, "latest_month": latest})
