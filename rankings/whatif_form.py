"""The what-if calculator page's form: what was typed, as the question the API takes.

In: the page's query string (a GET form: the calculator writes nothing, and its answer can
be linked). Fields: ``player`` (a federation id; the page's type-ahead fills it from a
name), ``month`` (YYYY-MM), and rows ``r<N>-`` (N from 0) of one hypothetical table each:
``category``, ``by`` (``placing`` or ``score``), ``own`` (the player's placing or score),
and up to :data:`OPPONENT_SLOTS` opponents ``opp<K>`` (a federation id) with their
``res<K>`` (placing or score), K from 1. A row left blank is skipped.

Out: :class:`WhatIfForm` with ``question`` (the dict :func:`rankings.whatif_question.
question_checked` checks, as the API's serializer gives it) or ``errors``, once the form
was sent (a row's field is in the query; a link with ``player`` alone, as the player
page's, only fills the form in): (field name, message) pairs in the user's words, each
naming the row and the opponent ("Result 2, opponent 1: ..."); :func:`refusal_error` turns
a refusal of the shared checks (a path such as ``results[1].opponents[0].player_id``) into
the same pair. No database access here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from matches.validation import typed_number

from . import fladub
from .whatif_question import MAX_RESULTS, Refused

OPPONENT_SLOTS = 3
"""Opponents a row of the page takes (a table of up to 4 sides; the API takes up to 8)."""
BLANK_ROWS = 5
"""Rows the empty form shows; a submitted form shows its rows and one more, up to
:data:`~rankings.whatif_question.MAX_RESULTS`."""
_ROW = re.compile(r"^r([0-9]{1,3})-")
_PATH = re.compile(
    r"^results\[(?P<row>[0-9]+)\](?:\.(?P<own>placing|score|category)"
    r"|\.opponents\[(?P<opp>[0-9]+)\]\.(?P<what>player_id|placing|score))?$"
)


@dataclass
class Row:
    number: int
    category: str = "club"
    by: str = "placing"
    own: str = ""
    opponents: list[tuple[str, str]] = field(default_factory=list)
    """(federation id, placing or score) of each slot, as typed; blank slots included."""

    def is_blank(self) -> bool:
        return not self.own and not any(pid or res for pid, res in self.opponents)


@dataclass
class WhatIfForm:
    player: str
    month: str
    rows: list[Row]
    question: dict[str, Any] | None = None
    errors: list[tuple[str, str]] = field(default_factory=list)
    slot_of: dict[tuple[int, int], int] = field(default_factory=dict)
    """(row index in the question, opponent index) -> the opponent's slot on the page."""
    row_of: dict[int, int] = field(default_factory=dict)
    """Row index in the question -> the row's number on the page."""

    @property
    def asked(self) -> bool:
        return bool(self.player or any(not r.is_blank() for r in self.rows))


def _text(data: QueryDict, name: str, limit: int = 64) -> str:
    return " ".join(data.get(name, "").split())[:limit]


def _rows(data: QueryDict) -> list[Row]:
    numbers = sorted({int(m.group(1)) for key in data if (m := _ROW.match(key))})
    rows = []
    for n in numbers[: MAX_RESULTS + 1]:  # one too many is enough to refuse too many
        by = _text(data, f"r{n}-by")
        rows.append(
            Row(
                number=n,
                category=_text(data, f"r{n}-category") or "club",
                by=by if by in ("placing", "score") else "placing",
                own=_text(data, f"r{n}-own"),
                opponents=[
                    (_text(data, f"r{n}-opp{k}").upper(), _text(data, f"r{n}-res{k}"))
                    for k in range(1, OPPONENT_SLOTS + 1)
                ],
            )
        )
    return rows


def _shown(rows: list[Row]) -> list[Row]:
    """The rows the page shows: those typed, then blank ones (BLANK_ROWS in all, or one)."""
    typed = [r for r in rows if not r.is_blank()]
    count = min(MAX_RESULTS, max(BLANK_ROWS, len(typed) + 1))
    shown = list(typed)
    while len(shown) < count:
        shown.append(Row(number=len(shown), opponents=[("", "")] * OPPONENT_SLOTS))
    return [
        Row(number=i, category=r.category, by=r.by, own=r.own, opponents=r.opponents)
        for i, r in enumerate(shown)
    ]


def where(row: int, opponent: int | None = None) -> str:
    """A row, and an opponent in it, as people count them (from 1)."""
    if opponent is None:
        return _("Result %(row)d") % {"row": row + 1}
    return _("Result %(row)d, opponent %(opponent)d") % {"row": row + 1, "opponent": opponent}


def _number(text: str, row: int, slot: int | None, errors: list[tuple[str, str]]) -> int | None:
    name = f"r{row}-own" if slot is None else f"r{row}-res{slot}"
    value = typed_number(text)
    if isinstance(value, int) and abs(value) <= 10**6:
        return value
    message = _("%(where)s: give a whole number, not “%(text)s”.")
    errors.append((name, message % {"where": where(row, slot), "text": text}))
    return None


