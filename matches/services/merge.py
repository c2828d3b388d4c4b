"""Merging a duplicate player record into the surviving one: results move, an audit row
(:class:`~matches.models.PlayerMerge`) and an event per match record who, when and why.

:func:`player_merge_undo` undoes a merge within the month (in ``FIDO_TIMEZONE``) it was made
in, as a new event (:class:`~matches.models.PlayerMergeUndo` and an ``unmerged`` event per
match): the results of the merged matches move back, the source record is a player again.
A merge of an earlier month has reached a list; it stays (a new merge can be made)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import audit
from matches.clock import federation_tz
from matches.models import MatchEvent, Player, PlayerMerge, PlayerMergeUndo, SideMember, match_label
from matches.months import local_month
from matches.validation import InvalidSubmission, Problem

from .events import match_events_record


@transaction.atomic
@audit.recording()
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
    redirected = list(Player.objects.filter(merged_into=source).values_list("pk", flat=True))
    Player.objects.filter(pk__in=redirected).update(merged_into=target)
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
        redirected_ids=redirected,
    )
    details = {"from": source.player_id, "to": target.player_id}
    match_events_record(
        match_ids, kind=MatchEvent.Kind.MERGED, by=by, at=now, reason=reason, details=details
    )
    return merge


@transaction.atomic
@audit.recording()
def player_merge_undo(
    *, merge: PlayerMerge, by: Any, reason: str, now: dt.datetime
) -> PlayerMergeUndo:
    """Undo ``merge`` (admin), within the month it was made in; a new event, with a reason.

    Refused when the merge is already undone, was made in an earlier month, or either
    record was merged again since. The results of the merged matches move back to the
    source record (results the target entered since, in other matches, stay with it).
    """
    reason = (reason or "").strip()
    if not reason:
        raise InvalidSubmission([Problem("reason", _("undoing a merge needs a reason"))])
    merge = PlayerMerge.objects.select_for_update().get(pk=merge.pk)
    source = Player.objects.select_for_update().get(pk=merge.source_id)
    target = Player.objects.select_for_update().get(pk=merge.target_id)
    _check_undoable(merge, source, target, now=now)
    moved = SideMember.objects.filter(match_id__in=merge.match_ids, player=target).update(
        player=source
    )
    Player.objects.filter(pk__in=merge.redirected_ids, merged_into=target).update(
        merged_into=source
    )
    source.merged_into = None
    source.save(update_fields=["merged_into"])
    undo = PlayerMergeUndo.objects.create(
        merge=merge, undone_by=by, undone_at=now, reason=reason, results_moved=moved
    )
    details = {"from": target.player_id, "to": source.player_id, "merge": merge.pk}
    match_events_record(
        merge.match_ids,
        kind=MatchEvent.Kind.UNMERGED,
        by=by,
        at=now,
        reason=reason,
        details=details,
    )
    return undo


def _check_undoable(
    merge: PlayerMerge, source: Player, target: Player, *, now: dt.datetime
) -> None:
    """InvalidSubmission unless ``merge`` may be undone at ``now``."""
    if PlayerMergeUndo.objects.filter(merge=merge).exists():
        raise InvalidSubmission([Problem("merge", _("this merge was already undone"))])
    tz = federation_tz()
    if local_month(merge.merged_at, tz) != local_month(now, tz):
        raise InvalidSubmission(
            [
                Problem(
                    "merge",
                    _("a merge can only be undone within the month it was made in (%(month)s)")
                    % {"month": local_month(merge.merged_at, tz)},
                )
            ]
        )
    if source.merged_into_id != target.pk or target.merged_into_id is not None:
        raise InvalidSubmission(
            [Problem("merge", _("one of the two records was merged again since"))]
        )


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
        listed = ", ".join(match_label(c, e) for c, e in shared[:10])
        raise InvalidSubmission(
            [
                Problem(
                    "source",
                    ngettext(
                        "both players played in the same match: %(matches)s",
                        "both players played in the same matches: %(matches)s",
                        len(shared),
                    )
                    % {"matches": listed},
                )
            ]
        )
