"""A validated match as the rows :mod:`matches.store` writes, and a stored match back in the
submission format (what a re-submission is compared with, what a correction form starts
from)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from matches import store
from matches.models import Match, Submission
from matches.months import Month
from matches.validation import MatchInput


@dataclass(slots=True)
class Planned:
    """A validated match to store, with its classification and where it goes."""

    match: MatchInput
    received_at: dt.datetime
    status: str
    counting_month: Month
    slot: int = 0  # its place in the caller's input order
    submission: Submission | None = None
    revision: int = 1
    replaces: Match | None = None


def entry(plan: Planned, details: dict[str, Any]) -> store.Entry:
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


def canonical(match: Match) -> dict[str, Any]:
    """A stored match in the form :meth:`MatchInput.canonical` gives a submitted one."""
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
    payload = canonical(match)
    if match.records is not None:
        payload["records"] = match.records
    return payload
