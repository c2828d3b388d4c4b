"""The federation admin's cycle dashboard: open months, submissions, the close, the job's run.

Staff only (``is_staff``): an anonymous visitor is sent to the login page (302), a logged-in
user who is not staff gets 403.

- ``GET /dashboard/``: per discipline the open month (the first without a published list)
  and its deadline with a countdown, the matches counting in the open month and in the last
  closed one per club (on time / late), the "close month" button or why it is disabled
  (before the deadline, the previous month not closed, a close already running), the
  ranking job's progress while it runs; then the published lists with their stage timings,
  and the latest corrections, voids and merges with links into Django's admin.
- ``POST /dashboard/close/`` (:func:`month_close`): fields ``discipline``, ``month``
  (``YYYY-MM``) and ``confirm=yes`` (CSRF-protected). Without ``confirm`` it answers with a
  confirmation page and does nothing. A refused close is a 400 with the reasons; an
  accepted one is handed to a worker by
  :func:`rankings.services.close.month_close_enqueue` (a ``CloseRun`` records it) and the
  answer is a 303 back to the dashboard, which follows the run. A broker that cannot be
  reached is a 503 within about 2 s: the run stays recorded, undispatched, and beat sends
  it when the broker is back. A run of the discipline that lost its worker (no heartbeat)
  or was never dispatched is sent again first (:mod:`rankings.services.close_recover`).
- ``POST /dashboard/erratum/`` (:func:`erratum_view`): ``action=erratum`` with
  ``discipline``, ``month`` and ``reason`` asks for the next version of a closed month's
  list (offered when a correction or void touched it since its latest version);
  ``action=later`` with ``discipline`` and ``reason`` asks that the later months be
  recomputed in order (:mod:`rankings.services.errata`). Both go through the close
  service on a worker and show their run's progress like a close; a refusal is a 400 with
  the reason, nothing recorded; an unreachable queue a 503 (the run waits in the outbox).
- ``GET /dashboard/runs/<id>.json``: the run's state, stage, percent, timings (also as
  ``timings_text``, each stage by its name in the reader's language) and error,
  polled every second by ``static/js/dashboard.js``; without JavaScript the page refreshes
  itself while a run is active.

The views validate input, read through :mod:`rankings.selectors.dashboard`, call the close
service and render; the rules of the close are the service's
(:func:`rankings.services.close.month_close_check`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from matches import clock
from matches.disciplines import DISCIPLINES
from matches.months import Month, deadline

from ..dispatch import DispatchFailed
from ..models import CloseRun, ProjectionRun
from ..selectors import dashboard as reads
from ..selectors.cycle import active_close_run
from ..selectors.errata import errata_due, erratum_in_progress, later_months_stale
from ..selectors.holds import close_hold
from ..selectors.lists import published_list
from ..selectors.projection import latest_projection_run, projected_list
from ..services.close import CloseRefused, month_close_check, month_close_enqueue
from ..services.close_recover import close_runs_recover, recoverable_runs
from ..services.errata import ErratumRefused, erratum_request, later_months_recompute
from ..services.holds import HoldRefused, close_hold_release, close_hold_set
from ..services.projection import projection_enqueue

STATE_LABELS = {
    "queued": gettext_lazy("queued"),
    "running": gettext_lazy("running"),
    "succeeded": gettext_lazy("published"),
    "failed": gettext_lazy("failed"),
}
PROJECTION_STAGE_LABELS = {
    "queued": gettext_lazy("Waiting for a worker"),
    "waiting": gettext_lazy("Waiting for a close to finish"),
    "load": gettext_lazy("Loading results"),
    "compute": gettext_lazy("Computing FLADUB"),
    "write": gettext_lazy("Writing entries"),
    "review": gettext_lazy("Computing the review's flags and movers"),
    "done": gettext_lazy("Done"),
}
PROJECTION_STATE_LABELS = {**STATE_LABELS, "succeeded": gettext_lazy("projected")}
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


# The heading of the refusal box of the dashboard's other forms (the close's own says which
# month cannot be closed, or "The close was refused:").
_PROJECTION = gettext_lazy("The projection was not refreshed:")
_ERRATUM = gettext_lazy("No corrected version was started:")


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


# --- why a month cannot be closed -------------------------------------------------------------


def close_refusals(*, discipline: str, month: Month, now: dt.datetime) -> list[str]:
    """Why ``month`` of ``discipline`` cannot be closed now (translated); [] if it can.

    The service's :func:`~rankings.services.close.month_close_check` is the authority;
    this names its reasons for people, and adds the dashboard's own: a close already
    running.
    """
    reasons: list[str] = []
    tz = clock.federation_tz()
    hold = close_hold(discipline)
    if hold is not None:
        reasons.append(
            _("The close is held: %(reason)s (release it first).") % {"reason": hold.reason}
        )
    active = active_close_run(discipline, now=now, stale_after=reads.STALE_RUN)
    if active is not None:
        if active.state == CloseRun.State.QUEUED and active.dispatched_at is None:
            # The broker did not take it (the outbox): beat sends it again when it is back.
            reasons.append(
                _(
                    "A close of %(month)s is waiting for the task queue, which did not answer;"
                    " it starts by itself within minutes of the queue's return."
                )
                % {"month": Month.of(active.month)}
            )
        else:
            reasons.append(
                _("A close of %(month)s is already running (%(state)s).")
                % {
                    "month": Month.of(active.month),
                    "state": STATE_LABELS.get(active.state, active.state),
                }
            )
    if published_list(discipline=discipline, month=month) is not None:
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
        month_close_check(month=month, discipline=discipline, now=now)
    except CloseRefused as exc:
        previous = month.prev()
        if published_list(discipline=discipline, month=previous) is None:
            reasons.append(
                _("The previous month, %(previous)s, is not closed yet: close it first.")
                % {"previous": previous}
            )
        else:  # a reason the dashboard has no words for: the service's own
            reasons.append(str(exc))
    return reasons


# --- the page ---------------------------------------------------------------------------------


def run_view(run: CloseRun) -> dict[str, Any]:
    """A run with the labels and numbers ``dashboard/_run.html`` shows."""
    return {
        "run": run,
        "month": Month.of(run.month),
        "state_label": STATE_LABELS.get(run.state, run.state),
        "stage_label": STAGE_LABELS.get(run.stage, run.stage),
        # Each stage by its name in the reader's language (issue 15, item 8).
        "timings": [(STAGE_LABELS.get(s, s), seconds) for s, seconds in reads.stage_timings(run)],
        "list_month": str(Month.of(run.ranking_list.month)) if run.ranking_list else "",
    }


def _cards(now: dt.datetime) -> list[reads.Card]:
    return [
        dataclasses.replace(
            card,
            refusals=close_refusals(discipline=card.discipline, month=card.open_month, now=now),
            run_view=run_view(card.run) if card.run is not None else None,
            projection=_projection_view(card.discipline),
            hold=close_hold(card.discipline),
            errata={
                "due": errata_due(card.discipline),
                "stale": later_months_stale(card.discipline),
                "running": erratum_in_progress(card.discipline),
            },
        )
        for card in reads.dashboard_cards(now)
    ]


def _render_dashboard(request: HttpRequest, *, status: int = 200, **extra: Any) -> HttpResponse:
    now = clock.now()
    cards = _cards(now)
    context = {
        "cards": cards,
        "any_active": any(
            card.run_active
            or (
                card.projection
                and card.projection["run"]
                and not card.projection["run"].is_finished
            )
            for card in cards
        ),
        "lists": reads.published_list_runs(),
        "stages": [(stage, STAGE_LABELS[stage]) for stage in reads.TIMED_STAGES],
        "events": reads.recent_events(),
        "merges": reads.recent_merges(),
        "federation_tz": clock.federation_tz().key,
        "now": now,
        "stage_labels": {k: str(v) for k, v in STAGE_LABELS.items()},
        "state_labels": {k: str(v) for k, v in STATE_LABELS.items()},
        **extra,
    }
    return render(request, "dashboard/dashboard.html", context, status=status)


def _refused(
    request: HttpRequest, message: str, *, status: int = 400, title: Any = None
) -> HttpResponse:
    """The dashboard again, with ``message`` (translated) above the close form, headed by
    ``title`` (what was refused; by default "The close was refused:")."""
    return _render_dashboard(request, status=status, close_errors=[message], errors_title=title)


@never_cache
@require_GET
@staff_page
def dashboard(request: HttpRequest) -> HttpResponse:
    return _render_dashboard(request)


# --- the close ------------------------------------------------------------------------------


def _close_input(request: HttpRequest) -> tuple[str, Month | None, list[str]]:
    """The discipline and month posted, and what is wrong with them (translated)."""
    discipline = request.POST.get("discipline", "")
    problems = []
    if discipline not in DISCIPLINES:
        problems.append(_("Unknown discipline."))
    try:
        month: Month | None = Month.parse(request.POST.get("month", ""))
    except ValueError:
        month = None
        problems.append(_("Not a month (expected YYYY-MM)."))
    return discipline, month, problems


@never_cache
@require_POST
@staff_page
def month_close(request: HttpRequest) -> HttpResponse:
    """Close a month: confirm, check, enqueue; then back to the dashboard (303)."""
    discipline, month, problems = _close_input(request)
    if problems or month is None:
        return _render_dashboard(request, status=400, close_errors=problems)
    target = {"discipline": discipline, "label": DISCIPLINES[discipline].label, "month": month}
    if request.POST.get("confirm") != "yes":
        return render(request, "dashboard/confirm_close.html", target)
    recovered = _recover(request, discipline, month)
    if recovered is not None:
        return recovered
    refusals = close_refusals(discipline=discipline, month=month, now=clock.now())
    if refusals:
        return _render_dashboard(request, status=400, close_errors=refusals, close_target=target)
    try:
        run = month_close_enqueue(month=month, discipline=discipline, by=request.user)
    except DispatchFailed:
        pending = CloseRun.objects.filter(discipline=discipline, month=month.first_day).first()
        return _unreachable(request, target, pending)
    messages.success(
        request,
        _("Closing %(month)s (%(discipline)s): the ranking job is queued as run %(run)s.")
        % {"month": month, "discipline": target["label"], "run": run.pk},
    )
    return _back_to_dashboard(discipline)


def _back_to_dashboard(discipline: str) -> HttpResponse:
    """303 to the dashboard, at the discipline's card."""
    response = redirect(reverse("rankings:dashboard") + f"#discipline-{discipline}")
    response.status_code = 303
    return response


