"""The audit records' guard: rows of the audit trail are written by the services only.

Contract:

- :class:`AuditRecord` is an abstract model for the rows that make up the history
  (submissions, match events, player merges, closed months; in the rankings app close runs,
  lists and entries). Its instances refuse ``save()`` and ``delete()`` with
  :class:`AuditRecordRefused` unless the call happens inside :func:`recording`, which only
  the write services open (``@recording()`` as a decorator or a ``with`` block). A shell, a
  fixture or an admin form that saves such a row by hand is refused before any SQL runs.
- :class:`AppendOnlyRecord` is the same guard for the results themselves (matches, their
  sides and members): the store writes them, a correction is a new revision and a void an
  event, so an existing row's ``save()`` (an edit in place) and ``delete()`` are refused
  outside :func:`recording`; creating a row is left to the store's own checks.
- Bulk statements (``QuerySet.update``, raw SQL, ``COPY``) are not intercepted here: they
  only appear in the services, and published lists are guarded by the database itself
  (rankings migration 0001_squashed_0011, formerly 0002 and 0004).
- The Django admin shows these models read-only (``matches.admin.ReadOnlyAdmin``): no add,
  change or delete for anyone, superusers included.

Knows nothing of the rest of the app; both apps' models import it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from django.db import models

_RECORDING: ContextVar[bool] = ContextVar("fido_audit_recording", default=False)


class AuditRecordRefused(Exception):
    """A row of the audit trail was written or deleted outside the services."""


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Allow the services' own writes of audit records (a context manager and a decorator)."""
    token = _RECORDING.set(True)
    try:
        yield
    finally:
        _RECORDING.reset(token)


def is_recording() -> bool:
    return _RECORDING.get()


def _refuse(model: type[models.Model], verb: str) -> None:
    if not _RECORDING.get():
        raise AuditRecordRefused(
            f"{model._meta.verbose_name} is part of the audit trail: it cannot be {verb} "
            "by hand, only through the services (merge, void, correct, close)"
        )


class AuditRecord(models.Model):
    """A row of the history: written by the services only, never edited nor deleted by hand."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        _refuse(type(self), "saved")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        _refuse(type(self), "deleted")
        return super().delete(*args, **kwargs)


class AppendOnlyRecord(AuditRecord):
    """A result row: created by the store, never edited in place nor deleted by hand (the
    audit record's guard, with new rows left to the store's own checks)."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            _refuse(type(self), "changed")
        with recording():
            super().save(*args, **kwargs)
