"""The site's error pages: 400, 403, 404, 500 and a refused CSRF check, in the site's layout
and the visitor's language, each with a way back.

In: the request and the exception Django's handlers pass. Out: an HTML response with the
status. What is shown: a title, what happened in the user's words, what to do, and the
exception's own message only when it is one of ours (a plain sentence raised by a view,
such as "No such player."): never a path, a database id or a traceback.

:class:`QuietBadRequest` (middleware) answers a view's ``BadRequest`` (a bad query
parameter such as ``?page=abc``) with the 400 page and one log line: Django would log it
with a traceback, as if it were a fault of the service.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template import loader
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

logger = logging.getLogger("fido.requests")

# Messages Django itself raises with internal names in them (get_object_or_404, the resolver).
_INTERNAL = re.compile(r"matches the given query|No .* found matching|\{|Resolver|tried")


def _own_message(exception: BaseException | None) -> str | None:
    """The exception's message if a view of ours wrote it for people, else None."""
    if exception is None or len(exception.args) != 1 or not isinstance(exception.args[0], str):
        return None
    text = exception.args[0].strip()
    if not text or _INTERNAL.search(text) or len(text) > 200:
        return None
    return text


def _page(
    request: HttpRequest, status: int, title: str, advice: str, detail: str | None
) -> HttpResponse:
    return render(
        request,
        "errors/page.html",
        {"status": status, "title": title, "advice": advice, "detail": detail},
        status=status,
    )


def _error_page(
    status: int, title: _StrPromise, advice: _StrPromise
) -> Callable[[HttpRequest, BaseException | None], HttpResponse]:
    """The handler of one status: its title and advice (translated when it answers), and
    the exception's own message when it is one of ours."""

    def handler(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
        return _page(request, status, str(title), str(advice), _own_message(exception))

    return handler


bad_request = _error_page(
    400,
    gettext_lazy("That request could not be understood"),
    gettext_lazy("A link or a form sent something the site cannot read. Go back and try again."),
)
permission_denied = _error_page(
    403,
    gettext_lazy("You may not open this page"),
    gettext_lazy(
        "It is for another role or another club. Log in with the right account, or go back."
    ),
)
page_not_found = _error_page(
    404,
    gettext_lazy("Page not found"),
    gettext_lazy("There is nothing at this address. Check it, or start again from the home page."),
)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without its security token (expired page, cookies off): 403."""
    return _page(
        request,
        403,
        _("The form could not be accepted"),
        _(
            "The page was open too long or your browser blocks cookies for this site. "
            "Go back, reload the page and send the form again; allow cookies if it happens "
            "again."
        ),
        None,
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """500: a self-contained page (no database, no menus that could fail again)."""
    html = loader.get_template("errors/500.html").render({})
    return HttpResponse(html, status=500)


class QuietBadRequest:
    """Answer a view's ``BadRequest`` with the styled 400 page and one line in the log."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> Any:
        if not isinstance(exception, BadRequest):
            return None
        logger.info("400 %s: %s", request.path, exception)
        return bad_request(request, exception)
