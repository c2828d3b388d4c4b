"""The federation admin's cycle dashboard: open months, submissions, the close, the job's run.

Staff only (``is_staff``): an anonymous visitor is sent to the login page (302), a logged-in
user who is not staff gets 403.

- ``GET /dashboard/``: per discipline the open month (the first without a published list)
  and its deadline with a countdown, the matches counting in the open month and in the last
  closed one per club (on time / late), the "close month" button or why it is disabled
  (before the deadline, the previous month not closed, a close already running), the
  ranking job's progress while it runs; then the published lists with their stage timings,
  and the latest corrections, voids and merges with links into Django's admin.
- ``POST /dashboard/close/``: fields ``discipline``, ``month`` (``YYYY-MM``) and
  ``confirm=yes`` (CSRF-protected). Without ``confirm`` it answers with a confirmation page
  and does nothing. A refused close is a 400 with the reasons; an accepted one is handed to
  a worker by :func:`rankings.services.close_enqueue` (a ``CloseRun`` records it) and the
  answer is a 303 back to the dashboard, which follows the run.
- ``GET /dashboard/runs/<id>.json``: the run's state, stage, percent, timings and error,
  polled every second by ``static/js/dashboard.js``; without JavaScript the page refreshes
  itself while a run is active.

The views validate input, call the rankings services and the read queries below, and
render; the rules of the close are the service's (:func:`rankings.services.close_check`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from kombu.exceptions import OperationalError as KombuOperationalError

from matches import clock
from matches.models import Discipline, Match, MatchEvent, PlayerMerge
from matches.months import Month, deadline, local_month
from matches.selectors import is_month_closed

from . import services
from .models import CloseRun, RankingList

logger = logging.getLogger(__name__)

#: Published lists shown per discipline, newest first; corrections/voids and merges shown.
LISTS_SHOWN = 4
EVENTS_SHOWN = 15
#: A queued or running run older than this is presumed dead (its worker was lost) and no
#: longer blocks the button; the task's redelivery or a new close takes over.
STALE_RUN = dt.timedelta(hours=1)
ACTIVE_STATES = (CloseRun.State.QUEUED, CloseRun.State.RUNNING)
TIMED_STAGES = ("freeze", "load", "compute", "write", "publish")

DISCIPLINE_LABELS = {
    "fido": gettext_lazy("FIDO divisor game"),
    "allfives": gettext_lazy("All Fives (Muggins / Five Up)"),
    "austrian": gettext_lazy("Austrian double-eight"),
}
STATE_LABELS = {
    "queued": gettext_lazy("queued"),
    "running": gettext_lazy("running"),
    "succeeded": gettext_lazy("published"),
    "failed": gettext_lazy("failed"),
}
STAGE_LABELS = {
    "queued": gettext_lazy("Waiting for a worker"),
    "waiting": gettext_lazy("Waiting for another close"),
    "freeze": gettext_lazy("Freezing the month"),
    "load": gettext_lazy("Loading results"),
    "compute": gettext_lazy("Computing FLADUB"),
    "write": gettext_lazy("Writing entries"),
    "publish": gettext_lazy("Publishing"),
    "done": gettext_lazy("Done"),
}


def staff_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Anonymous: 302 to the login page. Logged in but not staff: 403."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            raise PermissionDenied(_("The cycle dashboard is for federation admins."))
        return view(request, *args, **kwargs)

    return wrapped


# --- What the page shows ------------------------------------------------------------------


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
    """One discipline's state of the cycle."""

    discipline: str
    label: str
    open_month: Month
    deadline: dt.datetime
    now: dt.datetime
    frozen: bool
    last_closed: Month | None
    open_counts: MonthCounts
    closed_counts: MonthCounts | None
    refusals: list[str]
    run: CloseRun | None
    run_active: bool
    latest_list: RankingList | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def run_view(self) -> dict[str, Any] | None:
        return run_view(self.run) if self.run is not None else None

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


def _active_run(discipline: str, now: dt.datetime) -> CloseRun | None:
    return (
        CloseRun.objects.filter(
            discipline=discipline, state__in=ACTIVE_STATES, created_at__gte=now - STALE_RUN
        )
        .order_by("-created_at", "-id")
        .first()
    )


