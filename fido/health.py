"""``GET /healthz``: the state of the database and of the Celery broker, within 2 seconds.

200 with ``{"status": "ok", "database": "ok", "broker": "ok"}`` when both answer; 503 with
each failing part's state otherwise: ``"error: no answer within 1.0 s"`` (a server that
accepts connections but does not answer: stopped with SIGSTOP, swapping, a network that
drops packets) or ``"error: <what failed>"`` (refused, authentication, ...). The reason's
details (addresses, messages) are logged, not shown.

Bounded whatever the servers do: both checks run at the same time in one event loop, each
under one deadline (``CHECK_SECONDS``) that covers connecting, authenticating and the
query, and is enforced on the client side; a frozen server cannot hold the probe. On
PostgreSQL the probe opens its own short-lived connection (``connect_timeout``, and a
server-side ``statement_timeout`` for a server that is alive but stuck on locks), never the
request's persistent one, which a frozen server would leave hanging; on Redis its own
client with socket timeouts. The embedded default (SQLite, the filesystem broker) is
checked in a worker thread under the same deadline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import redis.asyncio as aioredis
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

from . import sql
from .celery import app as celery_app

logger = logging.getLogger(__name__)

#: Each check's deadline; both run at once, so the probe answers within about this long.
CHECK_SECONDS = 1.0
_CONNECT_SECONDS = 1
_STATEMENT_MS = int(CHECK_SECONDS * 1000)
# The connection parameters of Django's PostgreSQL backend that a probe connection needs.
# Blocking probes (SQLite, the filesystem broker) run here, never in asyncio's default
# executor, which asyncio.run would wait for however long a stuck probe takes.
_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="healthz")
_PG_KEYS = frozenset(
    {"dbname", "user", "password", "host", "port", "sslmode", "sslrootcert", "sslcert", "sslkey"}
)


async def _postgresql_probe(params: dict[str, Any]) -> None:
    """``SELECT 1`` on a new connection; raises on any failure."""
    conn = await psycopg.AsyncConnection.connect(
        **{k: v for k, v in params.items() if k in _PG_KEYS},
        connect_timeout=_CONNECT_SECONDS,
        options=f"-c statement_timeout={_STATEMENT_MS}",
        autocommit=True,
    )
    try:
        await conn.execute("SELECT 1")
    finally:
        await conn.close()


async def _redis_probe(url: str) -> None:
    client = aioredis.Redis.from_url(
        url, socket_connect_timeout=_CONNECT_SECONDS, socket_timeout=CHECK_SECONDS
    )
    try:
        await client.ping()
    finally:
        await client.aclose()


def _django_database_probe() -> None:
    """The embedded default's probe: ``SELECT 1`` through Django (SQLite)."""
    try:
        sql.select_one()
    finally:
        connection.close()  # opened in a worker thread: not left for nobody to close


def _kombu_probe(url: str, options: dict[str, Any]) -> None:
    """A transport other than Redis (the embedded filesystem broker) answers a channel."""
    with Connection(url, transport_options=options, connect_timeout=_CONNECT_SECONDS) as conn:
        conn.ensure_connection(max_retries=1, timeout=_CONNECT_SECONDS)
        _ = conn.default_channel


def _in_thread(probe: Callable[[], None]) -> Awaitable[None]:
    return asyncio.get_running_loop().run_in_executor(_THREADS, probe)


def database_probe() -> Callable[[], Awaitable[None]]:
    if connection.vendor == "postgresql":
        params = connection.get_connection_params()
        return lambda: _postgresql_probe(params)
    return lambda: _in_thread(_django_database_probe)


def broker_probe() -> Callable[[], Awaitable[None]]:
    conf = celery_app.conf
    url = str(conf.broker_url or "")
    if url.startswith(("redis://", "rediss://", "unix://")):
        return lambda: _redis_probe(url)
    options = dict(conf.broker_transport_options or {})
    return lambda: _in_thread(lambda: _kombu_probe(url, options))


async def _state(name: str, probe: Callable[[], Awaitable[None]]) -> str:
    try:
        await asyncio.wait_for(probe(), CHECK_SECONDS)
    except TimeoutError:
        logger.warning("healthz: %s gave no answer within %s s", name, CHECK_SECONDS)
        return f"error: no answer within {CHECK_SECONDS} s"
    except Exception as exc:  # any failure is reported, not raised
        logger.warning("healthz: %s failed: %s: %s", name, exc.__class__.__name__, exc)
        return f"error: unreachable ({exc.__class__.__name__})"
    return "ok"


async def _states(
    database: Callable[[], Awaitable[None]], broker: Callable[[], Awaitable[None]]
) -> tuple[str, str]:
    return await asyncio.gather(_state("database", database), _state("broker", broker))


def states() -> tuple[str, str]:
    """(database state, broker state), both checked at once; within about CHECK_SECONDS."""
    return asyncio.run(_states(database_probe(), broker_probe()))


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database, broker = states()
    healthy = database == "ok" and broker == "ok"
    return JsonResponse(
        {"status": "ok" if healthy else "error", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
