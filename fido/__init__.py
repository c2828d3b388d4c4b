"""The FIDO results and world-ranking service (Django project package).

The Celery app (:mod:`fido.celery`) is loaded on first use, not with the package: a
management command or a web process that never talks to a broker does not pay for
importing Celery, kombu and redis (a third of a second). ``celery -A fido`` finds
``fido.celery.app`` by itself; the task modules (``fido.tasks``, ``rankings.tasks``) import
the app before declaring their ``@shared_task`` tasks, so they always bind to it;
``fido.celery_app`` still works and loads it.
"""

from __future__ import annotations

from typing import Any

__all__ = ("celery_app",)


def __getattr__(name: str) -> Any:
    if name == "celery_app":
        from .celery import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
