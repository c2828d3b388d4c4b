"""Who moves in the projected list: the biggest movers, the new entries and the drop-outs.

In: a discipline's projection (:func:`rankings.selectors.projection.projected_list`) and
its current published list (the list the projection's ranks were compared with when it
was written: ``previous_rank``, ``movement``). Out: :class:`Movers`: the :data:`SHOWN`
players who climb most and who fall most (by places), the best-ranked new entries (no
rank in the current list) and drop-outs (in the current list, not in the projection),
each with old and new rank and FLADUB, and the exact number of new entries and of
drop-outs. Reads only: eight queries whatever the lists' sizes (the four lists of
entries, the two counts, the names and the old figures of the players shown).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from matches.models import Player

from ..models import RankingEntry
from ..sql import DiffRow, ListInfo

SHOWN = 10


Mover = DiffRow
"""A player of the projection moved, new or gone against the current list: a row of the
difference of two lists, as the published lists' diff shows it."""


@dataclass(frozen=True)
class Movers:
    up: list[Mover]
    down: list[Mover]
    new_entries: list[Mover]
    new_count: int
    drop_outs: list[Mover]
    drop_count: int


def projection_movers(projected: ListInfo, current: ListInfo | None) -> Movers:
    """The movers of ``projected`` against ``current`` (None: everyone is new)."""
    entries = RankingEntry.objects.filter(ranking_list_id=projected.id)
    fields = ("player_id", "rank", "fladub_cents", "previous_rank")
    moved = entries.filter(movement__isnull=False)
    up = list(
        moved.filter(movement__gt=0).order_by("-movement", "rank").values_list(*fields)[:SHOWN]
    )
    down = list(
        moved.filter(movement__lt=0).order_by("movement", "rank").values_list(*fields)[:SHOWN]
    )
    new = entries.filter(previous_rank__isnull=True)
    new_rows = list(new.order_by("rank").values_list(*fields)[:SHOWN])
    drops: list[tuple[int, int, int]] = []
    drop_count = 0
    if current is not None:
        gone = RankingEntry.objects.filter(ranking_list_id=current.id).filter(
            ~Exists(entries.filter(player_id=OuterRef("player_id")))
        )
        drops = list(gone.order_by("rank").values_list("player_id", "rank", "fladub_cents")[:SHOWN])
        drop_count = gone.count()
    shown = {r[0] for rows in (up, down, new_rows, drops) for r in rows}
    names = {
        pk: (pid, name)
        for pk, pid, name in Player.objects.filter(pk__in=shown).values_list(
            "pk", "player_id", "name"
        )
    }
    old = (
        dict(
            RankingEntry.objects.filter(
                ranking_list_id=current.id, player_id__in=shown
            ).values_list("player_id", "fladub_cents")
        )
        if current is not None and shown
        else {}
    )

    def mover(pk: int, rank: int, cents: int, previous: int | None) -> Mover:
        pid, name = names[pk]
        return Mover(pid, name, previous, rank, old.get(pk), cents)

    return Movers(
        up=[mover(*r) for r in up],
        down=[mover(*r) for r in down],
        new_entries=[mover(*r) for r in new_rows],
        new_count=new.count(),
        drop_outs=[
            Mover(names[pk][0], names[pk][1], rank, None, cents, None) for pk, rank, cents in drops
        ],
        drop_count=drop_count,
    )
