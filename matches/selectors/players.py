"""Players by federation id: their names, one record, how many results it has."""

from __future__ import annotations

from collections.abc import Iterable

from matches.models import Player, SideMember


def player_names(player_ids: Iterable[str]) -> dict[str, str]:
    """Federation id -> name, for the ids that exist (one query)."""
    ids = set(player_ids)
    if not ids:
        return {}
    return dict(Player.objects.filter(player_id__in=ids).values_list("player_id", "name"))


def live_player(player_id: str) -> Player | None:
    """The player record with this federation id (any case), with its club and the record it
    was merged into, or None."""
    return (
        Player.objects.select_related("club", "merged_into")
        .filter(player_id=player_id.strip().upper())
        .first()
    )


def result_count(player: Player) -> int:
    """How many sides of matches the player is a member of (what a merge would move)."""
    return SideMember.objects.filter(player=player).count()
