"""HTTP caching of published lists (issue 12, item 5): ``ETag``, ``Cache-Control``, 304.

Contract, for the views decorated with :func:`list_cached` (ranking pages, list API,
downloads), on GET and HEAD:

- A published list never changes, so a response about a given version of a month's list
  (``/v2/`` in a page's path, ``?version=2`` in the API) carries
  ``Cache-Control: public, max-age=31536000, immutable``; a response about the current
  list (whose pointer moves once a month) or a month's latest version (an erratum may
  replace it) ``public, max-age=`` :data:`CURRENT_MAX_AGE`.
- Every such response carries an ``ETag``. A download's is the list's content hash (its
  seal: the SHA-256 of the CSV bytes, :mod:`rankings.seal`), ``"<sha256>"`` for the CSV
  and ``"<sha256>.json"`` for the JSON, and the CSV also carries ``Digest`` /
  ``Repr-Digest`` headers with that SHA-256. A page's or an API response's is weak,
  derived from the content hash, the code version, the full path with its query and the
  language (one list, many representations).
- ``If-None-Match`` naming the current tag answers ``304 Not Modified`` with no body and
  without reading the list tables: which list (and seal) a URL shows is kept in Django's
  cache (30 days for a version, :data:`CURRENT_MAX_AGE` for the current list and a
  month's latest version), filled by the first request and forgotten at publication.
- HTML pages (``list_cached(page=True)``) are ``private`` (same max-ages, browsers only):
  every page carries a CSRF token in its language form and, for a new visitor, the
  ``csrftoken`` cookie; a shared cache must not hand one visitor's token or cookie to the
  next. The API and the downloads carry neither and are ``public``.
- Requests from signed-in users are not marked public (the page shows their menu): they
  get ``Cache-Control: private, no-cache`` and still an ETag.
- Unknown disciplines and months fall through to the view (its 4xx); nothing is cached
  for them.
- The Atom feeds (new lists, a player's rank changes) are decorated with
  :func:`publications_cached`: a weak ``ETag`` from the newest list version (one query:
  it changes at every publication, an erratum included), the code version, the path and
  the language; ``public, max-age=`` :data:`CURRENT_MAX_AGE`; ``304`` on a matching
  ``If-None-Match`` without building the feed.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_vary_headers

from matches.disciplines import CODES
from matches.months import Month

from . import seal
from .selectors.lists import current_list, publication_mark, published_list
from .sql import ListInfo

logger = logging.getLogger(__name__)
IMMUTABLE = "public, max-age=31536000, immutable"
CURRENT_MAX_AGE = 60
_MONTH_TTL = 86400 * 30  # the cache's memory of which list a month shows
_KEY_VERSION = 1


def list_tag(ranking_list: ListInfo) -> str:
    """The list's content hash, or (a list from before the seals) its immutable identity."""
    if ranking_list.seal is not None and ranking_list.seal.content_sha256:
        return ranking_list.seal.content_sha256
    return f"list-{ranking_list.id}-v{ranking_list.version}"


def _key(discipline: str, month: str | None, version: int | None = None) -> str:
    which = month or "current"
    if version is not None:
        which += f":v{version}"
    return f"fido:list-tag:{_KEY_VERSION}:{discipline}:{which}"


def asked_version(request: HttpRequest, kwargs: dict[str, Any]) -> int | None:
    """The version a URL names (``/v2/`` or ``?version=2``); None when it names none or
    names it wrongly (the view answers that with its 400)."""
    if kwargs.get("version") is not None:
        return int(kwargs["version"])
    raw = request.GET.get("version", "")
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= 10**6 else None


def _lookup(discipline: str, month: str | None, version: int | None = None) -> str | None:
    """The tag of the list a URL shows, from the cache or (once) from the database."""
    key = _key(discipline, month, version)
    tag = cache.get(key)
    if tag is not None:
        return str(tag)
    if discipline not in CODES:
        return None
    if month is None:
        found = current_list(discipline=discipline)
    else:
        try:
            parsed = Month.parse(month)
        except ValueError:
            return None
        found = published_list(discipline=discipline, month=parsed, edition=version)
    if found is None:
        return None
    tag = list_tag(found)
    _remember(discipline, month, version, tag)
    return tag


