"""The club secretary's pages: my submissions, the submission form, CSV upload, corrections.

Every page needs a login and a club: a user who is secretary of no club (and not an admin)
gets 403 with an explanation. A secretary sees and corrects their own clubs' matches only
(another club's match is a 404: its existence is not revealed); an admin (``is_staff``)
sees every club. Each view validates its input shape, calls one service (or selector) and
renders; a match's validity is decided by the one validation path behind
:func:`matches.services.match_batch_submit` / :func:`~matches.services.match_correct`, whose
problems are shown next to their fields. Invalid input is answered with 400, a refused
action with 403; nothing is stored in either case.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods
from django_countries import countries

from .. import clock
from ..countdown import countdown_context
from ..csv_upload import (
    MAX_BYTES,
    MAX_ROWS,
    CsvRejected,
    Preview,
    decode,
    preview,
    read_csv,
    split_players,
    store,
)
from ..csv_upload import template_csv as build_template_csv
from ..forms import (
    JS_MESSAGES,
    CsvUploadForm,
    MatchForm,
    SideRow,
    apply_problems,
    side_rows_from,
    side_rows_of,
)
from ..models import MAX_SIDES, MIN_SIDES, Category, Club, Discipline, Match, Player, Status
from ..months import local_date
from ..selectors import next_table_number, player_names, secretary_clubs, submissions_of
from ..selectors.player_search import player_search
from ..services import (
    InvalidSubmission,
    NotAllowed,
    SubmitOutcome,
    correction_deadline,
    match_correct,
    match_payload,
    match_submit,
)

PAGE_SIZE = 25
PREVIEW_ROWS = 1_000  # rows of a CSV shown in its preview table (problems are all listed)
UPLOAD_SALT = "matches.secretary.csv-upload"
UPLOAD_MAX_AGE = 60 * 60  # seconds a preview can be confirmed
LOOKUP_SEARCHES = 20  # unknown player ids of one preview looked up by name
LOOKUP_CANDIDATES = 5  # players offered for each

SecretaryView = Callable[..., HttpResponse]


def secretary_page(view: SecretaryView) -> SecretaryView:
    """Login required; passes the user's clubs; 403 for a user who is no club's secretary."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        clubs = list(secretary_clubs(user=request.user, every_club_for_staff=True).clubs)
        if not clubs and not request.user.is_staff:
            return _no_club(request)
        return view(request, clubs, *args, **kwargs)

    return wrapped


def _no_club(request: HttpRequest) -> HttpResponse:
    """403: no club to submit for (the user is no club's secretary)."""
    return render(request, "matches/secretary_forbidden.html", _context(request, []), status=403)


def _is_admin(request: HttpRequest) -> bool:
    return bool(request.user.is_staff)


def _context(request: HttpRequest, clubs: Sequence[Club], **extra: Any) -> dict[str, Any]:
    return {
        **countdown_context(),
        "clubs": clubs,
        "is_admin": _is_admin(request),
        "federation_tz": clock.federation_tz().key,
        "js_messages": JS_MESSAGES,
        "min_sides": MIN_SIDES,
        "max_sides": MAX_SIDES,
        "csv_max_kib": MAX_BYTES // 1024,
        "csv_max_rows": MAX_ROWS,
        **extra,
    }


def _status_label(status: str) -> str:
    return _("on time") if status == Status.ON_TIME else _("late")


# --- My submissions -----------------------------------------------------------------------


