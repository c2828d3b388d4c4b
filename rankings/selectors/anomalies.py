"""The anomaly flags of the admin's review before the close: one function per question.

In: a discipline and its open month (the month the projection is of). Out: a list of
:class:`Flag` per question, each with the matches behind it (:class:`MatchRef`, at most
:data:`MATCHES_SHOWN` of them; ``match_count`` is exact) and the facts in numbers; an
empty list when nothing is unusual. Reads only (:mod:`rankings.review_sql`, a statement
per flag, plus one query for the labels of the matches shown). The thresholds below are
the federation's documented choices (docs/review.md): a flag asks an admin to look, it
decides nothing.

- :func:`club_volume_flags`: a club with at least :data:`CLUB_VOLUME_FACTOR` times its
  usual monthly number of matches and :data:`CLUB_VOLUME_MIN_EXTRA` more; usual = the
  mean over the :data:`CLUB_USUAL_MONTHS` months before (months without a match count 0).
- :func:`busy_day_flags`: a player with more than :data:`RESULTS_PER_DAY_MAX` results
  played on one day.
- :func:`last_hour_flags`: a club that entered :data:`LAST_HOUR_MIN` or more of the
  month's results in the last hour before its deadline.
- :func:`pair_flags`: two players who met at :data:`PAIR_MIN_SHARED` or more of the
  month's matches, on different sides, and for whom those are more than half of each
  one's results.
- :func:`near_duplicate_flags`: two matches played on the same day by exactly the same
  players (sides, scores, category and club may differ).

:func:`all_flags` asks every question in the order of :data:`KINDS`: the projection's
worker does (:mod:`rankings.services.projection_review`, about 35 s on a month of a million
results); the review page reads what it stored and never asks.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from matches.models import Club, Match, Player, match_label
from matches.months import Month, deadline

from .. import review_sql
from ..sql import fetch

MATCHES_SHOWN = 20
FLAGS_SHOWN = 25
"""Flags of one question shown at most (each reads its matches: a bound on the queries)."""
CLUB_USUAL_MONTHS = 6
CLUB_VOLUME_FACTOR = 3
CLUB_VOLUME_MIN_EXTRA = 20
RESULTS_PER_DAY_MAX = 24
"""A match to the target score takes 30 minutes or more: 24 are twelve hours at a table."""
LAST_HOUR_MIN = 10
PAIR_MIN_SHARED = 5
KINDS = ("club_volume", "busy_day", "last_hour", "pair", "near_duplicate")
"""The questions, in the order the review page shows them."""


@dataclass(frozen=True)
class MatchRef:
    pk: int
    label: str
    date_played: dt.date
    received_at: dt.datetime


@dataclass(frozen=True)
class Flag:
    kind: str
    """``club_volume``, ``busy_day``, ``last_hour``, ``pair``, ``near_duplicate``."""
    subject: str
    """Who or what, as people name it: a club, a player, two players, two matches."""
    figures: Mapping[str, Any]
    matches: list[MatchRef]
    match_count: int


def _refs(ids: Iterable[int]) -> dict[int, MatchRef]:
    rows = (
        Match.objects.filter(pk__in=set(ids))
        .values_list("pk", "club__club_id", "external_id", "date_played", "received_at")
        .order_by()
    )
    return {
        pk: MatchRef(pk=pk, label=match_label(club, ext), date_played=day, received_at=at)
        for pk, club, ext, day, at in rows
    }


def _with_refs(found: list[tuple[Flag, list[int]]]) -> list[Flag]:
    """The flags with their matches' labels (one query for every flag's matches)."""
    refs = _refs(pk for _flag, ids in found for pk in ids)
    return [
        Flag(
            kind=flag.kind,
            subject=flag.subject,
            figures=flag.figures,
            matches=[refs[pk] for pk in ids if pk in refs],
            match_count=flag.match_count,
        )
        for flag, ids in found
    ]


def _players(pks: Iterable[int]) -> dict[int, str]:
    return {
        pk: f"{name} ({pid})"
        for pk, pid, name in Player.objects.filter(pk__in=set(pks)).values_list(
            "pk", "player_id", "name"
        )
    }


def _clubs(pks: Iterable[int]) -> dict[int, str]:
    return {
        pk: f"{name} ({cid})"
        for pk, cid, name in Club.objects.filter(pk__in=set(pks)).values_list(
            "pk", "club_id", "name"
        )
    }


def club_volume_flags(discipline: str, month: Month) -> list[Flag]:
    """Clubs far above their usual monthly volume (the largest first)."""
    before = [month + (-k) for k in range(1, CLUB_USUAL_MONTHS + 1)]
    counts: dict[int, dict[dt.date, int]] = defaultdict(dict)
    for club, counted, n in fetch(review_sql.club_volumes(discipline, [month, *before])):
        counts[club][counted] = n
    raised = []
    for club, by_month in counts.items():
        now = by_month.get(month.first_day, 0)
        usual = sum(by_month.get(m.first_day, 0) for m in before) / CLUB_USUAL_MONTHS
        if now >= CLUB_VOLUME_FACTOR * usual and now >= usual + CLUB_VOLUME_MIN_EXTRA:
            raised.append((club, now, usual))
    raised = sorted(raised, key=lambda r: (-r[1], r[0]))[:FLAGS_SHOWN]
    names = _clubs(r[0] for r in raised)
    found = []
    for club, now, usual in raised:
        ids = [r[0] for r in fetch(review_sql.club_matches(discipline, month, club, MATCHES_SHOWN))]
        figures = {"matches": now, "usual": round(usual, 1), "months": CLUB_USUAL_MONTHS}
        found.append((Flag("club_volume", names[club], figures, [], now), ids))
    return _with_refs(found)


def busy_day_flags(discipline: str, month: Month) -> list[Flag]:
    """Players with more results on one day than a day allows (the busiest first)."""
    rows = fetch(review_sql.busy_days(discipline, month, RESULTS_PER_DAY_MAX))[:FLAGS_SHOWN]
    names = _players(r[0] for r in rows)
    found = []
    for player, day, n in rows:
        ids = [r[0] for r in fetch(review_sql.day_matches(discipline, month, player, day))]
        figures = {"results": n, "day": day, "most": RESULTS_PER_DAY_MAX}
        found.append((Flag("busy_day", names[player], figures, [], n), ids[:MATCHES_SHOWN]))
    return _with_refs(found)


def last_hour_flags(discipline: str, month: Month, tz: ZoneInfo) -> list[Flag]:
    """Clubs that entered many results in the last hour before the deadline."""
    end = deadline(month, tz)
    start = end - dt.timedelta(hours=1)
    by_club: dict[int, list[int]] = defaultdict(list)
    for club, match in fetch(review_sql.received_between(discipline, month, start, end)):
        by_club[club].append(match)
    raised = sorted(
        ((club, ids) for club, ids in by_club.items() if len(ids) >= LAST_HOUR_MIN),
        key=lambda r: (-len(r[1]), r[0]),
    )[:FLAGS_SHOWN]
    names = _clubs(club for club, _ids in raised)
    found = []
    for club, ids in raised:
        figures = {"matches": len(ids), "deadline": end, "least": LAST_HOUR_MIN}
        found.append((Flag("last_hour", names[club], figures, [], len(ids)), ids[:MATCHES_SHOWN]))
    return _with_refs(found)


def pair_flags(discipline: str, month: Month) -> list[Flag]:
    """Pairs of players with most of their results against each other."""
    rows = fetch(review_sql.close_pairs(discipline, month, PAIR_MIN_SHARED))[:FLAGS_SHOWN]
    names = _players(pk for a, b, *_rest in rows for pk in (a, b))
    found = []
    for a, b, shared, a_total, b_total in rows:
        statement = review_sql.pair_matches(discipline, month, a, b, MATCHES_SHOWN)
        ids = [r[0] for r in fetch(statement)]
        subject = f"{names[a]} / {names[b]}"
        figures = {"shared": shared, "first_total": a_total, "second_total": b_total}
        found.append((Flag("pair", subject, figures, [], shared), ids))
    return _with_refs(found)


def near_duplicate_flags(discipline: str, month: Month) -> list[Flag]:
    """Two matches of one day with exactly the same players."""
    rows = fetch(review_sql.same_players_same_day(discipline, month))[:FLAGS_SHOWN]
    refs = _refs(pk for pair in rows for pk in pair)
    return [
        Flag(
            kind="near_duplicate",
            subject=f"{refs[a].label} / {refs[b].label}",
            figures={"day": refs[a].date_played},
            matches=[refs[a], refs[b]],
            match_count=2,
        )
        for a, b in rows
    ]


def all_flags(discipline: str, month: Month, tz: ZoneInfo) -> dict[str, list[Flag]]:
    """Every question's flags: kind -> flags (``tz``: the federation's, for the deadline)."""
    return {
        "club_volume": club_volume_flags(discipline, month),
        "busy_day": busy_day_flags(discipline, month),
        "last_hour": last_hour_flags(discipline, month, tz),
        "pair": pair_flags(discipline, month),
        "near_duplicate": near_duplicate_flags(discipline, month),
    }