def close_refusals(*, discipline: str, month: Month, now: dt.datetime) -> list[str]:
    """Why ``month`` of ``discipline`` cannot be closed now (translated); [] if it can.

    The service's :func:`~rankings.services.close_check` is the authority; this names its
    reasons for people, and adds the dashboard's own: a close already running.
    """
    reasons: list[str] = []
    tz = clock.federation_tz()
    active = _active_run(discipline, now)
    if active is not None:
        reasons.append(
            _("A close of %(month)s is already running (run %(run)s, %(state)s).")
            % {
                "month": Month.of(active.month),
                "run": active.pk,
                "state": STATE_LABELS.get(active.state, active.state),
            }
        )
    if services.published_list(discipline=discipline, month=month) is not None:
        reasons.append(_("The list of %(month)s is already published.") % {"month": month})
        return reasons
    due = deadline(month, tz)
    if now < due:
        reasons.append(
            _("The deadline of %(month)s has not passed yet: it is %(deadline)s (%(zone)s).")
            % {
                "month": month,
                "deadline": due.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
                "zone": tz.key,
            }
        )
        return reasons
    try:
        services.close_check(month=month, discipline=discipline, now=now)
    except services.CloseRefused as exc:
        previous = month.prev()
        if services.published_list(discipline=discipline, month=previous) is None:
            reasons.append(
                _("The previous month, %(previous)s, is not closed yet: close it first.")
                % {"previous": previous}
            )
        else:  # a reason the dashboard has no words for: the service's own
            reasons.append(str(exc))
    return reasons


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


def _card(discipline: str, now: dt.datetime) -> Card:
    tz = clock.federation_tz()
    open_month = services.next_month_to_close(discipline) or local_month(now, tz)
    last = RankingList.objects.filter(
        discipline=discipline, status=RankingList.Status.PUBLISHED
    ).aggregate(m=Max("month"))["m"]
    last_closed = Month.of(last) if last is not None else None
    active = _active_run(discipline, now)
    run = active or (
        CloseRun.objects.filter(discipline=discipline)
        .select_related("ranking_list")
        .order_by("-created_at", "-id")
        .first()
    )
    return Card(
        discipline=discipline,
        label=str(DISCIPLINE_LABELS.get(discipline, discipline)),
        open_month=open_month,
        deadline=deadline(open_month, tz),
        now=now,
        frozen=services_frozen(discipline, open_month),
        last_closed=last_closed,
        open_counts=_counts(discipline, open_month),
        closed_counts=_counts(discipline, last_closed) if last_closed else None,
        refusals=close_refusals(discipline=discipline, month=open_month, now=now),
        run=run,
        run_active=active is not None,
        latest_list=services.published_list(discipline=discipline, month=last_closed)
        if last_closed
        else None,
    )


def services_frozen(discipline: str, month: Month) -> bool:
    """Whether ``month`` was frozen (a close started) though its list is not published."""
    return is_month_closed(discipline, month)


def _timings(run: CloseRun | None) -> list[tuple[str, float]]:
    if run is None or not isinstance(run.timings, dict):
        return []
    return [(stage, float(run.timings[stage])) for stage in TIMED_STAGES if stage in run.timings]


def _published_lists() -> list[dict[str, Any]]:
    """The latest published lists of each discipline, with the timings of the run that
    computed each (a run that found its list already published has none)."""
    lists = [
        ranking_list
        for discipline in Discipline.values
        for ranking_list in RankingList.objects.filter(
            discipline=discipline, status=RankingList.Status.PUBLISHED
        ).order_by("-month")[:LISTS_SHOWN]
    ]
    runs: dict[int, CloseRun] = {}
    for done in CloseRun.objects.filter(
        ranking_list__in=lists, state=CloseRun.State.SUCCEEDED
    ).order_by("finished_at"):
        if done.ranking_list_id is not None and _timings(done):
            runs.setdefault(done.ranking_list_id, done)  # the run that computed it, not a no-op
    rows = []
    for ranking_list in lists:
        run = runs.get(ranking_list.pk)
        timings = _timings(run)
        rows.append(
            {
                "list": ranking_list,
                "label": DISCIPLINE_LABELS.get(ranking_list.discipline, ranking_list.discipline),
                "month": Month.of(ranking_list.month),
                "timings": timings,
                "total": sum(seconds for _, seconds in timings),
                "run": run,
            }
        )
    return rows


def _stage_timings_labels() -> list[tuple[str, Any]]:
    return [(stage, STAGE_LABELS[stage]) for stage in TIMED_STAGES]


def _events() -> list[MatchEvent]:
    return list(
        MatchEvent.objects.filter(kind__in=[MatchEvent.Kind.CORRECTED, MatchEvent.Kind.VOIDED])
        .select_related("match", "match__club", "by")
        .order_by("-at", "-id")[:EVENTS_SHOWN]
    )


def _merges() -> list[PlayerMerge]:
    return list(
        PlayerMerge.objects.select_related("source", "target", "merged_by").order_by(
            "-merged_at", "-id"
        )[:EVENTS_SHOWN]
    )


# --- Pages --------------------------------------------------------------------------------


