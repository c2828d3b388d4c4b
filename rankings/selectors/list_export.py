"""A published list whole, row by row: what the downloads and ``export_ranking`` write.

In: a published list. Out: :class:`ExportRow` (rank, federation id, name, country, FLADUB
in cents, results counted, previous rank) in list order, streamed from the database in
chunks (a list of a million rows fits nowhere), and :data:`EXPORT_HEADER`, the names of
the columns of the CSV (SPEC.md 5.3), which are the row's fields in order.

Names and countries are the ones the list was published with, which its seal hashed: a
player renamed since (:class:`matches.models.PlayerDetailsChange`) shows the name before
their first change after the publication (:func:`published_names`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, fields

from matches.models import PlayerDetailsChange

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


def published_names(published_at: dt.datetime | None) -> dict[int, tuple[str, str]]:
    """The name and country, by player primary key, of the players whose name or country
    changed after ``published_at``, as they were at that time: the values before each one's
    first change since. Empty for a list not published."""
    if published_at is None:
        return {}
    changes = PlayerDetailsChange.objects.filter(changed_at__gt=published_at)
    before: dict[int, tuple[str, str]] = {}
    for pk, name, country in changes.order_by("changed_at", "id").values_list(
        "player_id", "name_before", "country_before"
    ):
        before.setdefault(pk, (name, country))
    return before


def export_rows(ranking_list: ListInfo, *, chunk_size: int = 5000) -> Iterator[ExportRow]:
    """The list's rows in list order (rank, then federation id), streamed, with the names
    and countries it was published with."""
    then = published_names(ranking_list.published_at)
    rows = (
        RankingEntry.objects.filter(ranking_list_id=ranking_list.id)
        .order_by("rank", "id")
        .values_list("player", *(_SOURCES[f.name] for f in fields(ExportRow)))
    )
    for pk, *values in rows.iterator(chunk_size=chunk_size):
        row = ExportRow(*values)
        if pk in then:
            row = dataclasses.replace(row, name=then[pk][0], country=then[pk][1])
        yield row
