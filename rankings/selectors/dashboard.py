"""What the federation admin's cycle dashboard reads.

In: an aware instant ("now"). Out: :func:`dashboard_cards` (per discipline a
:class:`Card`: the open month and its deadline, whether it is frozen, the last closed month
and its list, the matches counting in both per club, on time and late, the latest close
run and whether it is active), :func:`published_list_runs` (the latest published lists of
each discipline with the run that computed each), :func:`recent_events` (corrections and
voids), :func:`recent_merges`, :func:`close_run` (one run, for its JSON). Plain data and
model instances with what the page shows loaded; why a month cannot be closed is the
view's to say (:func:`rankings.views.dashboard.close_refusals`), with the service's check.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from matches import clock
from matches.disciplines import CODES, DISCIPLINES
from matches.models import Match, MatchEvent, PlayerMerge
from matches.months import Month, deadline, local_month
from matches.selectors import is_month_closed

from ..models import CloseRun
from ..sql import ListInfo
from .cycle import active_close_run, open_month
from .lists import published_lists

LISTS_SHOWN = 4
"""Published lists shown per discipline, newest first."""
EVENTS_SHOWN = 15
STALE_RUN = dt.timedelta(hours=1)
"""A queued or running run older than this is presumed dead (its worker was lost) and no
longer blocks the button; the task's redelivery or a new close takes over."""
TIMED_STAGES = ("freeze", "load", "compute", "write", "publish")


@dataclass
class ClubCount:
    club_id: str
    name: str
    on_time: int = 0
    late: int = 0

    @property
    def total(self) -> int:
        return self.on_time + self.late


@dataclass
class MonthCounts:
    month: Month
    clubs: list[ClubCount]

    @property
    def on_time(self) -> int:
        return sum(c.on_time for c in self.clubs)

    @property
    def late(self) -> int:
        return sum(c.late for c in self.clubs)


@dataclass
class Card:
    """One discipline's state of the cycle. ``refusals`` (why the open month cannot be
    closed now) and ``run_view`` (the run with its labels) are the view's to fill in."""

    discipline: str
    label: Any
    open_month: Month
    deadline: dt.datetime
    now: dt.datetime
    frozen: bool
    last_closed: Month | None
    open_counts: MonthCounts
    closed_counts: MonthCounts | None
    run: CloseRun | None
    run_active: bool
    latest_list: ListInfo | None = None
    refusals: list[str] = field(default_factory=list)
    run_view: dict[str, Any] | None = None
    projection: dict[str, Any] | None = None
    """The projected list and its latest refresh (the view's to fill in)."""
    hold: Any = None
    """The hold of the close (:class:`~rankings.models.CloseHold`), if it is held."""
    errata: dict[str, Any] | None = None
    """The months an erratum can correct, the later months to recompute, an erratum under
    way (:mod:`rankings.selectors.errata`), filled in by the view."""

    @property
    def can_close(self) -> bool:
        return not self.refusals

    @property
    def deadline_passed(self) -> bool:
        return self.now >= self.deadline

    @property
    def remaining(self) -> dt.timedelta:
        return abs(self.deadline.astimezone(dt.UTC) - self.now.astimezone(dt.UTC))

    @property
    def remaining_parts(self) -> dict[str, int]:
        seconds = int(self.remaining.total_seconds())
        return {
            "days": seconds // 86_400,
            "hours": seconds % 86_400 // 3_600,
            "minutes": seconds % 3_600 // 60,
        }


def stage_timings(run: CloseRun | None) -> list[tuple[str, float]]:
    """(stage, seconds) of the run's timed stages, in stage order."""
    if run is None or not isinstance(run.timings, dict):
        return []
    return [(stage, float(run.timings[stage])) for stage in TIMED_STAGES if stage in run.timings]


def dashboard_cards(now: dt.datetime) -> list[Card]:
    """Every discipline's card, in the disciplines' order."""
    latest: dict[str, ListInfo] = {}
    for published in published_lists():  # newest first: the first of each is the latest
        latest.setdefault(published.ranking_list.discipline, published.ranking_list)
    return [_card(discipline, now, latest.get(discipline)) for discipline in CODES]


