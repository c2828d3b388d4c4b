"""The text boundary of every request that is not a JSON body: the path's parameters, query
strings and form fields.

In: each request, before its view runs (after CSRF). Out: nothing when every parameter of
the URL path (``/players/<player_id>/``), query parameter and form field (names and values)
is acceptable text (:mod:`fido.text`);
otherwise a 400 naming the field and the refused character, and the view never runs, so
nothing is stored and nothing reaches a query. Under ``/api/`` the 400 is the API's JSON
error shape; elsewhere a short page. JSON bodies are checked where they are decoded
(:func:`matches.apis.jsonbody.json_body`), CSV files where they are read
(:func:`matches.csv_upload.decode`), uploaded game records where they are parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse, QueryDict
from django.utils.html import escape
from django.utils.translation import gettext as _

from .text import REASONS, text_problem

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _refused(fields: QueryDict) -> Iterator[tuple[str, str]]:
    for name, values in fields.lists():
        reason = text_problem(name)
        if reason is not None:
            yield "", _(REASONS["field"]) % {"reason": reason}
            continue
        for value in values:
            if isinstance(value, str):
                reason = text_problem(value)
                if reason is not None:
                    yield name, reason


class TextBoundaryMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: Any
    ) -> HttpResponse | None:
        # A NUL in a path's id (/players/%00/) reaches PostgreSQL, which refuses it (a 500).
        refused = [
            (name, reason)
            for name, value in kwargs.items()
            if isinstance(value, str) and (reason := text_problem(value)) is not None
        ]
        refused += _refused(request.GET)
        if (
            not refused
            and request.method == "POST"
            and not request.path.startswith("/api/")
            and request.content_type in _FORM_TYPES
        ):
            try:
                refused = list(_refused(request.POST))
            except RequestDataTooBig:
                return None  # the view says so in its own words (413 / a page)
        if not refused:
            return None
        if request.path.startswith("/api/"):
            errors = [{"path": name, "message": reason} for name, reason in refused]
            return JsonResponse({"errors": errors}, status=400)
        lines = "".join(
            f"<li>{escape(name)}: {escape(reason)}</li>" if name else f"<li>{escape(reason)}</li>"
            for name, reason in refused
        )
        title = escape(_("This request cannot be accepted"))
        advice = escape(_("Nothing was stored. Go back, correct the text and try again."))
        return HttpResponseBadRequest(
            f"<!doctype html><title>{title}</title><h1>{title}</h1><ul>{lines}</ul><p>{advice}</p>"
        )


class ApiNotFoundMiddleware:
    """Every answer under ``/api/`` in the API's JSON error shape: a path no API route
    matches (``/api/matches/null,null``) gets a JSON 404, not the site's HTML page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.path.startswith("/api/")
            and response.status_code in (404, 405)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            message = (
                "no API endpoint at this path: see /api/schema/"
                if response.status_code == 404
                else "this method is not allowed here: see /api/schema/"
            )
            json = JsonResponse({"errors": [{"path": "", "message": message}]}, status=404)
            json.status_code = response.status_code
            if response.has_header("Allow"):
                json["Allow"] = response["Allow"]
            return json
        return response