def _unreachable(
    request: HttpRequest, target: dict[str, Any], run: CloseRun | None
) -> HttpResponse:
    """503: the broker did not take the close; the run waits in the outbox."""
    unreachable = _(
        "The task queue is unreachable, so the close of %(month)s has not started yet. "
        "It is recorded as run %(run)s and starts by itself as soon as the queue is back."
    ) % {"month": target["month"], "run": run.pk if run else "-"}
    return _render_dashboard(request, status=503, close_errors=[unreachable], close_target=target)


def _recover(request: HttpRequest, discipline: str, month: Month) -> HttpResponse | None:
    """Send again the discipline's runs that lost their worker or were never dispatched; the
    answer if one of them closes ``month`` (None: go on with a new close)."""
    for run in close_runs_recover(discipline=discipline):
        if Month.of(run.month) == month:
            messages.success(
                request,
                _("The close of %(month)s had stopped; run %(run)s was sent to a worker again.")
                % {"month": month, "run": run.pk},
            )
            return _back_to_dashboard(discipline)
    for run in recoverable_runs(now=clock.now(), discipline=discipline):
        if Month.of(run.month) == month and run.dispatched_at is None:
            target = {
                "discipline": discipline,
                "label": DISCIPLINES[discipline].label,
                "month": month,
            }
            return _unreachable(request, target, run)
    return None


