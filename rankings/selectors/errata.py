"""Errata, read: the corrections and voids behind them, which months need one, which later
months an erratum left behind.

In: a discipline (and instants, months). Out:

- :func:`corrections`: the corrections and voids of the discipline's matches made in a
  span of time, each once (a correction's two events, on the old and the new revision,
  are one :class:`Correction`), with who, when, why, the match and every player of its
  revisions; four queries;
- :func:`Correction.touches`: whether it changes the results of month M's window (a
  revision of the match was played in M's 12 months and the match counted in M or before);
- :func:`errata_due`: the months (of the last :data:`MONTHS_WATCHED` published) whose latest
  version some correction or void made since touches: the dashboard offers their erratum;
- :func:`later_months_stale`: the months whose latest version is older than a newer version
  of an earlier month (they read it: opponent strength, previous rank), from the first one
  on: the dashboard offers to recompute them;
- :func:`erratum_in_progress`: whether an erratum run of the discipline is queued or running;
- :func:`errata_of_lists`: the erratum each of some lists answers (the feed says why).

Reads only; in the user's words nothing (the views and the diff say it).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from matches.models import Match, MatchEvent, SideMember
from matches.months import Month

from ..fladub import WINDOW_MONTHS
from ..models import CloseRun, Erratum, RankingList
from ..sql import ListInfo
from .cycle import ACTIVE_STATES
from .lists import published_lists

MONTHS_WATCHED = 12
"""How many of a discipline's latest months the dashboard checks for corrections."""


@dataclass(frozen=True)
class Correction:
    """One correction or void: who, when, why, and what it touched."""

    kind: str
    """``corrected`` or ``voided`` (:class:`matches.models.MatchEvent.Kind`)."""
    at: dt.datetime
    by: str
    reason: str
    match: str
    """The match as people name it (club and id)."""
    months_played: frozenset[Month]
    counted_from: Month
    """The month the match's first revision counted in (a corrected revision counts there
    in an erratum)."""
    players: frozenset[int]
    """Every player (``Player`` primary key) of its revisions."""
    revisions: tuple[int, ...]

    def touches(self, month: Month) -> bool:
        """Whether it changes the results of ``month``'s window."""
        return self.counted_from <= month and any(
            0 <= month.index - played.index < WINDOW_MONTHS for played in self.months_played
        )


def corrections(
    discipline: str, *, after: dt.datetime, until: dt.datetime | None = None
) -> list[Correction]:
    """The corrections and voids of ``discipline`` made after ``after`` (and at or before
    ``until``), oldest first."""
    events = MatchEvent.objects.filter(
        match__discipline=discipline,
        kind__in=[MatchEvent.Kind.CORRECTED, MatchEvent.Kind.VOIDED],
        at__gt=after,
    )
    if until is not None:
        events = events.filter(at__lte=until)
    rows = list(events.select_related("match", "match__club", "by").order_by("at", "id"))
    grouped: dict[tuple[object, ...], list[MatchEvent]] = defaultdict(list)
    for event in rows:
        match = event.match
        key = (event.kind, event.at, event.by_id, event.reason, match.club_id, match.external_id)
        grouped[key].append(event)
    match_ids = {event.match_id for event in rows}
    roots = _first_counting_months({(e.match.club_id, e.match.external_id) for e in rows})
    players: dict[int, set[int]] = defaultdict(set)
    for match_id, player_id in SideMember.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "player_id"
    ):
        players[match_id].add(player_id)
    found = []
    for (kind, at, _by, reason, _club, _id), group in grouped.items():
        matches = [event.match for event in group]
        first = min(matches, key=lambda m: m.revision)
        found.append(
            Correction(
                kind=str(kind),
                at=at,  # type: ignore[arg-type]
                by=str(group[0].by or ""),
                reason=str(reason),
                match=first.label,
                months_played=frozenset(Month.of(m.date_played) for m in matches),
                counted_from=Month.of(
                    roots.get((first.club_id, first.external_id), first.counting_month)
                ),
                players=frozenset(p for m in matches for p in players[m.pk]),
                revisions=tuple(sorted(m.revision for m in matches)),
            )
        )
    return found


