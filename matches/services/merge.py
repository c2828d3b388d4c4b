"""Merging a duplicate player record into the surviving one: results move, an audit row
(:class:`~matches.models.PlayerMerge`) and an event per match record who, when and why."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from matches.models import MatchEvent, Player, PlayerMerge, SideMember
from matches.validation import InvalidSubmission, Problem


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
    _check_mergeable(source, target)
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
    details = {"from": source.player_id, "to": target.player_id}
    MatchEvent.objects.bulk_create(
        MatchEvent(
            match_id=mid, kind=MatchEvent.Kind.MERGED, at=now, by=by, reason=reason, details=details
        )
        for mid in match_ids
    )
    return merge


def _check_mergeable(source: Player, target: Player) -> None:
    """InvalidSubmission when either record is already merged or both played one match."""
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
