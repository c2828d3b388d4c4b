"""A player as the public pages and the API find them: by federation id, through merges.

In: a federation id, or a player. Out: the :class:`~matches.models.Player` with their club
loaded (:func:`player_by_id`: one query; the other fields deferred, as with ``.only()``),
the record a merged one lives on in (:func:`surviving_player`), the disciplines a player
has results in (:func:`player_disciplines`: one index-only query). Their standing is read
with the current lists (:func:`rankings.selectors.lists.current_lists`), their history and
results by :mod:`~rankings.selectors.player_history` and
:mod:`~rankings.selectors.counting_results`.
"""

from __future__ import annotations

from matches.models import Club, Player

from .. import sql

MAX_MERGE_HOPS = 20


def _player(statement: sql.Statement) -> Player | None:
    rows = sql.fetch(statement)
    if not rows:
        return None
    values = rows[0]
    split = len(sql.PLAYER_FIELDS)
    player = sql.loaded(Player, sql.PLAYER_FIELDS, values[:split])
    if values[split] is not None:
        player.club = sql.loaded(Club, sql.CLUB_FIELDS, values[split:])
    return player


def player_by_id(player_id: str) -> Player | None:
    """The player of a federation id with their club; None if unknown."""
    return _player(sql.player_by_id(player_id))


def surviving_player(player_id: str) -> Player | None:
    """The player of a federation id, or the record a merged one was merged into
    (following up to :data:`MAX_MERGE_HOPS` merges; a longer chain stays on its last
    record, still merged)."""
    player = player_by_id(player_id)
    hops = 0
    while player is not None and player.merged_into_id is not None and hops < MAX_MERGE_HOPS:
        player = _player(sql.player_by_pk(player.merged_into_id))
        hops += 1
    return player


def player_disciplines(player: Player) -> set[str]:
    """The disciplines in which the player has any result."""
    return {discipline for (discipline,) in sql.fetch(sql.player_disciplines(player.pk))}