def _card(discipline: str, now: dt.datetime, latest_list: ListInfo | None) -> Card:
    tz = clock.federation_tz()
    month = open_month(discipline) or local_month(now, tz)
    last_closed = latest_list.list_month if latest_list is not None else None
    active = active_close_run(discipline, now=now, stale_after=STALE_RUN)
    run = active or (
        CloseRun.objects.filter(discipline=discipline)
        .select_related("ranking_list")
        .order_by("-created_at", "-id")
        .first()
    )
    return Card(
        discipline=discipline,
        label=DISCIPLINES[discipline].label,
        open_month=month,
        deadline=deadline(month, tz),
        now=now,
        frozen=is_month_closed(discipline, month),
        last_closed=last_closed,
        open_counts=_counts(discipline, month),
        closed_counts=_counts(discipline, last_closed) if last_closed else None,
        run=run,
        run_active=active is not None,
        latest_list=latest_list,
    )


def _counts(discipline: str, month: Month) -> MonthCounts:
    """Matches counting in ``month`` (voided ones left out), per club, on time and late."""
    rows = (
        Match.objects.filter(
            discipline=discipline, counting_month=month.first_day, voided_at__isnull=True
        )
        .values("club__club_id", "club__name", "status")
        .annotate(n=Count("id"))
        .order_by("club__club_id")
    )
    clubs: dict[str, ClubCount] = {}
    for row in rows:
        club = clubs.setdefault(
            row["club__club_id"], ClubCount(row["club__club_id"], row["club__name"])
        )
        if row["status"] == "late":
            club.late += row["n"]
        else:
            club.on_time += row["n"]
    return MonthCounts(month, list(clubs.values()))


@dataclass(frozen=True)
class ListRun:
    """A published list and the run that computed it (None: a run that found its list
    already published has no timings to show)."""

    ranking_list: ListInfo
    run: CloseRun | None
    timings: list[tuple[str, float]]

    @property
    def label(self) -> Any:
        return DISCIPLINES[self.ranking_list.discipline].label

    @property
    def total(self) -> float:
        return sum(seconds for _, seconds in self.timings)


def published_list_runs() -> list[ListRun]:
    """The latest published lists of each discipline (:data:`LISTS_SHOWN`), discipline by
    discipline, newest first, with the timings of the run that computed each."""
    by_discipline: dict[str, list[ListInfo]] = defaultdict(list)
    for published in published_lists():
        shown = by_discipline[published.ranking_list.discipline]
        if len(shown) < LISTS_SHOWN:
            shown.append(published.ranking_list)
    lists = [rl for code in CODES for rl in by_discipline.get(code, [])]
    runs: dict[int, CloseRun] = {}
    for done in CloseRun.objects.filter(
        ranking_list_id__in=[rl.id for rl in lists], state=CloseRun.State.SUCCEEDED
    ).order_by("finished_at"):
        if done.ranking_list_id is not None and stage_timings(done):
            runs.setdefault(done.ranking_list_id, done)  # the run that computed it, not a no-op
    return [ListRun(rl, runs.get(rl.id), stage_timings(runs.get(rl.id))) for rl in lists]


def recent_events() -> list[MatchEvent]:
    return list(
        MatchEvent.objects.filter(kind__in=[MatchEvent.Kind.CORRECTED, MatchEvent.Kind.VOIDED])
        .select_related("match", "match__club", "by")
        .order_by("-at", "-id")[:EVENTS_SHOWN]
    )


def recent_merges() -> list[PlayerMerge]:
    return list(
        PlayerMerge.objects.select_related("source", "target", "merged_by").order_by(
            "-merged_at", "-id"
        )[:EVENTS_SHOWN]
    )


def close_run(pk: int) -> CloseRun | None:
    """A close run with its list (the run's JSON)."""
    return CloseRun.objects.select_related("ranking_list").filter(pk=pk).first()
