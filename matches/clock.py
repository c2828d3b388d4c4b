"""The bridge between Django settings and :mod:`matches.months`: the federation's zone and now."""

from __future__ import annotations

import datetime as dt
from functools import cache
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone


@cache
def _zone(key: str) -> ZoneInfo:
    return ZoneInfo(key)


def federation_tz() -> ZoneInfo:
    return _zone(settings.FIDO_TIMEZONE)


def now() -> dt.datetime:
    """The server clock (aware, UTC): the only source of a submission's time."""
    return timezone.now()
