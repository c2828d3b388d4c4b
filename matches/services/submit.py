"""Submitting matches: validate a batch, classify each match against the closed months,
store the new ones, all or nothing.

:func:`match_batch_submit` is THE submission service: every channel (web form, CSV upload,
REST API, ``import_results``, the demo) calls it, with one payload or many;
:func:`match_submit` is its one-match form. The hot path (one API request) sends its reads
as prepared statements in one go (:func:`_read_state`) and its writes as one statement
(:mod:`matches.store`): docs/performance.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils.translation import gettext as _

from matches import locks, sql, store
from matches.clock import federation_tz
from matches.models import Channel, Club, Match, MatchEvent, Submission, match_label
from matches.months import Month, Rejection, classify
from matches.records_check import check_records
from matches.selectors import month_or_none
from matches.validation import (
    CONFLICT,
    InvalidSubmission,
    MatchInput,
    Problem,
    Registry,
    join_path,
    parse_match,
    registry_query,
    registry_rows,
    resolve,
)

from .refusals import NotAllowed, rejection_text
from .rows import Planned, canonical, entry


@dataclass(frozen=True, slots=True)
class SubmitOutcome:
    match: Match
    created: bool  # False: an identical match with this id was already stored


def _batch_prefix(index: int) -> str:
    return f"matches[{index}]"


def match_batch_submit(
    *,
    payloads: Sequence[Any],
    submitted_by: Any,
    now: dt.datetime,
    channel: str,
    clubs: Sequence[Club] | None = None,
    honour_submitted_at: bool = False,
    prefix: Callable[[int], str] = _batch_prefix,
    savepoint: bool = False,
) -> list[SubmitOutcome]:
    """Validate and store a batch of matches, all or nothing; the outcomes in input order.

    ``clubs``: the clubs the submitter may submit for (a secretary's, already loaded: they
    are not read again); every match must be hosted by one of them, otherwise
    :class:`NotAllowed`. None: any club (an admin, the import). ``honour_submitted_at``
    (admin import only) takes a line's ``submitted_at`` as its receipt time instead of
    ``now``. A match whose id is already stored with the same content is not stored again
    (``created=False``); with other content it is a problem (corrections go through
    :func:`~matches.services.match_correct`). ``prefix`` names each payload in the paths
    of problems (``matches[i]`` by default).

    Raises :class:`InvalidSubmission` with every problem found, after the transaction
    block: the caller's transaction stays usable.

    Transactions, ``savepoint``: the reads and writes run in
    ``transaction.atomic(savepoint=savepoint)``. The default ``False`` saves the hot path
    two round trips per request when it runs inside the caller's transaction (the API's
    idempotency record), and it is why nothing but the database raises inside that block
    (problems are collected and raised after it). The price: a database error there (a
    unique violation: a twin request stored the same id meanwhile) is raised as
    ``IntegrityError`` and leaves the CALLER's transaction marked for rollback; the caller
    cannot catch it and go on, it must let its transaction end and retry from the start
    (:mod:`matches.apis.idempotency` does; alone, the API view retries). A caller that
    wants to go on after such an error passes ``savepoint=True``.
    """
    parsed, problems = _parse_all(payloads, prefix, honour_submitted_at)
    if clubs is not None:
        _check_hosts(parsed, clubs)
    problems += _check_batch(parsed)  # replaying game records takes time: not under the locks
    known = list(clubs or ())
    outcomes: list[SubmitOutcome] = []
    with transaction.atomic(savepoint=savepoint):
        if parsed:
            state = _read_state(parsed, known)
            problems += resolve(parsed, known, found=state.registry)
            if not problems:
                outcomes = _classify_and_store(
                    parsed,
                    state,
                    problems,
                    tz=federation_tz(),
                    now=now,
                    submitted_by=submitted_by,
                    channel=channel,
                )
    if problems:
        raise InvalidSubmission(problems)
    return outcomes


def match_submit(
    *, club: Club | None, payload: Any, submitted_by: Any, now: dt.datetime, channel: str
) -> SubmitOutcome:
    """Submit one match (paths in problems have no prefix); ``club``: the only club it may
    be hosted by (None: any). See :func:`match_batch_submit`."""
    return match_batch_submit(
        payloads=[payload],
        submitted_by=submitted_by,
        now=now,
        channel=channel,
        clubs=None if club is None else [club],
        prefix=lambda _: "",
    )[0]


def match_import(*, payload: Any, now: dt.datetime) -> SubmitOutcome:
    """Store one line of the admin's bulk import (``import_results``, the demo data): its
    own ``submitted_at`` is its receipt time, no user submitted it, any club may host it.
    See :func:`match_batch_submit`."""
    return match_batch_submit(
        payloads=[payload],
        submitted_by=None,
        now=now,
        channel=Channel.IMPORT,
        honour_submitted_at=True,
        prefix=lambda _: "",
    )[0]


def _parse_all(
    payloads: Sequence[Any], prefix: Callable[[int], str], honour_submitted_at: bool
) -> tuple[list[tuple[str, MatchInput]], list[Problem]]:
    """Each well-formed payload with its path prefix, and the problems of the others."""
    problems: list[Problem] = []
    parsed: list[tuple[str, MatchInput]] = []
    for index, payload in enumerate(payloads):
        path = prefix(index)
        match, found = parse_match(payload, prefix=path, allow_submitted_at=honour_submitted_at)
        problems.extend(found)
        if match is not None:
            parsed.append((path, match))
    if not payloads:
        problems.append(Problem("matches", _("no match to submit")))
    return parsed, problems


def _check_hosts(parsed: Sequence[tuple[str, MatchInput]], clubs: Sequence[Club]) -> None:
    """NotAllowed unless every match is hosted by one of ``clubs``."""
    allowed = {club.club_id for club in clubs}
    others = sorted({m.club_id for _p, m in parsed if m.club_id not in allowed})
    if others:
        raise NotAllowed(
            _("you submit results for %(club)s only, not for %(others)s")
            % {"club": ", ".join(sorted(allowed)), "others": ", ".join(others)}
        )


def _check_batch(parsed: Sequence[tuple[str, MatchInput]]) -> list[Problem]:
    """An id twice in the batch, and the game records' problems (replayed here)."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for path, match in parsed:
        key = (match.club_id, match.external_id)
        if key in seen:
            problems.append(
                Problem(
                    join_path(path, "id"),
                    _("id %(id)s twice in this batch") % {"id": match.external_id},
                )
            )
        seen.add(key)
        problems.extend(check_records(match, prefix=path))
    return problems