def _render_dashboard(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    now = clock.now()
    cards = [_card(discipline, now) for discipline in Discipline.values]
    context = {
        "cards": cards,
        "any_active": any(card.run_active for card in cards),
        "lists": _published_lists(),
        "stages": _stage_timings_labels(),
        "events": _events(),
        "merges": _merges(),
        "federation_tz": clock.federation_tz().key,
        "now": now,
        "stage_labels": {k: str(v) for k, v in STAGE_LABELS.items()},
        "state_labels": {k: str(v) for k, v in STATE_LABELS.items()},
        **extra,
    }
    return render(request, "dashboard/dashboard.html", context, status=status)


@never_cache
@require_GET
@staff_page
def dashboard(request: HttpRequest) -> HttpResponse:
    return _render_dashboard(request)


@never_cache
@require_POST
@staff_page
def close_month(request: HttpRequest) -> HttpResponse:
    """Close a month: confirm, check, enqueue; then back to the dashboard (303)."""
    discipline = request.POST.get("discipline", "")
    raw_month = request.POST.get("month", "")
    problems = []
    if discipline not in Discipline.values:
        problems.append(_("Unknown discipline."))
    try:
        month = Month.parse(raw_month)
    except ValueError:
        month = None
        problems.append(_("Not a month (expected YYYY-MM)."))
    if problems or month is None:
        return _render_dashboard(request, status=400, close_errors=problems)
    label = DISCIPLINE_LABELS[discipline]
    if request.POST.get("confirm") != "yes":
        return render(
            request,
            "dashboard/confirm_close.html",
            {"discipline": discipline, "label": label, "month": month},
        )
    refusals = close_refusals(discipline=discipline, month=month, now=clock.now())
    if refusals:
        return _render_dashboard(
            request,
            status=400,
            close_errors=refusals,
            close_target={"discipline": discipline, "label": label, "month": month},
        )
    try:
        run = services.close_enqueue(month=month, discipline=discipline, by=request.user)
    except (KombuOperationalError, OSError) as exc:
        # The broker is unreachable: the run was recorded but no worker will ever see it.
        logger.exception("could not enqueue the close of %s %s", discipline, month)
        failed = CloseRun.objects.filter(
            discipline=discipline, month=month.first_day, state=CloseRun.State.QUEUED
        ).order_by("-created_at", "-id")[:1]
        CloseRun.objects.filter(pk__in=list(failed.values_list("pk", flat=True))).update(
            state=CloseRun.State.FAILED,
            error=f"the task queue is unreachable: {exc}"[:10_000],
            finished_at=clock.now(),
        )
        return _render_dashboard(
            request,
            status=503,
            close_errors=[
                _(
                    "The task queue is unreachable, so the close was not started. Try again "
                    "in a moment, or run “manage.py close_month %(month)s --discipline "
                    "%(discipline)s --inline” on the server."
                )
                % {"month": month, "discipline": discipline}
            ],
            close_target={"discipline": discipline, "label": label, "month": month},
        )
    messages.success(
        request,
        _("Closing %(month)s (%(discipline)s): the ranking job is queued as run %(run)s.")
        % {"month": month, "discipline": label, "run": run.pk},
    )
    url = reverse("rankings:dashboard") + f"#discipline-{discipline}"
    return _see_other(url)


def _see_other(url: str) -> HttpResponse:
    response = redirect(url)
    response.status_code = 303
    return response


@never_cache
@require_GET
@staff_page
def run_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The run's progress as JSON (the dashboard polls it every second)."""
    run = get_object_or_404(CloseRun.objects.select_related("ranking_list"), pk=pk)
    return JsonResponse(run_payload(run))


def run_view(run: CloseRun) -> dict[str, Any]:
    """A run with the labels and numbers ``dashboard/_run.html`` shows."""
    return {
        "run": run,
        "month": Month.of(run.month),
        "state_label": STATE_LABELS.get(run.state, run.state),
        "stage_label": STAGE_LABELS.get(run.stage, run.stage),
        "timings": _timings(run),
        "list_month": str(Month.of(run.ranking_list.month)) if run.ranking_list else "",
    }


def run_payload(run: CloseRun) -> dict[str, Any]:
    ranking_list = run.ranking_list
    return {
        "id": run.pk,
        "discipline": run.discipline,
        "month": str(Month.of(run.month)),
        "state": run.state,
        "state_label": str(STATE_LABELS.get(run.state, run.state)),
        "stage": run.stage,
        "stage_label": str(STAGE_LABELS.get(run.stage, run.stage)),
        "percent": run.percent,
        "timings": run.timings if isinstance(run.timings, dict) else {},
        "error": run.error,
        "finished": run.is_finished,
        "created_at": run.created_at.isoformat() if run.created_at else None,
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "ranking_list": None
        if ranking_list is None
        else {
            "id": ranking_list.pk,
            "month": str(Month.of(ranking_list.month)),
            "version": ranking_list.version,
            "entries": ranking_list.entry_count,
            "url": reverse(
                "rankings:ranking_month",
                args=[ranking_list.discipline, str(Month.of(ranking_list.month))],
            ),
        },
    }
