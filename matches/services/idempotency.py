"""Recording the answer given to an API request sent with an ``Idempotency-Key``.

:func:`idempotency_record_store` inserts the record with one raw statement. It never
catches anything: called last inside the request's transaction, its ``IntegrityError``
(the key was already used) must reach the caller, whose transaction then rolls back
everything the request wrote (:mod:`matches.apis.idempotency`).
"""

from __future__ import annotations

from .. import sql
from ..models import IdempotencyRecord


def idempotency_record_store(record: IdempotencyRecord) -> IdempotencyRecord:
    """Insert ``record`` (unsaved); raises ``IntegrityError`` when its key is taken."""
    sql.insert([record])
    return record
