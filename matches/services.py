"""Write services of the matches app: submit, correct and void matches; merge players.

Every channel calls these (web form, CSV upload, REST API, ``import_results``). They
validate everything first through :mod:`matches.validation` and :mod:`matches.months`,
report every problem at once (:class:`InvalidSubmission`), and store nothing unless the
whole batch is valid. Writes happen in one transaction holding the discipline's shared
lock (:mod:`matches.locks`) so that no match is classified against a month that is closing.

Nothing counted is edited in place: a correction is a new revision of the match and voids
the old one from the first list it can still affect; a void is an event with who, when and
why; a merge moves results and keeps an audit row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from . import locks, rawsql, store
from .clock import federation_tz
from .models import (
    ClosedMonth,
    Club,
    Match,
    MatchEvent,
    Player,
    PlayerMerge,
    SideMember,
    Submission,
)
from .months import Month, Rejection, classify, deadline
from .records_check import check_records
from .selectors import last_closed_month, last_closed_month_statement, month_or_none
from .validation import (
    InvalidSubmission,
    MatchInput,
    Problem,
    join_path,
    parse_match,
    registry_statements,
    resolve,
)


def rejection_text(exc: Rejection) -> str:
    """The deadline module's refusal, worded in the active language."""
    if exc.code == "future":
        return _("the match date %(date)s is in the future (today is %(today)s in %(zone)s)") % (
            exc.params
        )
    if exc.code == "too_old":
        return (
            _(
                "the match of %(date)s would count in %(month)s, %(age)d months later: "
                "results older than %(max_age)d months weigh nothing"
            )
            % exc.params
        )
    return exc.message


class NotAllowed(Exception):
    """The user may not do this (another club's data, a deadline passed): maps to 403."""


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    match: Match
    created: bool  # False: an identical match with this id was already stored


def _default_prefix(index: int) -> str:
    return f"matches[{index}]"


def _first_open(discipline: str) -> Month | None:
    last = last_closed_month(discipline)
    return last.next() if last else None


def matches_submit(
    *,
    payloads: Sequence[Any],
    submitted_by: Any,
    now: dt.datetime,
    channel: str,
    club: Club | None = None,
    honour_submitted_at: bool = False,
    prefix: Callable[[int], str] = _default_prefix,
) -> list[SubmitOutcome]:
    """Validate and store a batch of matches, all or nothing.

    ``club``: when given (a secretary's club), every match must be hosted by it, otherwise
    :class:`NotAllowed`. ``honour_submitted_at`` (admin import only) takes a line's
    ``submitted_at`` as its receipt time instead of ``now``. A match whose id is already
    stored with the same content is not stored again (``created=False``); with other
    content it is a problem (corrections go through :func:`match_correct`).
    """
    problems: list[Problem] = []
    parsed: list[tuple[str, MatchInput]] = []
    for index, payload in enumerate(payloads):
        match, found = parse_match(
            payload, prefix=prefix(index), allow_submitted_at=honour_submitted_at
        )
        problems.extend(found)
        if match is not None:
            parsed.append((prefix(index), match))
    if not payloads:
        problems.append(Problem("matches", _("no match to submit")))
    if club is not None:
        foreign = [(p, m) for p, m in parsed if m.club_id != club.club_id]
        if foreign:
            raise NotAllowed(
                _("you submit results for %(club)s only, not for %(others)s")
                % {
                    "club": club.club_id,
                    "others": ", ".join(sorted({m.club_id for _p, m in foreign})),
                }
            )
    tz = federation_tz()
    known = [club] if club is not None else []
    # No savepoint of its own inside a caller's transaction (the API's idempotency record):
    # a savepoint is two more round trips per request. So nothing may raise in this block
    # but the database: the problems found here are raised after it, and a unique violation
    # (a twin stored the same id meanwhile) aborts the caller's whole transaction, which
    # retries from the start (matches.apis.idempotency; alone, the API view retries).
    seen_ids: dict[tuple[str, str], str] = {}
    for path, match in parsed:  # replaying game records takes time: not under the locks
        key = (match.club_id, match.external_id)
        if key in seen_ids:
            problems.append(
                Problem(
                    join_path(path, "id"),
                    _("id %(id)s twice in this batch") % {"id": match.external_id},
                )
            )
        seen_ids[key] = path
        problems.extend(check_records(match, prefix=path))
    slots: list[SubmitOutcome | None] = []
    with transaction.atomic(savepoint=False):
        reads = _reads(parsed, known)
        if reads is not None:
            problems.extend(resolve(parsed, known, fetched=(reads.clubs, reads.players)))
        if not problems and reads is not None:
            _classify_and_store(
                parsed,
                reads,
                problems,
                slots,
                tz=tz,
                now=now,
                submitted_by=submitted_by,
                channel=channel,
            )
    if problems:
        raise InvalidSubmission(problems)
    outcomes = [outcome for outcome in slots if outcome is not None]
    assert len(outcomes) == len(slots)  # noqa: S101 - every slot was filled
    return outcomes


