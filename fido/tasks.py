"""Infrastructure tasks: prove that a worker is alive and can reach the database."""

from __future__ import annotations

from celery import shared_task
from django.db import connection

from . import sql
from .celery import app as _app  # noqa: F401  (the tasks below bind to this app)


@shared_task(name="fido.ping")
def ping() -> str:
    """Answer ``"pong"``: a round trip through broker, worker and result backend."""
    return "pong"


@shared_task(name="fido.database_ping")
def database_ping() -> dict[str, object]:
    """Run a query on the worker's database connection and say which database answered."""
    return {"vendor": connection.vendor, "result": sql.select_one()}