def _first_counting_months(chains: set[tuple[int, str]]) -> dict[tuple[int, str], dt.date]:
    """(club, match id) -> the counting month of the match's first revision: where every
    revision of it counts in an erratum (one query)."""
    if not chains:
        return {}
    found: dict[tuple[int, str], dt.date] = {}
    for club, external_id, counting in Match.objects.filter(
        club_id__in={c for c, _ in chains}, external_id__in={e for _, e in chains}
    ).values_list("club_id", "external_id", "counting_month"):
        key = (club, external_id)
        if key in chains and (key not in found or counting < found[key]):
            found[key] = counting
    return found


@dataclass(frozen=True)
class ErratumDue:
    """A month whose latest version some corrections or voids made since touch."""

    ranking_list: ListInfo
    corrections: list[Correction]

    @property
    def month(self) -> Month:
        return self.ranking_list.list_month


def _latest_versions(discipline: str) -> list[ListInfo]:
    """The discipline's published lists (latest version of each month), oldest first."""
    return sorted(
        (p.ranking_list for p in published_lists(discipline=discipline)),
        key=lambda rl: rl.month,
    )


def errata_due(discipline: str) -> list[ErratumDue]:
    """The months (of the last :data:`MONTHS_WATCHED`) that a correction or void made after
    their latest version touches, oldest first."""
    lists = [rl for rl in _latest_versions(discipline) if rl.published_at][-MONTHS_WATCHED:]
    if not lists:
        return []
    since = min(rl.published_at for rl in lists if rl.published_at)
    found = corrections(discipline, after=since)
    due = []
    for ranking_list in lists:
        month = ranking_list.list_month
        touching = [
            c
            for c in found
            if ranking_list.published_at and c.at > ranking_list.published_at and c.touches(month)
        ]
        if touching:
            due.append(ErratumDue(ranking_list=ranking_list, corrections=touching))
    return due


@dataclass(frozen=True)
class StaleMonths:
    """Months whose lists were computed before a newer version of ``after``."""

    after: ListInfo
    months: list[Month]


def later_months_stale(discipline: str) -> StaleMonths | None:
    """The later months to recompute after the earliest newer version of an earlier month
    (every month from the first stale one to the latest), or None."""
    lists = _latest_versions(discipline)
    newest: ListInfo | None = None
    for index, ranking_list in enumerate(lists):
        if (
            newest is not None
            and ranking_list.published_at is not None
            and newest.published_at is not None
            and ranking_list.published_at < newest.published_at
        ):
            return StaleMonths(after=newest, months=[rl.list_month for rl in lists[index:]])
        if ranking_list.published_at is not None and (
            newest is None
            or newest.published_at is None
            or ranking_list.published_at > newest.published_at
        ):
            newest = ranking_list
    return None


def erratum_in_progress(discipline: str) -> CloseRun | None:
    """The discipline's erratum run that is queued or running, if any."""
    return (
        CloseRun.objects.filter(
            discipline=discipline, erratum__isnull=False, state__in=ACTIVE_STATES
        )
        .order_by("created_at", "id")
        .first()
    )


def erratum_list(erratum_id: int) -> RankingList | None:
    """The list an erratum published (superseded since or not), if any."""
    return RankingList.objects.filter(
        erratum_id=erratum_id,
        status__in=[RankingList.Status.PUBLISHED, RankingList.Status.SUPERSEDED],
    ).first()


def errata_of_lists(list_ids: list[int]) -> dict[int, Erratum]:
    """List id -> the erratum it answers, for those of ``list_ids`` that are errata (one
    query)."""
    return {
        ranking_list.pk: ranking_list.erratum
        for ranking_list in RankingList.objects.filter(
            pk__in=list_ids, erratum__isnull=False
        ).select_related("erratum")
        if ranking_list.erratum is not None
    }