def _result(row: Row, errors: list[tuple[str, str]]) -> tuple[dict[str, Any], list[int]]:
    """The API's shape of one row, and the slots of its opponents (in order)."""
    n = row.number
    if row.category not in fladub.CATEGORY_BASE:
        errors.append((f"r{n}-category", _("%(where)s: choose a category.") % {"where": where(n)}))
    if not row.own:
        message = _("%(where)s: give the player's placing or score.")
        errors.append((f"r{n}-own", message % {"where": where(n)}))
    own = _number(row.own, n, None, errors) if row.own else None
    opponents, slots = [], []
    for k, (pid, res) in enumerate(row.opponents, start=1):
        if not pid and not res:
            continue
        if not pid:
            message = _("%(where)s: give the opponent's federation id, e.g. P-000123.")
            errors.append((f"r{n}-opp{k}", message % {"where": where(n, k)}))
        if not res:
            message = _("%(where)s: give the opponent's placing or score.")
            errors.append((f"r{n}-res{k}", message % {"where": where(n, k)}))
        value = _number(res, n, k, errors) if res else None
        opponents.append({"player_id": pid, row.by: value})
        slots.append(k)
    if not opponents:
        message = _("%(where)s: give at least one opponent.")
        errors.append((f"r{n}-opp1", message % {"where": where(n, 1)}))
    return {"category": row.category, row.by: own, "opponents": opponents}, slots


def whatif_form(data: QueryDict, *, default_month: str) -> WhatIfForm:
    """The form as typed, with the question or the errors (only when the form was sent and
    something was asked)."""
    rows = _rows(data)
    form = WhatIfForm(
        player=_text(data, "player").upper(),
        month=_text(data, "month", 16) or default_month,
        rows=_shown(rows),
    )
    if not rows or not form.asked:  # no row field: a link that fills in the player
        return form
    if not form.player:
        form.errors.append(("player", _("Give the player's federation id, e.g. P-000123.")))
    results: list[dict[str, Any]] = []
    for row in (r for r in form.rows if not r.is_blank()):
        result, slots = _result(row, form.errors)
        form.row_of[len(results)] = row.number
        form.slot_of.update({(len(results), m): k for m, k in enumerate(slots)})
        results.append(result)
    if not form.errors:
        form.question = {"player_id": form.player, "month": form.month, "results": results}
    return form


def refusal_error(form: WhatIfForm, refused: Refused) -> tuple[str, str]:
    """A refusal of the shared checks as the page's (field name, message in words)."""
    if refused.path in ("player_id", "month"):
        return ("player" if refused.path == "player_id" else "month"), refused.message
    found = _PATH.match(refused.path)
    if found is None:
        return "", refused.message
    row = form.row_of.get(int(found["row"]), int(found["row"]))
    if found["opp"] is None:
        name = f"r{row}-category" if found["own"] == "category" else f"r{row}-own"
        return name, f"{where(row)}: {refused.message}"
    slot = form.slot_of.get((int(found["row"]), int(found["opp"])), int(found["opp"]) + 1)
    name = f"r{row}-opp{slot}" if found["what"] == "player_id" else f"r{row}-res{slot}"
    return name, f"{where(row, slot)}: {refused.message}"


def rows_view(form: WhatIfForm) -> list[dict[str, Any]]:
    """Each shown row's fields with their names, values, errors and (hidden) labels, for
    the template (the labels made here: a template tag for each cost more than the rest of
    the page's answer)."""
    errors = dict(form.errors)

    def cell(name: str, value: str, label: str) -> dict[str, str]:
        return {"name": name, "value": value, "error": errors.get(name, ""), "label": label}

    views = []
    for row in form.rows:
        n, prefix = {"n": row.number + 1}, f"r{row.number}-"
        opponents = [
            {
                "slot": k,
                "id": cell(
                    f"{prefix}opp{k}", pid, _("Result %(n)s: opponent %(k)s") % {**n, "k": k}
                ),
                "result": cell(
                    f"{prefix}res{k}",
                    res,
                    _("Result %(n)s: opponent %(k)s's placing or score") % {**n, "k": k},
                ),
            }
            for k, (pid, res) in enumerate(row.opponents, start=1)
        ]
        views.append(
            {
                "number": row.number + 1,
                "category": cell(
                    f"{prefix}category", row.category, _("Result %(n)s: category") % n
                ),
                "by": cell(f"{prefix}by", row.by, _("Result %(n)s: counted by") % n),
                "own": cell(
                    f"{prefix}own", row.own, _("Result %(n)s: player's placing or score") % n
                ),
                "opponents": opponents,
            }
        )
    return views