@dataclass(frozen=True, slots=True)
class _Reads:
    """What a submission reads (:func:`_reads`)."""

    clubs: Sequence[Any]  # rows of Club
    players: Sequence[Any]  # rows of Player
    closed: dict[str, Month | None]  # last closed month per discipline, read under its lock
    stored: dict[tuple[int, str], Match]  # latest stored revision per (club pk, external id)


def _reads(parsed: Sequence[tuple[str, MatchInput]], known: Sequence[Club]) -> _Reads | None:
    """The registry rows, the disciplines' shared locks, then under them the last closed
    months and the stored revisions of these ids, as prepared statements in this order
    (each read after the locks sees any close that committed before them)."""
    if not parsed:
        return None
    disciplines = sorted({m.discipline for _, m in parsed})
    club_statement, player_statement = registry_statements(parsed, known)
    statements: list[tuple[str, Sequence[Any]]] = [
        s for s in (club_statement, player_statement) if s is not None
    ]
    locks_taken = [locks.discipline_shared_statement(d) for d in disciplines]
    statements += [s for s in locks_taken if s is not None]
    statements += [last_closed_month_statement(d) for d in disciplines]
    codes = sorted({m.club_id for _, m in parsed})
    ids = sorted({m.external_id for _, m in parsed})
    clubs_table = rawsql.quote(Club._meta.db_table)
    statements.append(
        (
            rawsql.select_sql(
                Match,
                f"WHERE club_id IN (SELECT id FROM {clubs_table} "  # noqa: S608
                f"WHERE club_id IN ({rawsql.placeholders(codes)})) "
                f"AND external_id IN ({rawsql.placeholders(ids)}) ORDER BY revision",
            ),
            [*codes, *ids],
        )
    )
    results = iter(rawsql.execute_all(statements))
    clubs = next(results) if club_statement is not None else []
    players = next(results) if player_statement is not None else []
    for statement in locks_taken:
        if statement is not None:
            next(results)
    closed = {d: month_or_none(next(results)[0][0]) for d in disciplines}
    rows = rawsql.instances(Match, next(results))
    stored = {(row.club_id, row.external_id): row for row in rows}  # the last revision wins
    return _Reads(clubs=clubs, players=players, closed=closed, stored=stored)


def _classify_and_store(
    parsed: Sequence[tuple[str, MatchInput]],
    reads: _Reads,
    problems: list[Problem],
    slots: list[SubmitOutcome | None],
    *,
    tz: Any,
    now: dt.datetime,
    submitted_by: Any,
    channel: str,
) -> None:
    """Classify each match (on time, late, refused) against the months read under the
    locks; store the new ones unless a problem was found. Fills ``slots`` in input order
    (an already stored match, or the new row) and ``problems``."""
    closed = reads.closed
    stored_before = reads.stored
    # One slot per match, in input order: an already stored match now, a new one below.
    plans: list[_Plan] = []
    for path, match in parsed:
        received_at = match.submitted_at if match.submitted_at else now
        try:
            verdict = classify(
                date_played=match.date_played,
                received_at=received_at,
                tz=tz,
                last_closed=closed[match.discipline],
            )
        except Rejection as exc:
            problems.append(Problem(join_path(path, exc.field), rejection_text(exc)))
            continue
        assert match.club is not None  # noqa: S101 - resolve() attached it
        existing = stored_before.get((match.club.pk, match.external_id))
        if existing is not None:
            if _canonical(existing) == match.canonical():
                slots.append(SubmitOutcome(existing, created=False))
            else:
                problems.append(
                    Problem(
                        join_path(path, "id"),
                        _(
                            "%(club)s already submitted %(id)s with other content; "
                            "correct that match instead"
                        )
                        % {"club": match.club_id, "id": match.external_id},
                    )
                )
            continue
        slots.append(None)
        plans.append(
            _Plan(
                match=match,
                received_at=received_at,
                status=verdict.status,
                counting_month=verdict.counting_month,
                slot=len(slots) - 1,
            )
        )
    if plans and not problems:
        by_club: dict[int, Submission] = {}
        submissions: list[Submission] = []
        for plan in plans:
            assert plan.match.club is not None  # noqa: S101
            submission = by_club.get(plan.match.club.pk)
            if submission is None or submission.received_at != plan.received_at:
                submission = Submission(
                    club=plan.match.club,
                    submitted_by=submitted_by,
                    received_at=plan.received_at,
                    channel=channel,
                )
                submissions.append(submission)
                by_club[plan.match.club.pk] = submission
            plan.submission = submission
        entries = [_entry(plan, {"channel": channel, "status": plan.status}) for plan in plans]
        store.write(
            submissions,
            entries,
            event_kind=MatchEvent.Kind.SUBMITTED,
            at=now,
            by=submitted_by,
        )
        stored = [entry.match for entry in entries]
        for plan, row in zip(plans, stored, strict=True):
            slots[plan.slot] = SubmitOutcome(row, created=True)


