"""One error shape for the whole REST API: ``{"errors": [{"path": ..., "message": ...}]}``.

In: any exception a DRF view raises. Out: a JSON response listing every problem, each with
the path of the field it concerns (``sides[1].players[0]``, ``matches[2].date``, a query
parameter's name, ``Idempotency-Key``) or ``""`` when it concerns the request as a whole.

What maps to what:
- :class:`~matches.validation.InvalidSubmission` -> 400 with every problem found;
- :class:`~matches.services.NotAllowed` -> 403;
- Django's ``RequestDataTooBig`` (body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``) -> 413;
- every DRF ``APIException`` (``ParseError``, ``ValidationError`` with nested field errors
  flattened to paths, ``NotAuthenticated``, ``PermissionDenied``, ``NotFound``,
  ``Throttled``, ...) -> its own status, with its headers (``WWW-Authenticate``,
  ``Retry-After``) kept;
- anything else is a bug: ``None``, so Django's 500 handling applies.

Installed as ``REST_FRAMEWORK["EXCEPTION_HANDLER"]``. :func:`error_response` is the same
mapping for code that must turn an exception into a response itself (the idempotency
layer stores error responses too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from fido.text import scrub
from matches.services import NotAllowed
from matches.validation import InvalidSubmission, Problem

# DRF's name for errors that concern a whole object rather than one field.
_WHOLE_OBJECT_KEYS = frozenset({"non_field_errors", "detail"})


class ApiProblems(exceptions.APIException):
    """Problems with paths and an explicit status (403 for a foreign club, 422, ...)."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    default_detail = "the request was refused"

    def __init__(self, problems: Iterable[Problem], status_code: int = 400) -> None:
        self.problems = list(problems)
        self.status_code = status_code
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in self.problems))


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the request body is too large"


def _join(path: str, key: str) -> str:
    if key.isdigit():
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def flatten(detail: Any, path: str = "") -> list[dict[str, str]]:
    """DRF's nested error detail (dicts of lists of dicts ...) as a flat list with paths."""
    if isinstance(detail, Mapping):
        found: list[dict[str, str]] = []
        for key, value in detail.items():
            key = str(key)
            found.extend(flatten(value, path if key in _WHOLE_OBJECT_KEYS else _join(path, key)))
        return found
    if isinstance(detail, list | tuple):
        if all(isinstance(item, str) for item in detail):
            return [{"path": path, "message": str(item)} for item in detail]
        found = []
        for index, item in enumerate(detail):
            if isinstance(item, str):
                found.append({"path": path, "message": str(item)})
            else:
                found.extend(flatten(item, f"{path}[{index}]"))
        return found
    return [{"path": path, "message": str(detail)}]


def problems_response(
    problems: Iterable[Problem], status_code: int = status.HTTP_400_BAD_REQUEST
) -> Response:
    # scrub: a message may quote the refused text; the response must still encode.
    return Response(scrub({"errors": [p.as_dict() for p in problems]}), status=status_code)


def error_response(exc: BaseException) -> Response | None:
    """The API's response to ``exc``, or ``None`` for an exception that is not an API error."""
    if isinstance(exc, InvalidSubmission):
        return problems_response(exc.problems)
    if isinstance(exc, NotAllowed):
        return problems_response([Problem("", str(exc))], status.HTTP_403_FORBIDDEN)
    if isinstance(exc, ApiProblems):
        return problems_response(exc.problems, exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(
            "the request body is larger than the server accepts "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE); send fewer matches per request"
        )
    response = drf_exception_handler(exc, {})  # type: ignore[arg-type]
    if response is None:
        return None
    detail = exc.detail if isinstance(exc, exceptions.APIException) else response.data
    response.data = scrub({"errors": flatten(detail) or [{"path": "", "message": str(exc)}]})
    return response


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: every API error in the ``{"errors": [...]}`` shape."""
    return error_response(exc)
