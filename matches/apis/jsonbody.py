"""Reading a request's JSON body with a clear 4xx for every way it can be wrong.

DRF's ``JSONParser`` turns most decoding errors into a ``ParseError`` but lets a deeply
nested document through as a ``RecursionError`` (a 500) and does not say where the error
is in words a secretary understands; so the submission endpoints read the body here.

- :func:`raw_body`: the bytes, or :class:`~matches.apis.errors.PayloadTooLarge` (413) when
  the body is larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django checks the declared
  length before reading anything).
- :func:`json_body`: the decoded document; 415 unless the body is declared
  ``application/json`` (one accepted request encoding: issue 16, item 10, ``text/plain``
  and UTF-16 bodies were read too); or ``ParseError`` (400) naming the problem;
  or :class:`~matches.apis.errors.ApiProblems` (400) listing every string (value or key)
  that holds a character no field accepts (:mod:`fido.text`), each with its path: text is
  checked here, once, before any field reaches a query or a stored error body.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions
from rest_framework.exceptions import ParseError
from rest_framework.request import Request

from fido.text import json_text_problems
from matches.validation import Problem

from .errors import ApiProblems, PayloadTooLarge


def raw_body(request: Request) -> bytes:
    try:
        return request.body
    except RequestDataTooBig as exc:
        raise PayloadTooLarge(
            "the request body is larger than the server accepts "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE); send fewer matches per request"
        ) from exc


class UnsupportedBody(exceptions.UnsupportedMediaType):
    """415: the API accepts one request encoding, UTF-8 JSON (``application/json``)."""


def check_media_type(request: Request) -> None:
    media = (request.content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        raise UnsupportedBody(
            media or "none",
            detail=f"send the body as JSON (Content-Type: application/json), not {media or 'none'}",
        )


def json_body(request: Request) -> Any:
    check_media_type(request)
    text, document = _decoded(raw_body(request))
    refused = [Problem(path, reason) for path, reason in json_text_problems(text, document)]
    if refused:
        raise ApiProblems(refused[:50])
    return document


def _decoded(body: bytes) -> tuple[str, Any]:
    if not body.strip():
        raise ParseError("the request body is empty: send a JSON object")
    try:
        # Decoded here, strictly: json.loads would guess UTF-16 and UTF-32 from raw bytes,
        # and the API accepts one encoding, UTF-8 (as RFC 8259 requires between systems).
        text = body.decode("utf-8")
        return text, json.loads(text)
    except UnicodeDecodeError as exc:
        raise ParseError("the request body is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"malformed JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    except RecursionError as exc:
        raise ParseError("the JSON is nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise ParseError(f"malformed JSON: {exc}") from exc
