"""Brute-force protection of the web login and the token endpoint (django-axes).

Contract (issue 16, item 7; docs/api.md "Brute force"):
- failed logins are counted per client address and, separately, per account name
  (``AXES_LOCKOUT_PARAMETERS``), on the web login (``/accounts/login/``), the admin's and
  ``POST /api/auth/token`` alike: every path goes through ``django.contrib.auth.authenticate``;
- after ``FIDO_LOGIN_FAILURES`` failures (default 10) that address or that account is locked
  out for :func:`cool_off`: 15 minutes, doubling with every further ``FIDO_LOGIN_FAILURES``
  failures tried while locked out, at most 24 hours (backoff: a script that keeps guessing
  waits longer and longer; a person who mistyped waits 15 minutes);
- a locked-out attempt is refused without checking the password: 429 with ``Retry-After``,
  as the API's JSON error under ``/api/``, as the login page with a message elsewhere;
- an admin lifts a lockout by deleting its "access attempt" in the Django admin (Axes), or
  ``manage.py axes_reset_username NAME`` / ``axes_reset_ip ADDRESS``; a successful login
  does not reset the count (``AXES_RESET_ON_SUCCESS`` stays off), so guessing between
  one's own logins gains nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

BASE = dt.timedelta(minutes=15)
LONGEST = dt.timedelta(hours=24)


def cool_off(request: HttpRequest | None = None) -> dt.timedelta:
    """How long a lockout lasts: BASE, doubled for every further limit's worth of failures."""
    limit = max(1, int(getattr(settings, "AXES_FAILURE_LIMIT", 10)))
    failures = int(getattr(request, "axes_failures_since_start", 0) or 0)
    rounds = max(0, failures - limit) // limit
    return min(LONGEST, BASE * (2 ** min(rounds, 10)))


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    """The 429 of a locked-out login attempt (AXES_LOCKOUT_CALLABLE)."""
    wait = cool_off(request)
    minutes = max(1, int(wait.total_seconds() // 60))
    message = _(
        "Too many failed logins from this address or for this account: try again in "
        "%(minutes)s minutes, or ask an administrator to lift the lockout."
    ) % {"minutes": minutes}
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"errors": [{"path": "", "message": message}]}, status=429)
    else:
        response = render(request, "registration/login.html", {"lockout": message}, status=429)
    response["Retry-After"] = str(int(wait.total_seconds()))
    return response