def match_submit(
    *, club: Club | None, payload: Any, submitted_by: Any, now: dt.datetime, channel: str
) -> SubmitOutcome:
    """Submit one match (paths in problems have no prefix)."""
    return matches_submit(
        payloads=[payload],
        submitted_by=submitted_by,
        now=now,
        channel=channel,
        club=club,
        prefix=lambda _: "",
    )[0]


@dataclass(slots=True)
class _Plan:
    """A validated match to store, with its classification and where it goes."""

    match: MatchInput
    received_at: dt.datetime
    status: str
    counting_month: Month
    slot: int = 0
    submission: Submission | None = None
    revision: int = 1
    replaces: Match | None = None


def _entry(plan: _Plan, details: dict[str, Any]) -> store.Entry:
    """The unsaved rows of a validated match (:mod:`matches.store` writes them)."""
    match = plan.match
    assert match.club is not None and plan.submission is not None  # noqa: S101
    row = Match(
        club=match.club,
        external_id=match.external_id,
        revision=plan.revision,
        date_played=match.date_played,
        discipline=match.discipline,
        category=match.category,
        submission=plan.submission,
        received_at=plan.received_at,
        status=plan.status,
        counting_month=plan.counting_month.first_day,
        records=match.records,
        replaces=plan.replaces,
    )
    return store.Entry(
        match=row,
        sides=[(side.score, [player.pk for player in side.players]) for side in match.sides],
        base=match.base,
        details=details,
    )


def _canonical(match: Match) -> dict[str, Any]:
    sides = []
    for side in match.sides.order_by("position").prefetch_related("members__player"):
        members = sorted(side.members.all(), key=lambda m: m.pk)
        sides.append({"players": [m.player.player_id for m in members], "score": side.score})
    return {
        "id": match.external_id,
        "date": match.date_played.isoformat(),
        "club": match.club.club_id,
        "discipline": match.discipline,
        "category": match.category,
        "sides": sides,
    }


def match_payload(match: Match) -> dict[str, Any]:
    """A stored match in the submission format (what a correction form starts from)."""
    payload = _canonical(match)
    if match.records is not None:
        payload["records"] = match.records
    return payload


def correction_deadline(match: Match) -> dt.datetime:
    """Until when the club's secretary may still correct the match themselves."""
    return deadline(Month.of(match.counting_month), federation_tz())


def _void_effective(match: Match) -> Month:
    first_open = _first_open(match.discipline)
    counting = Month.of(match.counting_month)
    return max(counting, first_open) if first_open else counting


def _apply_void(match: Match, *, by: Any, reason: str, now: dt.datetime) -> Month:
    effective = _void_effective(match)
    match.voided_at = now
    match.voided_by = by
    match.void_reason = reason
    match.void_effective_month = effective.first_day
    match.save(update_fields=["voided_at", "voided_by", "void_reason", "void_effective_month"])
    SideMember.objects.filter(match=match).update(void_effective_month=effective.first_day)
    return effective


@transaction.atomic
def match_void(*, match: Match, by: Any, reason: str, now: dt.datetime) -> Match:
    """Void a match from the first list it can still affect on (admin)."""
    reason = (reason or "").strip()
    if not reason:
        raise InvalidSubmission([Problem("reason", _("a void needs a reason"))])
    match = Match.objects.select_for_update().get(pk=match.pk)
    if match.voided_at is not None:
        raise InvalidSubmission(
            [Problem("match", _("%(match)s is already voided") % {"match": match})]
        )
    locks.discipline_shared(match.discipline)
    effective = _apply_void(match, by=by, reason=reason, now=now)
    MatchEvent.objects.create(
        match=match,
        kind=MatchEvent.Kind.VOIDED,
        at=now,
        by=by,
        reason=reason,
        details={"effective_month": str(effective)},
    )
    return match