@never_cache
@require_GET
@staff_page
def run_status(request: HttpRequest, pk: int) -> JsonResponse:
    """The run's progress as JSON (the dashboard polls it every second)."""
    run = reads.close_run(pk)
    if run is None:
        raise Http404("no such run")
    return JsonResponse(run_payload(run))


def timings_text(run: CloseRun) -> str:
    """The run's stage timings as the dashboard shows them, in the reader's language:
    "Freezing the month 0.010 s · Loading results 1.250 s" / "… 1,250 s"."""
    return " · ".join(
        f"{STAGE_LABELS.get(stage, stage)} {number_format(seconds, 3)} s"
        for stage, seconds in reads.stage_timings(run)
    )


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
        "timings_text": timings_text(run),
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
            # The public version (v2 for an erratum), not the attempt's number.
            "version": ranking_list.edition or ranking_list.version,
            "entries": ranking_list.entry_count,
            "url": reverse(
                "rankings:ranking_month",
                args=[ranking_list.discipline, str(Month.of(ranking_list.month))],
            ),
        },
    }


# --- the projected list -----------------------------------------------------------------------


def _projection_view(discipline: str) -> dict[str, Any]:
    """The discipline's projection and its latest refresh, for ``dashboard/_projection.html``."""
    run = latest_projection_run(discipline)
    return {
        "projected": projected_list(discipline),
        "run": run,
        "payload": None if run is None else projection_payload(run),
    }