def _remember(discipline: str, month: str | None, version: int | None, tag: str) -> None:
    ttl = _MONTH_TTL if version is not None else CURRENT_MAX_AGE
    cache.set(_key(discipline, month, version), tag, ttl)


def forget(discipline: str, month: Month | None = None) -> None:
    """Drop what the cache remembers of a discipline's current list (and of a month's).
    Never raises: a publication that committed is not failed by an unreachable cache (the
    entries expire on their own)."""
    try:
        cache.delete(_key(discipline, None))
        if month is not None:
            cache.delete(_key(discipline, str(month)))
    except Exception:  # any cache backend's error
        logger.warning("could not forget the cached list tags of %s", discipline, exc_info=True)


def _etag(request: HttpRequest, tag: str, fmt: str | None) -> str:
    if fmt == "csv":
        return f'"{tag}"'
    if fmt is not None:
        return f'"{tag}.{fmt}"'
    parts = [tag, seal.code_version(), request.get_full_path(), translation.get_language() or ""]
    return 'W/"' + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:40] + '"'


def _matches(request: HttpRequest, etag: str) -> bool:
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    if header.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(t.strip().removeprefix("W/") == bare for t in header.split(","))


def _stamp(
    response: HttpResponse, request: HttpRequest, etag: str, *, version: int | None, page: bool
) -> None:
    response["ETag"] = etag
    signed_in = getattr(getattr(request, "user", None), "is_authenticated", False)
    if signed_in:
        control = "private, no-cache"
    elif version is None:
        control = f"public, max-age={CURRENT_MAX_AGE}"
    else:
        control = IMMUTABLE
    response["Cache-Control"] = control.replace("public", "private") if page else control
    patch_vary_headers(response, ["Accept-Language"])


def shows(response: Any, ranking_list: ListInfo | None) -> Any:
    """Mark ``response`` as showing ``ranking_list`` (so that its tag needs no query)."""
    response.fido_list = ranking_list
    return response


def list_cached(
    *, fmt_kwarg: str | None = None, page: bool = False
) -> Callable[[Callable[..., Any]], Any]:
    """Decorate a view taking ``discipline`` and optionally ``month`` (and ``fmt_kwarg``)
    whose responses name the list they show (:func:`shows`). A conditional request looks
    the tag up first (the cache, else one query); a plain one takes it from the response."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if request.method not in {"GET", "HEAD"}:
                return view(request, *args, **kwargs)
            discipline, month = kwargs.get("discipline", ""), kwargs.get("month")
            fmt = kwargs.get(fmt_kwarg) if fmt_kwarg else None
            version = asked_version(request, kwargs) if month is not None else None
            if request.headers.get("If-None-Match"):
                tag = _lookup(discipline, month, version)
                if tag is not None and _matches(request, etag := _etag(request, tag, fmt)):
                    response: HttpResponse = HttpResponseNotModified()
                    _stamp(response, request, etag, version=version, page=page)
                    return response
            response = view(request, *args, **kwargs)
            shown: ListInfo | None = getattr(response, "fido_list", None)
            if response.status_code != 200 or shown is None:
                return response
            tag = list_tag(shown)
            _remember(discipline, month, version, tag)
            if fmt == "csv" and len(tag) == 64:
                digest = base64.b64encode(bytes.fromhex(tag)).decode()
                response["Digest"] = f"sha-256={digest}"
                response["Repr-Digest"] = f"sha-256=:{digest}:"
            _stamp(response, request, _etag(request, tag, fmt), version=version, page=page)
            return response

        return wrapped

    return decorate


def publications_cached(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a feed whose content changes only when a list version is published."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if request.method not in {"GET", "HEAD"}:
            return view(request, *args, **kwargs)
        last_id, versions = publication_mark()
        etag = _etag(request, f"publications-{last_id}-{versions}", None)
        if _matches(request, etag):
            response: HttpResponse = HttpResponseNotModified()
        else:
            response = view(request, *args, **kwargs)
            if response.status_code != 200:
                return response
        _stamp(response, request, etag, version=None, page=False)
        return response

    return wrapped
