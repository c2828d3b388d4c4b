"""A WSGI application that answers every request with the serving process's id: what the
gunicorn worker tests need to see which process took which connection."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    del environ
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
