"""The owner of an API token: the user and the clubs they are secretary of, in one
statement (:func:`matches.sql.token_owner`; every API request asks). ``None``: no such token."""

from __future__ import annotations

from .. import sql
from ..sql import TokenOwner

__all__ = ["TokenOwner", "token_owner"]


def token_owner(key: str) -> TokenOwner | None:
    """The owner of API token ``key`` with their clubs by club id, or None."""
    return sql.token_owner(key)
