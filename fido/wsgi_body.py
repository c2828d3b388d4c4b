"""A request body sent with ``Transfer-Encoding: chunked`` is read, not taken for empty.

Django reads exactly ``CONTENT_LENGTH`` bytes of a request and, without that header, none:
a chunked body (which has no length; gunicorn decodes the chunks into ``wsgi.input``) was
answered "the request body is empty" (issue 16, item 10). This WSGI middleware, around the
application in :mod:`fido.wsgi`, reads such a body first, up to one byte more than
``DATA_UPLOAD_MAX_MEMORY_SIZE``, and hands Django the bytes with their length: a body too
large is then Django's own 413 (the API's :class:`~matches.apis.errors.PayloadTooLarge`),
never read further. Requests with a ``Content-Length`` pass untouched.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings


class ChunkedBodyMiddleware:
    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not environ.get("CONTENT_LENGTH"):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            body = _read(environ["wsgi.input"], None if limit is None else limit + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


def _read(stream: Any, limit: int | None) -> bytes:
    parts: list[bytes] = []
    size = 0
    while limit is None or size < limit:
        part = stream.read(65536 if limit is None else min(65536, limit - size))
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)
