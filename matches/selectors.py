"""Read queries of the matches app: closed months, a club's submissions, match details."""

from __future__ import annotations

from typing import Any

from django.db.models import Max, Prefetch, QuerySet

from .models import ClosedMonth, Club, Match, Secretary, Side, SideMember
from .months import Month


def last_closed_month(discipline: str) -> Month | None:
    latest = ClosedMonth.objects.filter(discipline=discipline).aggregate(m=Max("month"))["m"]
    return Month.of(latest) if latest else None


def is_month_closed(discipline: str, month: Month) -> bool:
    return ClosedMonth.objects.filter(discipline=discipline, month=month.first_day).exists()


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
