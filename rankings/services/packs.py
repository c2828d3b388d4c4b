"""Packing the published lists that have no pack (lists published before packs existed).

:func:`packs_backfill` reads each such list's entries (:func:`rankings.loader.whole_lists`)
and stores them as its pack (:func:`rankings.list_packs.pack_insert`), one list per
transaction, so that an interrupted backfill keeps the packs it made and a second run
goes on where it stopped. Two backfills at once pack a list once (the second insert does
nothing). ``manage.py pack_lists`` runs it; a close packs the list it publishes itself.

Without a backfill nothing is wrong, only slower: a close reads a list without a pack
from its entries, and after twelve months of closes every list it reads has a pack.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from .. import list_packs, loader


def packs_backfill(
    *, discipline: str | None = None, progress: Callable[[int, int], None] | None = None
) -> int:
    """Pack every published (or superseded) list without a pack (of ``discipline``, or
    all); return how many it packed. ``progress(list_id, entries)`` after each it packed."""
    packed = 0
    for list_id in list_packs.lists_without_pack(discipline):
        with transaction.atomic():
            listed = loader.whole_lists({0: list_id})[0]
            done = list_packs.pack_insert(list_id, listed)
        if done:
            packed += 1
            if progress is not None:
                progress(list_id, len(listed))
    return packed