@dataclass(frozen=True, slots=True)
class _State:
    """What a submission reads under the disciplines' shared locks (:func:`_read_state`)."""

    registry: Registry  # the clubs and players the batch names
    closed: dict[str, Month | None]  # last closed month per discipline
    stored: dict[tuple[int, str], Match]  # latest stored revision per (club pk, external id)


def _read_state(parsed: Sequence[tuple[str, MatchInput]], known: Sequence[Club]) -> _State:
    """The registry rows, the disciplines' shared locks, then under them the last closed
    months and the stored revisions of these ids, as prepared statements in this order
    (each read after the locks sees any close that committed before them)."""
    disciplines = sorted({m.discipline for _, m in parsed})
    query = registry_query(parsed, known)
    named: list[tuple[str, sql.Statement | None]] = [
        ("clubs", query.clubs),
        ("players", query.players),
        *((f"lock {d}", locks.discipline_shared_statement(d)) for d in disciplines),
        *((f"closed {d}", sql.last_closed_month(d)) for d in disciplines),
        (
            "stored",
            sql.match_revisions(
                sorted({m.club_id for _, m in parsed}), sorted({m.external_id for _, m in parsed})
            ),
        ),
    ]
    statements = [(name, s) for name, s in named if s is not None]
    rows = dict(
        zip(
            (name for name, _s in statements),
            sql.execute_all([s for _name, s in statements]),
            strict=True,
        )
    )
    revisions = sql.instances(Match, rows["stored"])
    return _State(
        registry=registry_rows(query, rows),
        closed={d: month_or_none(_single_value(rows[f"closed {d}"])) for d in disciplines},
        # In revision order: the last revision wins.
        stored={(row.club_id, row.external_id): row for row in revisions},
    )


def _single_value(rows: Sequence[Sequence[Any]]) -> Any:
    """The value of a one-row, one-column result."""
    [(value,)] = rows
    return value


def _classify_and_store(
    parsed: Sequence[tuple[str, MatchInput]],
    state: _State,
    problems: list[Problem],
    *,
    tz: ZoneInfo,
    now: dt.datetime,
    submitted_by: Any,
    channel: str,
) -> list[SubmitOutcome]:
    """Classify each match against the months read under the locks and store the new ones,
    unless a problem was found (added to ``problems``, nothing raised: see
    :func:`match_batch_submit`). The outcomes in input order."""
    slots: list[SubmitOutcome | None] = []  # an already stored match now, a new one below
    plans: list[Planned] = []
    for path, match in parsed:
        received_at = match.submitted_at if match.submitted_at else now
        try:
            verdict = classify(
                date_played=match.date_played,
                received_at=received_at,
                tz=tz,
                last_closed=state.closed[match.discipline],
            )
        except Rejection as exc:
            problems.append(Problem(join_path(path, exc.field), rejection_text(exc)))
            continue
        assert match.club is not None  # noqa: S101 - resolve() attached it
        existing = state.stored.get((match.club.pk, match.external_id))
        if existing is None:
            slots.append(None)
            plans.append(
                Planned(match, received_at, verdict.status, verdict.counting_month, len(slots) - 1)
            )
        elif canonical(existing) == match.canonical():
            slots.append(SubmitOutcome(existing, created=False))
        else:
            problems.append(_stored_with_other_content(path, match))
    if problems:
        return []
    for plan, row in zip(plans, _store(plans, now, submitted_by, channel), strict=True):
        slots[plan.slot] = SubmitOutcome(row, created=True)
    outcomes = [outcome for outcome in slots if outcome is not None]
    assert len(outcomes) == len(slots)  # noqa: S101 - every slot was filled
    return outcomes


def _stored_with_other_content(path: str, match: MatchInput) -> Problem:
    return Problem(
        join_path(path, "id"),
        _(
            "match %(id)s was already submitted with other content; to change it, "
            "correct that match (My submissions, Correct)"
        )
        % {"id": match_label(match.club_id, match.external_id)},
        code=CONFLICT,
    )


def _store(
    plans: Sequence[Planned], now: dt.datetime, submitted_by: Any, channel: str
) -> list[Match]:
    """Store the planned matches: one submission per club and receipt time."""
    if not plans:
        return []
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
    entries = [entry(plan, {"channel": channel, "status": plan.status}) for plan in plans]
    store.write(
        submissions, entries, event=store.Event(MatchEvent.Kind.SUBMITTED, now, submitted_by)
    )
    return [one.match for one in entries]