def match_correct(
    *,
    match: Match,
    payload: Any,
    by: Any,
    now: dt.datetime,
    reason: str,
    as_admin: bool,
    channel: str,
) -> Match:
    """Replace a match by a corrected revision; the old one stops counting.

    A secretary may correct their club's match until the deadline of the month it counts
    in (and while that month is open); an admin at any time, the correction then counting
    from the first open month.
    """
    reason = (reason or "").strip() or "corrected by the club"
    if match.voided_at is not None or Match.objects.filter(replaces=match).exists():
        raise NotAllowed(_("%(match)s was already voided or replaced") % {"match": match})
    if not as_admin and now >= correction_deadline(match):
        raise NotAllowed(
            _("the deadline for %(month)s has passed; ask the federation to correct this match")
            % {"month": Month.of(match.counting_month)}
        )
    if not isinstance(payload, dict):
        raise InvalidSubmission([Problem("", _("a match must be a JSON object"))])
    payload = {**payload, "id": match.external_id, "club": match.club.club_id}
    parsed, problems = parse_match(payload)
    if parsed is None:
        raise InvalidSubmission(problems)
    problems = resolve([("", parsed)]) + check_records(parsed)
    if problems:
        raise InvalidSubmission(problems)
    with transaction.atomic():
        locks.discipline_shared(parsed.discipline)
        try:
            verdict = classify(
                date_played=parsed.date_played,
                received_at=now,
                tz=federation_tz(),
                last_closed=last_closed_month(parsed.discipline),
            )
        except Rejection as exc:
            raise InvalidSubmission([Problem(exc.field, rejection_text(exc))]) from exc
        old = Match.objects.select_for_update().get(pk=match.pk)
        submission = Submission(club=old.club, submitted_by=by, received_at=now, channel=channel)
        entry = _entry(
            _Plan(
                match=parsed,
                received_at=now,
                status=verdict.status,
                counting_month=verdict.counting_month,
                submission=submission,
                revision=old.revision + 1,
                replaces=old,
            ),
            {},
        )
        store.write([submission], [entry], event_kind=None, at=now, by=by)
        new = entry.match
        effective = _apply_void(old, by=by, reason=f"corrected: {reason}", now=now)
        for target in (old, new):
            MatchEvent.objects.create(
                match=target,
                kind=MatchEvent.Kind.CORRECTED,
                at=now,
                by=by,
                reason=reason,
                details={
                    "old_revision": old.revision,
                    "new_revision": new.revision,
                    "old_void_effective_month": str(effective),
                },
            )
    return new


@transaction.atomic
def player_merge(
    *, source: Player, target: Player, by: Any, reason: str, now: dt.datetime
) -> PlayerMerge:
    """Merge a duplicate player record into the surviving one (admin).

    Every result of ``source`` moves to ``target``; ``source`` stays, marked as merged, so
    that its id still resolves. Refused when both played in the same match (that match is
    wrong, not the registry) or either record is already merged.
    """
    reason = (reason or "").strip()
    if not reason:
        raise InvalidSubmission([Problem("reason", _("a merge needs a reason"))])
    if source.pk == target.pk:
        raise InvalidSubmission([Problem("target", _("a player cannot be merged into itself"))])
    source = Player.objects.select_for_update().get(pk=source.pk)
    target = Player.objects.select_for_update().get(pk=target.pk)
    if source.merged_into_id or target.merged_into_id:
        raise InvalidSubmission([Problem("source", _("one of the two records is already merged"))])
    shared = sorted(
        SideMember.objects.filter(player=source)
        .filter(match__in=SideMember.objects.filter(player=target).values("match"))
        .values_list("match__club__club_id", "match__external_id")
    )
    if shared:
        listed = ", ".join(f"{c}/{e}" for c, e in shared[:10])
        raise InvalidSubmission(
            [
                Problem(
                    "source",
                    _("both players played in the same match(es): %(matches)s")
                    % {"matches": listed},
                )
            ]
        )
    match_ids = list(
        SideMember.objects.filter(player=source).values_list("match_id", flat=True).distinct()
    )
    moved = SideMember.objects.filter(player=source).update(player=target)
    Player.objects.filter(merged_into=source).update(merged_into=target)
    source.merged_into = target
    source.save(update_fields=["merged_into"])
    merge = PlayerMerge.objects.create(
        source=source,
        target=target,
        merged_by=by,
        merged_at=now,
        reason=reason,
        results_moved=moved,
        match_ids=match_ids,
    )
    MatchEvent.objects.bulk_create(
        [
            MatchEvent(
                match_id=mid,
                kind=MatchEvent.Kind.MERGED,
                at=now,
                by=by,
                reason=reason,
                details={"from": source.player_id, "to": target.player_id},
            )
            for mid in match_ids
        ]
    )
    return merge


def month_freeze(*, discipline: str, month: Month, by: Any, now: dt.datetime) -> ClosedMonth:
    """Freeze a month of a discipline (called by the close service, in its transaction).

    Waits for submissions in flight (exclusive discipline lock), then records the month as
    closed: from then on no result is classified into it. Idempotent.
    """
    locks.discipline_exclusive(discipline)
    closed, _created = ClosedMonth.objects.get_or_create(
        discipline=discipline,
        month=month.first_day,
        defaults={"closed_at": now, "closed_by": by},
    )
    return closed
