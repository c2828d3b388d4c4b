"""Players by federation id."""

from __future__ import annotations

from collections.abc import Iterable

from matches.models import Player


def player_names(player_ids: Iterable[str]) -> dict[str, str]:
    """Federation id -> name, for the ids that exist (one query)."""
    ids = set(player_ids)
    if not ids:
        return {}
    return dict(Player.objects.filter(player_id__in=ids).values_list("player_id", "name"))
