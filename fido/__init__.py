"""The FIDO results and world-ranking service (Django project package).

Importing the package loads the Celery app so that ``@shared_task`` tasks bind to it.
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
