"""Read queries of the matches app: closed months, a club's submissions, match details."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from . import rawsql
from .models import ClosedMonth, Club, Match, Player, Secretary, Side, SideMember
from .months import Month

_MONTH_FIELD = ClosedMonth._meta.get_field("month")


def last_closed_month_statement(discipline: str) -> tuple[str, list[str]]:
    """The query of :func:`last_closed_month` (one row; :func:`month_or_none` reads it)."""
    table = rawsql.quote(ClosedMonth._meta.db_table)
    return f"SELECT MAX(month) FROM {table} WHERE discipline = %s", [discipline]  # noqa: S608


def month_or_none(value: Any) -> Month | None:
    """A ``month`` column's value (SQLite hands back text) as a Month."""
    return None if value is None else Month.of(_MONTH_FIELD.to_python(value))


def last_closed_month(discipline: str) -> Month | None:
    """The discipline's latest frozen month (raw SQL: every submission asks)."""
    return month_or_none(rawsql.scalar(*last_closed_month_statement(discipline)))


def is_month_closed(discipline: str, month: Month) -> bool:
    return ClosedMonth.objects.filter(discipline=discipline, month=month.first_day).exists()


def secretary_clubs(user: Any) -> list[Club]:
    """The user's clubs as a list (raw SQL: every API submission asks), by club id; those
    the API's token authentication loaded with the user, if it did."""
    if not getattr(user, "is_authenticated", False):
        return []
    loaded = getattr(user, "secretary_clubs_loaded", None)
    if loaded is not None:
        return list(loaded)
    return rawsql.select(
        Club,
        f"WHERE id IN (SELECT club_id FROM {rawsql.quote(Secretary._meta.db_table)} "  # noqa: S608
        "WHERE user_id = %s) ORDER BY club_id",
        [user.pk],
    )


def clubs_of_secretary(user: Any) -> QuerySet[Club]:
    if not getattr(user, "is_authenticated", False):
        return Club.objects.none()
    return Club.objects.filter(secretaries__user=user).order_by("club_id")


def is_secretary_of(user: Any, club: Club) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return Secretary.objects.filter(user=user, club=club).exists()


def match_list(*, club: Club | None = None) -> QuerySet[Match]:
    """Matches with their sides and members loaded in three queries, newest first."""
    queryset = Match.objects.select_related("club", "submission", "replaces")
    if club is not None:
        queryset = queryset.filter(club=club)
    members = SideMember.objects.select_related("player").order_by("id")
    sides = Side.objects.order_by("position").prefetch_related(
        Prefetch("members", queryset=members)
    )
    return queryset.prefetch_related(Prefetch("sides", queryset=sides)).order_by(
        "-received_at", "-id"
    )


def current_revision(*, club: Club, external_id: str) -> Match | None:
    return Match.objects.filter(club=club, external_id=external_id).order_by("-revision").first()


def clubs_writable_by(user: Any) -> QuerySet[Club]:
    """The clubs a user submits for: an admin (``is_staff``) every club, a secretary theirs."""
    if getattr(user, "is_authenticated", False) and user.is_staff:
        return Club.objects.order_by("club_id")
    return clubs_of_secretary(user)


def submissions_of(
    *, clubs: Iterable[Club] | QuerySet[Club] | None, club: Club | None = None
) -> QuerySet[Match]:
    """The matches of ``clubs`` (None: every club, for admins), optionally one club's only.

    Each match carries ``is_replaced`` (a correction exists), newest received first.
    """
    queryset = match_list(club=club)
    if clubs is not None:
        queryset = queryset.filter(club__in=clubs)
    return queryset.annotate(is_replaced=Exists(Match.objects.filter(replaces=OuterRef("pk"))))


def player_names(player_ids: Iterable[str]) -> dict[str, str]:
    """Federation id -> name, for the ids that exist (one query)."""
    ids = set(player_ids)
    if not ids:
        return {}
    return dict(Player.objects.filter(player_id__in=ids).values_list("player_id", "name"))


def next_table_number(*, club: Club, day: dt.date) -> int:
    """1 + the highest N among the club's match ids ``CLUB/YYYY-MM-DD/tN`` of that day."""
    prefix = f"{club.club_id}/{day.isoformat()}/t"
    pattern = re.compile(re.escape(prefix) + r"(\d{1,6})$")
    taken = Match.objects.filter(club=club, external_id__startswith=prefix).values_list(
        "external_id", flat=True
    )
    numbers = [int(m.group(1)) for m in map(pattern.match, taken) if m]
    return max(numbers, default=0) + 1


def match_list_for(*, user: Any, filters: dict[str, Any] | None = None) -> QuerySet[Match]:
    """The matches ``user`` may read, filtered, with everything their listing shows loaded.

    An admin (``is_staff``) reads every club's matches, a secretary their clubs' ones, anyone
    else none. ``filters`` (all optional): ``club`` (club id), ``discipline``, ``category``,
    ``status``, ``counting_month`` (a :class:`Month`), ``date_from`` / ``date_to``
    (inclusive), ``player`` (federation id).
    """
    queryset = match_list().select_related("submission__submitted_by", "replaced_by")
    if not getattr(user, "is_authenticated", False):
        return queryset.none()
    if not user.is_staff:
        queryset = queryset.filter(club__secretaries__user=user)
    filters = filters or {}
    lookups = {
        "club": "club__club_id",
        "discipline": "discipline",
        "category": "category",
        "status": "status",
        "date_from": "date_played__gte",
        "date_to": "date_played__lte",
        "player": "members__player__player_id",
    }
    for name, lookup in lookups.items():
        if filters.get(name) not in (None, ""):
            queryset = queryset.filter(**{lookup: filters[name]})
    if filters.get("counting_month") is not None:
        queryset = queryset.filter(counting_month=filters["counting_month"].first_day)
    return queryset
