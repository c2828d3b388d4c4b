"""The CSV channel of a secretary's submission: read the file, preview it, store it.

In: the uploaded bytes (columns ``id,date,discipline,category,side,players,score``, one row
per side, ``players`` joined by ``;`` or ``+``; the club is the one chosen on the page).
Out:

- :func:`read_csv` turns the bytes into a :class:`CsvBatch`: one submission payload per
  match (rows grouped by ``id``) plus the row-level problems only the CSV layer can see (a
  row with too few cells, a side number given twice, rows of one match that disagree on its
  date). A file that cannot be read at all (too large, too many rows or lines, a line too
  long, too many columns, binary, neither UTF-8 nor UTF-16 with a byte-order mark, bad
  quoting, missing or unknown columns) raises :class:`CsvRejected` with one clear message.
  Reading is linear in the file's size and bounded by the limits below, checked in that
  order before the next step looks further (a 100,000-column header is refused in
  milliseconds).
- :func:`preview` runs the payloads through the one submission path,
  :func:`matches.services.match_batch_submit`, inside a transaction that is always rolled
  back: the preview shows exactly what storing would say (unknown players, the 11-month
  window, on time or late, the counting month) and stores nothing. Every problem is mapped
  back to its CSV row and column.
  A match whose id is already stored with other content is no problem of the file: it is
  a **conflict** (:mod:`matches.csv_conflicts`), shown side by side with the stored
  version and left as stored; the other matches can still be stored.
- :func:`store` submits the same payloads for real (all or nothing), leaving out the
  conflicting matches the preview showed (``skip``).

Nothing here decides whether a match is valid: that is :mod:`matches.validation` and
:mod:`matches.months`, through the service.
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import io
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from fido.text import first_refused

from .csv_conflicts import Conflict, conflict_lines
from .models import Club
from .selectors import current_revision, player_names
from .services import SubmitOutcome, match_batch_submit, match_payload
from .validation import CONFLICT, InvalidSubmission, Problem, typed_number

COLUMNS = ("id", "date", "discipline", "category", "side", "players", "score")
# Limits of one upload (docs/secretary.md): bytes, result rows, physical lines (blank ones
# included), characters in one line, cells in the header row. Each is checked before the
# next step reads further, so nothing here does work beyond linear in the file's size.
MAX_BYTES = 1024 * 1024
MAX_ROWS = 5_000
MAX_LINES = 2 * MAX_ROWS
MAX_LINE_CHARS = 2_000
MAX_COLUMNS = 50
# Column names quoted in a message about the header: the first few, each cut short.
_NAMES_SHOWN = 10
_NAME_CHARS = 40
_MATCH_FIELDS = ("date", "discipline", "category")
# Documented: ";" or "+"; a "," (a cell quoted in a comma-separated file) is accepted too.
_PLAYER_SEPARATORS = re.compile(r"[;+,]")
_DELIMITERS = (",", ";", "\t")
# Where a service problem about a match field is shown: the CSV column (or the page's club).
_FIELD_COLUMN = {
    "id": "id",
    "date": "date",
    "discipline": "discipline",
    "category": "category",
    "club": "club",
    "sides": "side",
}
_PATH = re.compile(r"^m(\d+)(?:\.(.*))?$")
_SIDE_PATH = re.compile(r"^sides\[(\d+)\](?:\.(players|score))?")


class CsvRejected(ValueError):
    """The file cannot be read as a results CSV; nothing was checked or stored."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class CsvRow:
    number: int  # as a spreadsheet numbers it: the header is row 1
    cells: dict[str, str]


@dataclass(frozen=True, slots=True, order=True)
class RowProblem:
    row: int  # 0: the file or the batch as a whole
    column: str
    message: str


@dataclass(slots=True)
class CsvMatch:
    key: int  # position among the file's matches, stable across preview passes
    external_id: str
    rows: list[CsvRow]  # one per side, in side order
    payload: dict[str, Any] | None = None  # None: the CSV layer already found a problem

    @property
    def first_row(self) -> int:
        return min(r.number for r in self.rows)


