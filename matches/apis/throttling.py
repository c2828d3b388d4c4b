"""API rate limits: a sliding-window counter per user (or client address) and scope.

Contract (DRF throttle classes; rates ``"N/period"`` from ``REST_FRAMEWORK``'s
``DEFAULT_THROTTLE_RATES``, read at each request so that an override takes effect):

- a request is allowed while ``previous * (1 - elapsed) + current <= N``, where ``current``
  counts the requests of this fixed window (this one included), ``previous`` those of the
  window before and ``elapsed`` the share of this window gone by: the usual
  sliding-window estimate, at most N requests in any window-long stretch when traffic is
  even, never twice N at a window boundary as a plain fixed window allows;
- a refused request is not counted; ``wait()`` is the time until enough of the previous
  window has slid out (the ``Retry-After`` of the 429);
- one round trip to Redis per request (INCR, EXPIRE and GET in one pipeline), O(1) in the
  rate, where DRF's own throttles read and rewrite a list of every timestamp of the
  window (thousands of them at a few thousand per minute) twice per request;
- without Redis (the embedded default) the same arithmetic runs on Django's cache;
- the counter store unreachable (Redis down): the request is allowed and a warning
  logged. A rate limit must not turn a Redis outage into lost submissions (SPEC.md 6,
  "Redis down during submissions: no result lost").
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)

_client: redis.Redis | None = None
_client_url = ""


def _redis() -> redis.Redis | None:
    """A per-process client of ``REDIS_URL`` (None without one), failing fast when down."""
    global _client, _client_url
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return None
    if _client is None or _client_url != url:
        _client = redis.Redis.from_url(url, socket_connect_timeout=0.25, socket_timeout=0.5)
        _client_url = url
    return _client


def _counts(key: str, window: int, duration: int) -> tuple[int, int]:
    """Count this request in ``window``; (previous window's count, this window's)."""
    current, previous = f"{key}:{window}", f"{key}:{window - 1}"
    client = _redis()
    if client is not None:
        pipe = client.pipeline(transaction=False)
        pipe.incr(current)
        pipe.expire(current, 2 * duration + 1)
        pipe.get(previous)
        now_count, _ok, before = pipe.execute()
        return int(before or 0), int(now_count)
    cache.add(current, 0, timeout=2 * duration + 1)
    return int(cache.get(previous) or 0), int(cache.incr(current))


def _uncount(key: str, window: int) -> None:
    client = _redis()
    if client is not None:
        client.decr(f"{key}:{window}")
    else:
        cache.decr(f"{key}:{window}")


class SlidingWindowThrottle(SimpleRateThrottle):
    """DRF's rate syntax, scopes and idents, with the counter described above."""

    cache_format = "throttle:%(scope)s:%(ident)s"

    def __init__(self) -> None:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self._wait: float | None = None

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")
        return None if rate is None else str(rate)

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        duration = int(self.duration)
        now = self.timer()
        window = int(now // duration)
        elapsed = (now - window * duration) / duration
        try:
            previous, current = _counts(key, window, duration)
            if previous * (1 - elapsed) + current <= self.num_requests:
                return True
            _uncount(key, window)
        except (redis.RedisError, OSError, ValueError) as exc:
            logger.warning("rate limit store unavailable, request allowed: %s", exc)
            return True
        # Refused: wait until the previous window's share has shrunk enough for one more
        # request, or until this window has ended (its count then slides out in turn).
        room = self.num_requests - current
        if previous and room >= 0:
            self._wait = max(0.0, (1 - room / previous - elapsed) * duration)
        else:
            self._wait = (window + 1) * duration - now
        return False

    def wait(self) -> float | None:
        return self._wait


class UserThrottle(SlidingWindowThrottle):
    """Per user when logged in, per client address otherwise (DRF's ``user`` scope)."""

    scope = "user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        user = request.user
        ident = user.pk if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AnonThrottle(SlidingWindowThrottle):
    """Anonymous requests per client address (DRF's ``anon`` scope)."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class SubmissionRateThrottle(UserThrottle):
    """Per-user rate of POSTs (submissions, corrections, voids): the ``submissions``
    rate, else the ``user`` rate."""

    scope = "submissions"

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        rate = rates.get(self.scope) or rates.get("user")
        return None if rate is None else str(rate)
