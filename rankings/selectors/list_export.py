"""A published list whole, row by row: what the downloads and ``export_ranking`` write.

In: a published list. Out: :class:`ExportRow` (rank, federation id, name, country, FLADUB
in cents, results counted, previous rank) in list order, streamed from the database in
chunks (a list of a million rows fits nowhere), and :data:`EXPORT_HEADER`, the names of
the columns of the CSV (SPEC.md 5.3), which are the row's fields in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

from ..models import RankingEntry
from ..sql import ListInfo


@dataclass(frozen=True, slots=True)
class ExportRow:
    rank: int
    player_id: str
    name: str
    country: str
    fladub_cents: int
    results_counted: int
    previous_rank: int | None


_SOURCES = {
    "rank": "rank",
    "player_id": "player__player_id",
    "name": "player__name",
    "country": "player__country",
    "fladub_cents": "fladub_cents",
    "results_counted": "results_counted",
    "previous_rank": "previous_rank",
}
EXPORT_HEADER = tuple("fladub" if f.name == "fladub_cents" else f.name for f in fields(ExportRow))


def export_rows(ranking_list: ListInfo, *, chunk_size: int = 5000) -> Iterator[ExportRow]:
    """The list's rows in list order (rank, then federation id), streamed."""
    rows = (
        RankingEntry.objects.filter(ranking_list_id=ranking_list.id)
        .order_by("rank", "id")
        .values_list(*(_SOURCES[f.name] for f in fields(ExportRow)))
    )
    for values in rows.iterator(chunk_size=chunk_size):
        yield ExportRow(*values)