@dataclass(slots=True)
class CsvBatch:
    rows: list[CsvRow]
    matches: list[CsvMatch]
    problems: list[RowProblem] = field(default_factory=list)

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [m.payload for m in self.matches if m.payload is not None]


@dataclass(frozen=True, slots=True)
class MatchVerdict:
    status: str  # "on_time" / "late"
    counting_month: str  # "YYYY-MM"
    already_stored: bool


@dataclass(slots=True)
class Preview:
    batch: CsvBatch
    verdicts: dict[int, MatchVerdict]  # by CsvMatch.key
    problems: list[RowProblem]
    conflicts: dict[int, Conflict] = field(default_factory=dict)  # by CsvMatch.key

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.verdicts or self.conflicts)

    @property
    def new_count(self) -> int:
        """The matches the confirmation stores."""
        return sum(1 for v in self.verdicts.values() if not v.already_stored)

    def problems_by_row(self) -> dict[int, list[RowProblem]]:
        rows: dict[int, list[RowProblem]] = {}
        for problem in self.problems:
            rows.setdefault(problem.row, []).append(problem)
        return rows


def decode(data: bytes) -> str:
    """The file's text, or :class:`CsvRejected` for a file too large, binary, not UTF-8 (or
    UTF-16 with its byte-order mark, as spreadsheets save "Unicode text"), or with more
    lines or longer lines than a results file can have. Linear in the file's size."""
    if len(data) > MAX_BYTES:
        raise CsvRejected(
            _("The file is larger than %(limit)s KiB: split it into several uploads.")
            % {"limit": MAX_BYTES // 1024}
        )
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = _decoded(data, "utf-16")
    elif b"\x00" in data or data.startswith(b"PK\x03\x04"):
        raise CsvRejected(
            _(
                "This is not a CSV text file (it looks like a binary file, such as an Excel "
                "workbook). Save it as “CSV UTF-8” and upload that."
            )
        )
    else:
        text = _decoded(data, "utf-8-sig")
    if not text.strip():
        raise CsvRejected(_("The file is empty."))
    _check_lines(text)
    _check_characters(text)
    return text


def _check_characters(text: str) -> None:
    """CsvRejected naming the line of the first character no field accepts
    (:mod:`fido.text`): every cell of the file is checked here, once."""
    found = first_refused(text)
    if found is None:
        return
    index, reason = found
    line = text.count("\n", 0, index) + 1
    raise CsvRejected(
        _("Line %(line)s %(reason)s. Nothing was read; correct the file and upload it again.")
        % {"line": line, "reason": reason}
    )


def _decoded(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CsvRejected(
            _(
                "The file is not UTF-8 text (first bad byte on line %(line)s). Save it as "
                "“CSV UTF-8” and upload it again."
            )
            % {"line": line}
        ) from exc


def _check_lines(text: str) -> None:
    """CsvRejected for more than MAX_LINES lines or a line longer than MAX_LINE_CHARS: a
    results row is a few hundred characters, so either means this is not a results file
    (and bounds what the CSV reader and the header check are given)."""
    # Every line ending the CSV reader knows (\r\n, \n, a lone \r).
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > MAX_LINES + 1:  # a final newline leaves one empty piece
        raise CsvRejected(
            _("The file has more than %(limit)s lines: split it into several uploads.")
            % {"limit": MAX_LINES}
        )
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_CHARS:
            raise CsvRejected(
                _(
                    "Line %(line)s is longer than %(limit)s characters: a row of results is "
                    "much shorter. Is this the right file?"
                )
                % {"line": number, "limit": MAX_LINE_CHARS}
            )


def _delimiter(text: str) -> str:
    header = text.split("\n", 1)[0]
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def read_csv(data: bytes, *, club_id: str) -> CsvBatch:
    """Parse an uploaded results file into one payload per match (see the module doc)."""
    records = _records(decode(data))
    header = _header(records[0][1])
    if len(records) == 1:
        raise CsvRejected(_("The file has a header but no result rows."))
    batch = _grouped(records[1:], header)
    bad_rows = {p.row for p in batch.problems}
    for match in batch.matches:
        problems = _check_group(match)
        batch.problems.extend(problems)
        if problems or any(r.number in bad_rows for r in match.rows):
            continue
        match.rows.sort(key=lambda r: int(r.cells["side"]))
        first = match.rows[0].cells
        match.payload = {
            "id": match.external_id,
            "date": first["date"],
            "club": club_id,
            "discipline": first["discipline"],
            "category": first["category"],
            "sides": [_side(r) for r in match.rows],
        }
    batch.problems.sort()
    return batch


def _records(text: str) -> list[tuple[int, list[str]]]:
    """The file's non-blank rows with their line numbers; CsvRejected for an unreadable,
    empty or too long file."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text), strict=True)
    records: list[tuple[int, list[str]]] = []
    try:
        for number, record in enumerate(reader, start=1):
            if not any(cell.strip() for cell in record):
                continue  # blank line
            if len(records) > MAX_ROWS:  # the header plus MAX_ROWS rows are allowed
                raise CsvRejected(
                    _("The file has more than %(limit)s rows: split it into several uploads.")
                    % {"limit": MAX_ROWS}
                )
            records.append((number, record))
    except csv.Error as exc:
        raise CsvRejected(
            _("Row %(row)s cannot be read (bad quoting?): %(error)s")
            % {"row": reader.line_num, "error": exc}
        ) from exc
    if not records:
        raise CsvRejected(_("The file is empty."))
    return records


def _header(first: list[str]) -> list[str]:
    """The column names of the first row; CsvRejected unless they are exactly COLUMNS.

    Linear in the header (the names are counted once; a header of MAX_COLUMNS cells or more
    is refused before it is even looked at), and the message quotes at most a few names.
    """
    if len(first) > MAX_COLUMNS:
        raise CsvRejected(
            _(
                "The first row has %(n)s columns; a results file has the %(count)s columns "
                "%(expected)s."
            )
            % {"n": len(first), "count": len(COLUMNS), "expected": ",".join(COLUMNS)}
        )
    header = [cell.strip().lower() for cell in first]
    counts = Counter(header)
    missing = [c for c in COLUMNS if c not in counts]
    unknown = [c for c in counts if c not in COLUMNS]
    twice = sorted(c for c, n in counts.items() if n > 1)
    if missing or unknown or twice:
        parts = []
        if missing:
            parts.append(
                ngettext("missing column: %(cols)s", "missing columns: %(cols)s", len(missing))
                % {"cols": ", ".join(missing)}
            )
        if unknown:
            parts.append(
                ngettext("unknown column: %(cols)s", "unknown columns: %(cols)s", len(unknown))
                % {"cols": _names(unknown)}
            )
        if twice:
            parts.append(
                ngettext(
                    "column given twice: %(cols)s", "columns given twice: %(cols)s", len(twice)
                )
                % {"cols": _names(twice)}
            )
        raise CsvRejected(
            _("The first row must name the columns %(expected)s; %(problems)s.")
            % {"expected": ",".join(COLUMNS), "problems": "; ".join(parts)}
        )
    return header


def _names(names: Sequence[str]) -> str:
    """The first few column names, each cut short, for a message."""
    shown = [n if len(n) <= _NAME_CHARS else n[: _NAME_CHARS - 1] + "…" for n in names]
    if len(shown) <= _NAMES_SHOWN:
        return ", ".join(shown)
    rest = len(shown) - _NAMES_SHOWN
    return (
        ", ".join(shown[:_NAMES_SHOWN])
        + " "
        + (ngettext("and %(n)s more", "and %(n)s more", rest) % {"n": rest})
    )


def _grouped(records: list[tuple[int, list[str]]], header: list[str]) -> CsvBatch:
    """Every result row, grouped into matches by id, with the rows' own problems."""
    batch = CsvBatch(rows=[], matches=[])
    groups: dict[str, CsvMatch] = {}
    for number, record in records:
        cells = {name: value.strip() for name, value in zip(header, record, strict=False)}
        row = CsvRow(number=number, cells={c: cells.get(c, "") for c in COLUMNS})
        batch.rows.append(row)
        if len(record) != len(header):
            batch.problems.append(
                RowProblem(
                    number,
                    "",
                    ngettext(
                        "this row has %(n)s cell, the header has %(h)s",
                        "this row has %(n)s cells, the header has %(h)s",
                        len(record),
                    )
                    % {"n": len(record), "h": len(header)},
                )
            )
        external_id = row.cells["id"]
        if not external_id:
            batch.problems.append(
                RowProblem(number, "id", _("id is required: it groups the rows of one match"))
            )
            continue
        group = groups.get(external_id)
        if group is None:
            group = groups[external_id] = CsvMatch(
                key=len(groups), external_id=external_id, rows=[]
            )
            batch.matches.append(group)
        group.rows.append(row)

    return batch


def _check_group(match: CsvMatch) -> list[RowProblem]:
    """What only the CSV layout can get wrong: side numbers and a match's repeated fields."""
    problems: list[RowProblem] = []
    seen: dict[int, int] = {}
    first = match.rows[0]
    for row in match.rows:
        raw = row.cells["side"]
        if not re.fullmatch(r"\d{1,2}", raw) or int(raw) < 1:
            problems.append(
                RowProblem(
                    row.number, "side", _("side must be a number 1, 2, 3, … within the match")
                )
            )
        elif int(raw) in seen:
            problems.append(
                RowProblem(
                    row.number,
                    "side",
                    _("side %(side)s of match %(id)s is also on row %(row)s")
                    % {"side": raw, "id": match.external_id, "row": seen[int(raw)]},
                )
            )
        else:
            seen[int(raw)] = row.number
        for name in _MATCH_FIELDS:
            if row is not first and row.cells[name] != first.cells[name]:
                problems.append(
                    RowProblem(
                        row.number,
                        name,
                        _("%(column)s differs from row %(row)s of the same match (%(value)s)")
                        % {"column": name, "row": first.number, "value": first.cells[name]},
                    )
                )
    return problems


def split_players(row: CsvRow) -> list[str]:
    return [p.strip() for p in _PLAYER_SEPARATORS.split(row.cells["players"]) if p.strip()]


def _side(row: CsvRow) -> dict[str, Any]:
    side: dict[str, Any] = {"players": split_players(row)}
    if row.cells["score"] != "":
        side["score"] = typed_number(row.cells["score"])
    return side


def locate(batch: CsvBatch, by_key: dict[int, CsvMatch], problem: Problem) -> RowProblem:
    """The CSV row and column of a service problem whose path starts with ``m<key>``."""
    found = _PATH.match(problem.path)
    match = by_key.get(int(found.group(1))) if found else None
    if found is None or match is None:
        return RowProblem(0, "", problem.message)
    rest = found.group(2) or ""
    side = _SIDE_PATH.match(rest)
    if side is not None:
        index = int(side.group(1))
        row = match.rows[index].number if index < len(match.rows) else match.first_row
        return RowProblem(row, side.group(2) or "side", problem.message)
    column = _FIELD_COLUMN.get(rest.split(".", 1)[0].split("[", 1)[0], "")
    return RowProblem(match.first_row, column, problem.message)


def _submit(
    matches: Sequence[CsvMatch], *, club: Club, submitted_by: Any, now: dt.datetime
) -> list[SubmitOutcome]:
    """``matches`` through the batch service, each problem named by its match's line
    (the preview's dry runs and the store share it)."""
    return match_batch_submit(
        payloads=[m.payload for m in matches],
        submitted_by=submitted_by,
        now=now,
        channel="csv",
        clubs=[club],
        prefix=lambda index: f"m{matches[index].key}",
    )


def preview(batch: CsvBatch, *, club: Club, submitted_by: Any, now: dt.datetime) -> Preview:
    """What storing the batch would give, per match, with every problem; stores nothing.

    The service stops at the first stage that finds problems (structure and registry, then
    the time rules), so the preview runs it again on the matches still clean until it
    passes or none is left: the secretary sees every problem in one go.
    """
    problems = list(batch.problems)
    verdicts: dict[int, MatchVerdict] = {}
    conflicts: dict[int, Conflict] = {}
    by_key = {m.key: m for m in batch.matches}
    remaining = [m for m in batch.matches if m.payload is not None]
    with transaction.atomic():
        for _pass in range(5):
            if not remaining:
                break
            try:
                outcomes = _submit(remaining, club=club, submitted_by=submitted_by, now=now)
            except InvalidSubmission as exc:
                for problem in exc.problems:
                    if problem.code == CONFLICT:
                        conflict = _conflict(by_key, problem, club)
                        if conflict is not None:
                            conflicts[conflict.key] = conflict
                            continue
                    problems.append(locate(batch, by_key, problem))
                bad_rows = {p.row for p in problems}
                keep = [
                    m
                    for m in remaining
                    if m.key not in conflicts and not bad_rows & {r.number for r in m.rows}
                ]
                if len(keep) == len(remaining):
                    break  # a problem of the batch as a whole: nothing more to learn
                remaining = keep
                continue
            verdicts = _verdicts(remaining, outcomes)
            break
        transaction.set_rollback(True)
    return Preview(
        batch=batch, verdicts=verdicts, problems=sorted(set(problems)), conflicts=conflicts
    )


def _conflict(by_key: dict[int, CsvMatch], problem: Problem, club: Club) -> Conflict | None:
    """The file's match of a conflict problem beside its stored revision, or None when the
    problem names no match of the file (then it is shown as a problem)."""
    found = _PATH.match(problem.path)
    match = by_key.get(int(found.group(1))) if found else None
    stored = current_revision(club=club, external_id=match.external_id) if match else None
    if match is None or match.payload is None or stored is None:
        return None
    old = match_payload(stored)
    pids = [p for version in (old, match.payload) for s in version["sides"] for p in s["players"]]
    return Conflict(
        key=match.key,
        external_id=match.external_id,
        first_row=match.first_row,
        stored_pk=stored.pk,
        lines=conflict_lines(old, match.payload, player_names(pids)),
    )


def _verdicts(
    matches: Sequence[CsvMatch], outcomes: Sequence[SubmitOutcome]
) -> dict[int, MatchVerdict]:
    by_id = {m.external_id: m.key for m in matches}
    verdicts = {}
    for outcome in outcomes:
        key = by_id.get(outcome.match.external_id)
        if key is None:
            continue
        verdicts[key] = MatchVerdict(
            status=outcome.match.status,
            counting_month=outcome.match.counting_month.strftime("%Y-%m"),
            already_stored=not outcome.created,
        )
    return verdicts


def store(
    batch: CsvBatch,
    *,
    club: Club,
    submitted_by: Any,
    now: dt.datetime,
    skip: Collection[str] = (),
) -> list[SubmitOutcome]:
    """Store every match of a clean batch but the ids in ``skip`` (the conflicts its preview
    showed, left as stored), all or nothing; InvalidSubmission otherwise (a new conflict
    included)."""
    if batch.problems:
        raise InvalidSubmission([Problem("csv", p.message) for p in batch.problems])
    kept = [m for m in batch.matches if m.payload is not None and m.external_id not in skip]
    if not kept:
        return []
    return _submit(kept, club=club, submitted_by=submitted_by, now=now)


def template_csv(club_id: str, day: dt.date) -> str:
    """A downloadable example file for ``club_id``: two matches, one with teams."""
    stamp = day.isoformat()
    rows = [
        COLUMNS,
        (f"{club_id}/{stamp}/t1", stamp, "fido", "club", "1", "P-000001", "57"),
        (f"{club_id}/{stamp}/t1", stamp, "fido", "club", "2", "P-000002", "31"),
        (f"{club_id}/{stamp}/t1", stamp, "fido", "club", "3", "P-000003", "31"),
        (f"{club_id}/{stamp}/t1", stamp, "fido", "club", "4", "P-000004", "-4"),
        (f"{club_id}/{stamp}/t2", stamp, "allfives", "league", "1", "P-000005+P-000006", "150"),
        (f"{club_id}/{stamp}/t2", stamp, "allfives", "league", "2", "P-000007+P-000008", "120"),
    ]
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()
