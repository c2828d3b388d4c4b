"""The clubs a user may submit for: one question, one selector.

:func:`secretary_clubs` answers it for every channel (the secretary pages, the REST API's
submit and ``/api/me``): the clubs the user is secretary of, by club id, or every club for
an admin when the caller asks for that (``every_club_for_staff``). The API's token
authentication loads the same clubs with the user in one statement
(:func:`matches.sql.token_owner`) and hands them on as the same :class:`SecretaryClubs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from matches import sql
from matches.models import Club, Secretary


@dataclass(frozen=True, slots=True)
class SecretaryClubs:
    """The clubs a user submits for, by club id (empty: none, or not logged in)."""

    user_id: int | None
    clubs: tuple[Club, ...] = ()

    def by_code(self) -> dict[str, Club]:
        """Club id -> club."""
        return {club.club_id: club for club in self.clubs}


def secretary_clubs(*, user: Any, every_club_for_staff: bool = False) -> SecretaryClubs:
    """The clubs ``user`` is secretary of (raw SQL: every API submission asks), by club id.

    ``every_club_for_staff``: an admin (``is_staff``) gets every club, as on the secretary
    pages, where an admin may submit for any club; without it an admin gets the clubs they
    are secretary of, like anyone.
    """
    if not getattr(user, "is_authenticated", False):
        return SecretaryClubs(user_id=None)
    if every_club_for_staff and user.is_staff:
        return SecretaryClubs(user_id=user.pk, clubs=tuple(Club.objects.order_by("club_id")))
    rows = sql.execute(sql.secretary_clubs(user.pk))
    return SecretaryClubs(user_id=user.pk, clubs=tuple(sql.instances(Club, rows)))


def is_secretary_of(user: Any, club: Club) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return Secretary.objects.filter(user=user, club=club).exists()
