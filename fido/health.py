"""``GET /healthz``: the state of the database and of the Celery broker.

200 with ``{"status": "ok", "database": "ok", "broker": "ok"}`` when both answer; 503 with
the failing part's error otherwise. Checks are bounded by short timeouts so that a dead
broker makes the probe fail fast instead of hanging.
"""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

from .celery import app as celery_app

BROKER_TIMEOUT_SECONDS = 2


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure is reported, not raised
        return f"error: {exc.__class__.__name__}: {exc}"
    return "ok"


def broker_state() -> str:
    conf = celery_app.conf
    try:
        with Connection(
            conf.broker_url,
            transport_options=dict(conf.broker_transport_options or {}),
            connect_timeout=BROKER_TIMEOUT_SECONDS,
        ) as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
            _ = conn.default_channel  # opens a channel: the transport really answers
    except Exception as exc:
        return f"error: {exc.__class__.__name__}: {exc}"
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database = database_state()
    broker = broker_state()
    healthy = database == "ok" and broker == "ok"
    return JsonResponse(
        {"status": "ok" if healthy else "error", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
