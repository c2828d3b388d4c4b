"""API tokens: issued once in plaintext, stored only as their SHA-256 digest, expiring,
revocable (issue 16, item 8).

- :func:`token_issue` makes a new random key for a user, stores its digest with an expiry
  (``FIDO_TOKEN_DAYS`` days, default 90) and returns the key: the only time it exists in
  clear. A stolen copy of the database holds no usable token.
- :func:`token_revoke` ends a key at once (the owner's ``DELETE /api/auth/token``, or an
  admin in the Django admin); :func:`tokens_revoke_for` ends every key of a user.
- :func:`token_digest` is how a presented key is looked up (:func:`matches.sql.token_owner`
  only finds a digest that is neither revoked nor expired).

Token times are the real clock (``django.utils.timezone.now``), not the federation's
settable deadline clock.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.utils import timezone

from ..models import ApiKey

KEY_BYTES = 20  # 40 hex characters, as DRF's keys, so clients need no change


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def token_issue(*, user: Any, now: dt.datetime | None = None) -> tuple[str, ApiKey]:
    """A new key for ``user`` (returned in clear, once) and its stored record."""
    now = now or timezone.now()
    key = secrets.token_hex(KEY_BYTES)
    record = ApiKey.objects.create(
        user=user,
        digest=token_digest(key),
        prefix=key[:6],
        created_at=now,
        expires_at=now + dt.timedelta(days=settings.FIDO_TOKEN_DAYS),
    )
    return key, record


def token_revoke(*, key: str, now: dt.datetime | None = None) -> bool:
    """End ``key`` now; False when it was unknown or already ended."""
    now = now or timezone.now()
    return bool(
        ApiKey.objects.filter(digest=token_digest(key), revoked_at__isnull=True).update(
            revoked_at=now
        )
    )


def tokens_revoke_for(*, user: Any, now: dt.datetime | None = None) -> int:
    """End every live key of ``user`` (a lost laptop, a secretary leaving); how many."""
    now = now or timezone.now()
    return ApiKey.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now)
