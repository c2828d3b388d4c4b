"""A published list as CSV or JSON text, streamed in pieces (the command and the API).

CSV header ``rank,player_id,name,country,fladub,results_counted,previous_rank``; ``fladub``
with 2 decimals; ``previous_rank`` empty for a player new to the list. JSON: an array of
objects with the same keys, ``fladub`` a string with 2 decimals (``"9.17"``, as in the API:
rankings/numbers.py), ``previous_rank`` ``null`` for new players.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from .numbers import cents_text
from .selectors.list_export import EXPORT_HEADER, export_rows
from .selectors.lists import ListInfo

FORMATS = ("csv", "json")
_ROWS_PER_PIECE = 2000


def fladub_text(cents: int) -> str:
    """Integer cents as a 2-decimal number: 917 -> ``9.17``."""
    return cents_text(cents)


def csv_header() -> str:
    """The CSV's first line, with its line feed."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(EXPORT_HEADER)
    return buffer.getvalue()


def csv_pieces(ranking_list: ListInfo) -> Iterator[str]:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    buffer.write(csv_header())
    for n, row in enumerate(export_rows(ranking_list), start=1):
        out.writerow(
            [
                row.rank,
                row.player_id,
                row.name,
                row.country,
                fladub_text(row.fladub_cents),
                row.results_counted,
                row.previous_rank or "",
            ]
        )
        if n % _ROWS_PER_PIECE == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def json_pieces(ranking_list: ListInfo) -> Iterator[str]:
    pieces: list[str] = ["["]
    for n, row in enumerate(export_rows(ranking_list)):
        previous = "null" if row.previous_rank is None else row.previous_rank
        pieces.append(
            ("," if n else "")
            + "\n"
            + f'{{"rank": {row.rank}, "player_id": {json.dumps(row.player_id)}, '
            f'"name": {json.dumps(row.name, ensure_ascii=False)}, '
            f'"country": {json.dumps(row.country)}, "fladub": "{fladub_text(row.fladub_cents)}", '
            f'"results_counted": {row.results_counted}, "previous_rank": {previous}}}'
        )
        if len(pieces) >= _ROWS_PER_PIECE:
            yield "".join(pieces)
            pieces = []
    pieces.append("\n]\n")
    yield "".join(pieces)


def pieces(ranking_list: ListInfo, fmt: str) -> Iterator[str]:
    if fmt == "csv":
        return csv_pieces(ranking_list)
    if fmt == "json":
        return json_pieces(ranking_list)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