@require_GET
@secretary_page
def my_submissions(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    by_id = {c.club_id: c for c in clubs}
    wanted = request.GET.get("club", "")
    selected = by_id.get(wanted)
    if wanted and selected is None:
        raise Http404(_("No such club among yours."))
    matches = submissions_of(clubs=None if _is_admin(request) else clubs, club=selected)
    page = Paginator(matches, PAGE_SIZE).get_page(request.GET.get("page"))
    now = clock.now()
    rows = [
        {"match": m, "can_correct": _correction_refusal(request, m, now) is None}
        for m in page.object_list
    ]
    return render(
        request,
        "matches/my_submissions.html",
        _context(
            request,
            clubs,
            page=page,
            rows=rows,
            selected_club=selected,
            club_query=urlencode({"club": selected.club_id}) if selected else "",
        ),
    )


# --- Submission and correction form ---------------------------------------------------------


def _today() -> dt.date:
    return local_date(clock.now(), clock.federation_tz())


def _submit_initial(request: HttpRequest, clubs: list[Club]) -> dict[str, Any]:
    by_id = {c.club_id: c for c in clubs}
    club = by_id.get(request.GET.get("club", "")) or clubs[0]
    try:
        day = dt.date.fromisoformat(request.GET.get("date", ""))
    except ValueError:
        day = _today()
    discipline = request.GET.get("discipline", "")
    category = request.GET.get("category", "")
    return {
        "club": club.club_id,
        "date": day.isoformat(),
        "discipline": discipline if discipline in Discipline.values else Discipline.FIDO,
        "category": category if category in Category.values else Category.CLUB,
        "external_id": f"{club.club_id}/{day.isoformat()}/t{next_table_number(club=club, day=day)}",
    }


def _edit_rows(post: Any, rows: list[SideRow]) -> bool:
    """The no-JavaScript "+ side" / "remove" buttons: change the rows, True if one was used."""
    if "add_side" in post:
        if len(rows) < MAX_SIDES:
            rows.append(SideRow(index=len(rows)))
        return True
    if "remove_side" in post:
        try:
            index = int(post["remove_side"])
        except ValueError:
            return True
        if 0 <= index < len(rows) and len(rows) > MIN_SIDES:
            del rows[index]
            for position, row in enumerate(rows):
                row.index = position
        return True
    return False


def _render_form(
    request: HttpRequest, clubs: list[Club], form: MatchForm, rows: list[SideRow], **extra: Any
) -> HttpResponse:
    status = extra.pop("status", 200)
    return render(
        request,
        "matches/match_form.html",
        _context(
            request,
            clubs,
            form=form,
            rows=rows,
            has_row_errors=any(r.errors or r.player_errors or r.score_errors for r in rows),
            # The row the "+ side" button clones (static/js/secretary.js fills the numbers).
            row_template={"index": "__i__", "number": "__n__", "players": "", "score": ""},
            **extra,
        ),
        status=status,
    )


@require_http_methods(["GET", "POST"])
@secretary_page
def match_submit_page(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    if not clubs:
        return _no_club(request)
    if request.method != "POST":
        form = MatchForm(clubs=clubs, initial=_submit_initial(request, clubs))
        return _render_form(request, clubs, form, side_rows_from({}))

    form = MatchForm(request.POST, clubs=clubs)
    rows = side_rows_from(request.POST)
    if _edit_rows(request.POST, rows):
        form.is_valid()  # keep what was typed; errors come with the real submission
        return _render_form(request, clubs, form, rows)
    if form.is_valid():
        club = {c.club_id: c for c in clubs}[form.cleaned_data["club"]]
        try:
            outcome = match_submit(
                club=club,
                payload=form.payload(rows, club_id=club.club_id),
                submitted_by=request.user,
                now=clock.now(),
                channel="web",
            )
        except InvalidSubmission as exc:
            apply_problems(form, rows, exc.problems)
        except NotAllowed as exc:
            form.add_error(None, str(exc))
            return _render_form(request, clubs, form, rows, status=403)
        else:
            stored = outcome.match
            if outcome.created:
                messages.success(
                    request,
                    _("Match %(id)s stored: %(status)s, counts in %(month)s.")
                    % {
                        "id": stored.external_id,
                        "status": _status_label(stored.status),
                        "month": stored.counting_month.strftime("%Y-%m"),
                    },
                )
            else:
                messages.info(
                    request,
                    _("Match %(id)s was already stored with the same content; nothing changed.")
                    % {"id": stored.external_id},
                )
            return redirect("matches:my_submissions")
    form.mark_invalid()
    return _render_form(request, clubs, form, rows, status=400)


def _correction_refusal(request: HttpRequest, match: Match, now: dt.datetime) -> str | None:
    """Why the user may not correct ``match`` now ("voided", "replaced", "deadline"), or None.

    The service enforces the same rules (:class:`NotAllowed`); this only lets the page say
    so before the secretary types anything.
    """
    if getattr(match, "is_replaced", False):
        return "replaced"
    if match.voided_at is not None:
        return "voided"
    if not _is_admin(request) and now >= correction_deadline(match):
        return "deadline"
    return None


@require_http_methods(["GET", "POST"])
@secretary_page
def match_correct_page(request: HttpRequest, clubs: list[Club], pk: int) -> HttpResponse:
    match = get_object_or_404(submissions_of(clubs=None if _is_admin(request) else clubs), pk=pk)
    now = clock.now()
    refusal = _correction_refusal(request, match, now)
    extra = {
        "match": match,
        "refusal": refusal,
        "correction_deadline": correction_deadline(match),
        "replacement": match.replaced_by if refusal == "replaced" else None,
    }
    if request.method != "POST":
        payload = match_payload(match)
        form = MatchForm(
            clubs=clubs,
            correcting=True,
            initial={k: payload[k] for k in ("date", "discipline", "category")},
        )
        return _render_form(request, clubs, form, side_rows_of(payload["sides"]), **extra)

    form = MatchForm(request.POST, clubs=clubs, correcting=True)
    rows = side_rows_from(request.POST)
    if refusal is not None:
        return _render_form(request, clubs, form, rows, status=403, **extra)
    if _edit_rows(request.POST, rows):
        form.is_valid()
        return _render_form(request, clubs, form, rows, **extra)
    if form.is_valid():
        try:
            new = _correct_from_form(request, match, form, rows, now)
        except InvalidSubmission as exc:
            apply_problems(form, rows, exc.problems)
        except NotAllowed as exc:
            form.add_error(None, str(exc))
            return _render_form(request, clubs, form, rows, status=403, **extra)
        else:
            messages.success(
                request,
                _("Match %(id)s corrected: revision %(revision)s, %(status)s, counts in %(month)s.")
                % {
                    "id": new.external_id,
                    "revision": new.revision,
                    "status": _status_label(new.status),
                    "month": new.counting_month.strftime("%Y-%m"),
                },
            )
            return redirect(
                f"{reverse('matches:my_submissions')}?{urlencode({'club': new.club.club_id})}"
            )
    form.mark_invalid()
    return _render_form(request, clubs, form, rows, status=400, **extra)


def _correct_from_form(
    request: HttpRequest, match: Match, form: MatchForm, rows: Any, now: dt.datetime
) -> Match:
    """Call the correction service with the form's match (its id and game records are the
    old match's: the form edits neither)."""
    payload = form.payload(rows, club_id=match.club.club_id)
    payload["id"] = match.external_id
    if match.records is not None:
        payload["records"] = match.records
    return match_correct(
        match=match,
        payload=payload,
        by=request.user,
        now=now,
        reason=form.cleaned_data.get("reason", ""),
        as_admin=_is_admin(request),
        channel="web",
    )


# --- CSV upload ------------------------------------------------------------------------------


def _render_upload(
    request: HttpRequest,
    clubs: list[Club],
    form: CsvUploadForm,
    *,
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    return render(
        request,
        "matches/csv_upload.html",
        _context(request, clubs, form=form, **extra),
        status=status,
    )


def _player_lookups(
    row: int,
    row_problems: Sequence[Any],
    ids: Sequence[str],
    names: dict[str, str],
    budget: list[int],
) -> list[dict[str, Any]]:
    """For a row whose players were refused: each id that names no player (a typo, a name
    written instead of an id), with the players the text finds (name, id, club or country;
    namesakes told apart by club and country). ``budget`` caps the searches of one page."""
    if not any(p.column == "players" for p in row_problems):
        return []
    lookups: list[dict[str, Any]] = []
    for text in ids:
        if text in names:
            continue
        candidates: list[Player] = []
        if budget[0] > 0:
            budget[0] -= 1
            candidates = list(player_search(text)[:LOOKUP_CANDIDATES])
        lookups.append(
            {
                "id": f"lookup-{row}-{len(lookups) + 1}",
                "text": text,
                "candidates": [
                    {
                        "player_id": p.player_id,
                        "name": p.name,
                        "club": p.club.name if p.club else "—",
                        "country": countries.name(p.country) or p.country,
                    }
                    for p in candidates
                ],
            }
        )
    return lookups


def _preview_context(result: Preview, *, club: Club, token: str | None) -> dict[str, Any]:
    shown = result.batch.rows[:PREVIEW_ROWS]
    names = player_names(pid for row in shown for pid in split_players(row))
    by_row = result.problems_by_row()
    match_of_row = {r.number: m for m in result.batch.matches for r in m.rows}
    budget = [LOOKUP_SEARCHES]
    rows = []
    for row in shown:
        match = match_of_row.get(row.number)
        first = match is not None and row.number == match.first_row
        ids = split_players(row)
        problems = by_row.get(row.number, [])
        rows.append(
            {
                "row": row,
                "first": first,
                "verdict": result.verdicts.get(match.key) if match is not None and first else None,
                "conflict": result.conflicts.get(match.key) if match is not None else None,
                "problems": problems,
                "players": [(p, names.get(p, "")) for p in ids],
                "lookups": _player_lookups(row.number, problems, ids, names, budget),
            }
        )
    new = [v for v in result.verdicts.values() if not v.already_stored]
    conflicts = sorted(result.conflicts.values(), key=lambda c: c.first_row)
    return {
        "preview": result,
        "conflicts": conflicts,
        "store_label": _store_label(len(new), len(conflicts)),
        "preview_rows": rows,
        "hidden_rows": max(len(result.batch.rows) - PREVIEW_ROWS, 0),
        "preview_club": club,
        "token": token,
        "match_count": len(result.batch.matches),
        "row_count": len(result.batch.rows),
        # The file partitioned: the new matches (what the button stores, on time or late)
        # and the ones already stored with the same content (left as they are).
        "new_count": sum(1 for v in new),
        "on_time": sum(1 for v in new if v.status == Status.ON_TIME),
        "late": sum(1 for v in new if v.status == Status.LATE),
        "already": sum(1 for v in result.verdicts.values() if v.already_stored),
    }


def _store_label(new: int, conflicts: int) -> str:
    """The confirm button: exactly what it stores, and what it leaves as stored."""
    label = ngettext("Store %(n)s new match", "Store %(n)s new matches", new) % {"n": new}
    if conflicts:
        label += ngettext(
            "; leave %(n)s conflicting match as stored",
            "; leave %(n)s conflicting matches as stored",
            conflicts,
        ) % {"n": conflicts}
    return label


@require_http_methods(["GET", "POST"])
@secretary_page
def csv_upload_page(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    if not clubs:
        return _no_club(request)
    by_id = {c.club_id: c for c in clubs}
    if request.method != "POST":
        club = by_id.get(request.GET.get("club", "")) or clubs[0]
        return _render_upload(request, clubs, CsvUploadForm(clubs=clubs, initial={"club": club}))
    if "token" in request.POST:
        return _csv_confirm(request, clubs)

    form = CsvUploadForm(request.POST, request.FILES, clubs=clubs)
    if not form.is_valid():
        return _render_upload(request, clubs, form, status=400)
    club = by_id[form.cleaned_data["club"]]
    upload = form.cleaned_data["file"]
    try:
        if upload.size > MAX_BYTES:
            raise CsvRejected(
                _("The file is larger than %(limit)s KiB: split it into several uploads.")
                % {"limit": MAX_BYTES // 1024}
            )
        data = upload.read(MAX_BYTES + 1)
        batch = read_csv(data, club_id=club.club_id)
    except CsvRejected as exc:
        return _render_upload(request, clubs, form, status=400, rejected=exc.message)
    result = preview(batch, club=club, submitted_by=request.user, now=clock.now())
    token = None
    if result.ok and result.new_count:
        skip = sorted(c.external_id for c in result.conflicts.values())
        token = signing.dumps(
            {"user": request.user.pk, "club": club.club_id, "csv": decode(data), "skip": skip},
            salt=UPLOAD_SALT,
            compress=True,
        )
    return _render_upload(
        request,
        clubs,
        form,
        status=200 if result.ok else 400,
        **_preview_context(result, club=club, token=token),
    )


def _csv_confirm(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    """Step 2: store the previewed file, carried back in a signed field (all or nothing)."""
    form = CsvUploadForm(clubs=clubs)
    try:
        held = signing.loads(request.POST["token"], salt=UPLOAD_SALT, max_age=UPLOAD_MAX_AGE)
    except signing.BadSignature as exc:  # SignatureExpired is one
        if isinstance(exc, signing.SignatureExpired):
            why = _("The preview is older than an hour: please upload the file again.")
        else:
            why = _("The confirmation was damaged: please upload the file again.")
        return _render_upload(request, clubs, form, status=400, rejected=why)
    club = {c.club_id: c for c in clubs}.get(held.get("club"))
    if held.get("user") != request.user.pk or club is None:
        why = _("This preview was made by another user or for another club.")
        return _render_upload(request, clubs, form, status=403, rejected=why)
    data = held["csv"].encode("utf-8")
    batch = read_csv(data, club_id=club.club_id)
    now = clock.now()
    try:
        skip = [str(external_id) for external_id in held.get("skip", [])]
        outcomes = store(batch, club=club, submitted_by=request.user, now=now, skip=skip)
    except InvalidSubmission:
        # Something changed since the preview (a match stored meanwhile, a month closed).
        result = preview(batch, club=club, submitted_by=request.user, now=now)
        return _render_upload(
            request,
            clubs,
            form,
            status=400,
            rejected=_("Nothing was stored: the file no longer passes the checks."),
            **_preview_context(result, club=club, token=None),
        )
    messages.success(request, _csv_stored_message(outcomes, left=len(skip)))
    return redirect(f"{reverse('matches:my_submissions')}?{urlencode({'club': club.club_id})}")


def _csv_stored_message(outcomes: Sequence[SubmitOutcome], *, left: int = 0) -> str:
    """What a stored CSV file added: how many on time and late, skipped, left as stored
    (conflicts), counting months."""
    created = [o.match for o in outcomes if o.created]
    on_time = sum(1 for m in created if m.status == Status.ON_TIME)
    message = ngettext(
        "%(count)s match stored from the CSV file (%(on_time)s on time, %(late)s late).",
        "%(count)s matches stored from the CSV file (%(on_time)s on time, %(late)s late).",
        len(created),
    ) % {"count": len(created), "on_time": on_time, "late": len(created) - on_time}
    skipped = len(outcomes) - len(created)
    if skipped:
        message += " " + ngettext(
            "%(count)s was already stored and was skipped.",
            "%(count)s were already stored and were skipped.",
            skipped,
        ) % {"count": skipped}
    if left:
        message += " " + ngettext(
            "%(count)s conflicting match was left as stored.",
            "%(count)s conflicting matches were left as stored.",
            left,
        ) % {"count": left}
    months = sorted({m.counting_month.strftime("%Y-%m") for m in created})
    if months:
        message += " " + ngettext(
            "Counting month: %(months)s.", "Counting months: %(months)s.", len(months)
        ) % {"months": ", ".join(months)}
    return message


@require_GET
@secretary_page
def csv_template(request: HttpRequest, clubs: list[Club]) -> HttpResponse:
    by_id = {c.club_id: c for c in clubs}
    club_id = request.GET.get("club", "")
    if club_id not in by_id:
        club_id = clubs[0].club_id if clubs else "CLUB-7"
    response = HttpResponse(
        build_template_csv(club_id, _today()), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = 'attachment; filename="fido-results-template.csv"'
    return response
