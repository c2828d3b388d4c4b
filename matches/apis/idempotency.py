"""``Idempotency-Key`` for POST endpoints: a retried request gets the first response.

Contract, per (user, key):
- the first request runs and its response (status and JSON body, errors included; never
  a 5xx, which rolls everything back) is stored in :class:`~matches.models.IdempotencyRecord`
  in the SAME transaction as the request's writes: either both are stored or neither;
- a later request with the same key and the same method, path and body gets that stored
  response again (header ``Idempotent-Replayed: true``) and stores nothing;
- the same key with another method, path or body is 422: a key names one request;
- a key that is empty or longer than 200 characters is 400;
- a request without the header runs as usual.

How: the request runs, then its record is inserted LAST, in the same transaction; the
unique constraint on (user, key) decides. A key used before makes that INSERT fail: the
transaction, with whatever this run wrote, rolls back, and the stored response is
replayed (or the 422 given). A twin request in flight with the same key waits on that
unique entry (or on the same match id) until the first transaction ends: committed, the twin
replays its response; rolled back (a 5xx), the twin's own run stands. Inserting last costs
a repeated request a run that is rolled back, and saves every first request a round trip
(claiming the key first, then writing the response into it). SQLite serialises writers
(``BEGIN IMMEDIATE``), which gives the same outcome.

Use: ``return respond_once(request, lambda: self.handle(request))`` inside a view method
that has already authenticated the user (anonymous requests are not recorded).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from fido.text import json_may_hold_refused, scrub
from matches.models import IdempotencyRecord
from matches.services.idempotency import idempotency_record_store
from matches.validation import Problem

from .errors import ApiProblems, error_response
from .jsonbody import raw_body

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 200
#: A key: 1 to MAX_KEY_LENGTH visible ASCII characters, inner spaces allowed (a UUID is one);
#: the schema says the same (``matches.apis.matches``).
KEY_PATTERN = "^[!-~]([ -~]*[!-~])?$"
_KEY_RE = re.compile(KEY_PATTERN)
REPLAYED_HEADER = "Idempotent-Replayed"


class _DoNotStore(Exception):  # control flow: a response not to store
    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def request_hash(request: Request) -> str:
    digest = hashlib.sha256()
    digest.update(f"{request.method} {request.path}\n".encode())
    digest.update(raw_body(request))
    return digest.hexdigest()


def _key(request: Request) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _KEY_RE.fullmatch(key) or len(key) > MAX_KEY_LENGTH:
        raise ApiProblems(
            [
                Problem(
                    HEADER,
                    _(
                        "an Idempotency-Key is 1 to %(n)d visible ASCII characters (letters, "
                        "digits, punctuation; spaces only inside), for example a UUID"
                    )
                    % {"n": MAX_KEY_LENGTH},
                )
            ]
        )
    return key


def _run(handler: Callable[[], Response]) -> Response:
    """The handler's response, its API errors turned into responses as well."""
    try:
        return handler()
    except Exception as exc:
        response = error_response(exc)
        if response is None:
            raise
        return response


def _json(data: object) -> object:
    """The body as JSON would give it back (dates as text, ReturnDicts as dicts), with any
    character PostgreSQL's ``jsonb`` cannot hold (a NUL, a lone surrogate echoed in an error
    message) replaced: storing an error body never fails."""
    text = json.dumps(data, cls=DjangoJSONEncoder)
    # json.dumps escapes every control and non-ASCII character: only an escape can give one.
    return scrub(json.loads(text)) if json_may_hold_refused(text) else json.loads(text)


def _replay(record: IdempotencyRecord, digest: str) -> Response:
    if record.request_hash != digest:
        raise ApiProblems(
            [
                Problem(
                    HEADER,
                    "this key was already used for a different request; "
                    "use a new key for new content",
                )
            ],
            status.HTTP_422_UNPROCESSABLE_ENTITY,
        )
    response = Response(record.response_body, status=record.status_code)
    response[REPLAYED_HEADER] = "true"
    return response


def respond_once(request: Request, handler: Callable[[], Response]) -> Response:
    key = _key(request)
    user: Any = request.user
    if key is None or not getattr(user, "is_authenticated", False):
        return handler()
    digest = request_hash(request)
    for _attempt in range(3):
        try:
            with transaction.atomic():
                response = _run(handler)
                if response.status_code >= 500:
                    raise _DoNotStore(response)
                record = IdempotencyRecord(
                    user=user,
                    key=key,
                    request_hash=digest,
                    status_code=response.status_code,
                    response_body=_json(response.data),
                )
                # Last: fails if the key was used, which rolls this run back.
                idempotency_record_store(record)
                # The stored body is what a retry gets: the first answer says the same.
                response.data = record.response_body
                return response
        except _DoNotStore as exc:
            return exc.response
        except IntegrityError:
            pass  # the key was used, or a twin request stored the same match meanwhile
        stored = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if stored is not None:
            return _replay(stored, digest)
        # Our writes collided with a twin request's (another key, the same match id), and
        # everything rolled back: run again; the handler now sees the twin's rows.
    raise ApiProblems(
        [Problem(HEADER, "another request with this key is in progress; retry later")],
        status.HTTP_409_CONFLICT,
    )
