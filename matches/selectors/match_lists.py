"""Matches as their listings show them: sides and members loaded, what a user may read,
a club's submissions, the next free table number of a day."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from matches.models import Club, Match, Side, SideMember


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