@never_cache
@require_POST
@staff_page
def projection_refresh(request: HttpRequest) -> HttpResponse:
    """Refresh a discipline's projected list in a worker; back to the dashboard (303)."""
    discipline = request.POST.get("discipline", "")
    if discipline not in DISCIPLINES:
        return _refused(request, _("Unknown discipline."), title=_PROJECTION)
    try:
        run = projection_enqueue(discipline=discipline, by=request.user)
    except DispatchFailed:
        return _refused(
            request,
            _(
                "The task queue is unreachable, so the projection was not started. Try again "
                "in a moment."
            ),
            status=503,
            title=_PROJECTION,
        )
    messages.success(
        request,
        _("Projecting the open month of the %(discipline)s: queued as run %(run)s.")
        % {"discipline": DISCIPLINES[discipline].label, "run": run.pk},
    )
    return _back_to_dashboard(discipline)


@never_cache
@require_GET
@staff_page
def projection_status(request: HttpRequest, pk: int) -> JsonResponse:
    """A projection run's progress as JSON (the shape of :func:`run_payload`)."""
    run = ProjectionRun.objects.select_related("ranking_list").filter(pk=pk).first()
    if run is None:
        raise Http404("no such run")
    return JsonResponse(projection_payload(run))


def projection_payload(run: ProjectionRun) -> dict[str, Any]:
    ranking_list = run.ranking_list
    return {
        "id": run.pk,
        "discipline": run.discipline,
        "month": str(Month.of(run.month)) if run.month else None,
        "state": run.state,
        "state_label": str(PROJECTION_STATE_LABELS.get(run.state, run.state)),
        "stage": run.stage,
        "stage_label": str(PROJECTION_STAGE_LABELS.get(run.stage, run.stage)),
        "percent": run.percent,
        "timings": {},
        "error": run.error,
        "finished": run.is_finished,
        "provisional": True,
        "ranking_list": None
        if ranking_list is None
        else {
            "id": ranking_list.pk,
            "month": str(Month.of(ranking_list.month)),
            "version": ranking_list.version,
            "entries": ranking_list.entry_count,
            "url": reverse("rankings:ranking_projected", args=[ranking_list.discipline]),
        },
    }


# --- holding the close --------------------------------------------------------------------------


@never_cache
@require_POST
@staff_page
def hold_view(request: HttpRequest) -> HttpResponse:
    """Hold (``action=hold``) or release (``action=release``) a discipline's close, with a
    reason; 400 with the reason for a refusal, else 303 back to the dashboard."""
    return _hold(request)


def _hold(request: HttpRequest) -> HttpResponse:
    discipline = request.POST.get("discipline", "")
    action = request.POST.get("action", "")
    reason = request.POST.get("reason", "")
    change = {"hold": close_hold_set, "release": close_hold_release}.get(action)
    try:
        if change is None:
            raise HoldRefused(_("Choose to hold or to release the close."))
        change(discipline=discipline, reason=reason, by=request.user)
    except HoldRefused as exc:
        return _refused(request, str(exc), title=_("Nothing was held or released:"))
    label = DISCIPLINES[discipline].label
    done = (
        _("The close of the %(discipline)s is held.")
        if action == "hold"
        else _("The close of the %(discipline)s is released.")
    )
    messages.success(request, done % {"discipline": label})
    return _back_to_dashboard(discipline)


# --- errata ------------------------------------------------------------------------------------


@never_cache
@require_POST
@staff_page
def erratum_view(request: HttpRequest) -> HttpResponse:
    """Ask for an erratum (``action=erratum``) or for the later months (``action=later``);
    400 with the reason for a refusal, else 303 back to the dashboard."""
    discipline = request.POST.get("discipline", "")
    action = request.POST.get("action", "")
    reason = request.POST.get("reason", "")
    try:
        if action == "erratum":
            month = Month.parse(request.POST.get("month", ""))
            run = erratum_request(
                discipline=discipline, month=month, reason=reason, by=request.user
            )
        elif action == "later":
            run = later_months_recompute(discipline=discipline, reason=reason, by=request.user)
        else:
            raise ErratumRefused(_("Choose an erratum or the recomputation of later months."))
    except ValueError:
        return _refused(request, _("Not a month (expected YYYY-MM)."), title=_ERRATUM)
    except ErratumRefused as exc:
        return _refused(request, str(exc), title=_ERRATUM)
    except DispatchFailed:
        return _refused(
            request,
            _(
                "The task queue is unreachable, so the erratum has not started yet. It is "
                "recorded and starts by itself as soon as the queue is back."
            ),
            status=503,
            title=_ERRATUM,
        )
    messages.success(
        request,
        _("The new version of %(month)s is being computed as run %(run)s.")
        % {"month": Month.of(run.month), "run": run.pk},
    )
    return _back_to_dashboard(discipline)
