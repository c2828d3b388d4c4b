"""Web forms of the secretary pages: they collect input, they do not judge it.

A match's validity is decided by the one validation path (:mod:`matches.validation`,
through :func:`matches.services.match_batch_submit` / :func:`~matches.services.match_correct`).
These forms only turn the posted fields into the submission payload, restrict the club to
the user's own, and map every :class:`~matches.validation.Problem` path the service reports
(``date``, ``sides[1].players[0]``, ...) back onto the field or the side row it concerns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import MIN_SIDES, Category, Club, Discipline
from .validation import Problem, typed_number

# The player ids of a team in one cell: "P-1, P-2" (a ; or + works too).
# One team separator everywhere (form, CSV, docs): "+", which is neither a CSV delimiter
# (files come comma- or semicolon-separated) nor a spreadsheet formula at a cell's start.
# A "," or ";" typed by habit is read the same way.
TEAM_SEPARATOR = "+"
TEAM_JOIN = f" {TEAM_SEPARATOR} "
_PLAYER_SEPARATORS = re.compile(r"[,;+]")
_SIDE_FIELD = re.compile(r"^sides-(\d{1,2})-(players|score)$")
_SIDE_PATH = re.compile(r"^sides\[(\d+)\](?:\.(players|score))?")
# Problem paths of match fields -> form field names.
_FIELD_OF_PATH = {
    "id": "external_id",
    "date": "date",
    "club": "club",
    "discipline": "discipline",
    "category": "category",
}

# Messages of the browser-side checks (static/js/secretary.js), translated here.
JS_MESSAGES = {
    "required": _("This field is required."),
    "integer": _("Enter a whole number, e.g. 57 or -4."),
    "players": _("Enter at least one player id (several separated by commas)."),
    "duplicate": _("Player %(player)s is already on side %(side)s."),
    "duplicateSame": _("Player %(player)s is listed twice."),
    "tooFew": _("A match has at least %(min)s sides."),
    "tooMany": _("A match has at most %(max)s sides."),
    "fileTooLarge": _("The file is larger than %(limit)s KiB."),
    "fixErrors": _("Please correct the marked fields."),
}


def _select(choices: Iterable[tuple[str, Any]]) -> forms.Select:
    return forms.Select(choices=[("", "—"), *choices], attrs={"required": True})


def _own_club_field() -> forms.ChoiceField:
    """The club a secretary submits for (its choices: their clubs, set by the view)."""
    return forms.ChoiceField(
        label=_("Club"),
        error_messages={"invalid_choice": _("You submit results for your own clubs only.")},
    )


def _offer_clubs(form: forms.Form, clubs: Sequence[Club]) -> None:
    """Let ``form``'s club field (:func:`_own_club_field`) offer ``clubs``, id and name."""
    club_field = form.fields["club"]
    assert isinstance(club_field, forms.ChoiceField)  # noqa: S101
    club_field.choices = [(c.club_id, f"{c.club_id} ({c.name})") for c in clubs]


class MatchForm(forms.Form):
    """The fields of one match above its side rows (submission and correction)."""

    club = _own_club_field()
    date = forms.CharField(
        label=_("Date played"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date", "required": True}),
    )
    discipline = forms.CharField(
        label=_("Discipline"),
        required=False,
        widget=_select(Discipline.choices),
    )
    category = forms.CharField(
        label=_("Category"),
        required=False,
        widget=_select(Category.choices),
    )
    external_id = forms.CharField(
        label=_("Match id"),
        required=False,
        help_text=_("Your id for this table, unique in your club, e.g. CLUB-7/2026-11-21/t1."),
        widget=forms.TextInput(attrs={"required": True, "maxlength": 120, "spellcheck": "false"}),
    )
    reason = forms.CharField(
        label=_("Reason for the correction"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        clubs: Sequence[Club],
        correcting: bool = False,
        initial: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(data, initial=initial)
        self.correcting = correcting
        self.sides_errors: list[str] = []  # about the sides as a whole (how many)
        if correcting:
            # Club and id are the corrected match's own; the service keeps them.
            del self.fields["club"]
            del self.fields["external_id"]
        else:
            del self.fields["reason"]
            _offer_clubs(self, clubs)
        for name, bound in self.fields.items():
            described = f"id_{name}_error id_{name}_help" if bound.help_text else f"id_{name}_error"
            bound.widget.attrs.setdefault("aria-describedby", described)

    def payload(self, rows: Sequence[SideRow], *, club_id: str) -> dict[str, Any]:
        """The submission payload (the API's format) of the posted fields and rows."""
        data = self.cleaned_data
        return {
            "id": data.get("external_id", ""),
            "date": data.get("date", ""),
            "club": club_id,
            "discipline": data.get("discipline") or None,
            "category": data.get("category") or None,
            "sides": [row.side() for row in rows if not row.is_blank],
        }

    def mark_invalid(self) -> None:
        for name in self.errors:
            if name in self.fields:
                self.fields[name].widget.attrs["aria-invalid"] = "true"


@dataclass(slots=True)
class SideRow:
    """One row of the sides table: a side's players (comma separated) and score, as typed."""

    index: int
    players: str = ""
    score: str = ""
    errors: list[str] = field(default_factory=list)
    player_errors: list[str] = field(default_factory=list)
    score_errors: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def is_blank(self) -> bool:
        return not self.players.strip() and not self.score.strip()

    def side(self) -> dict[str, Any]:
        players = [p.strip() for p in _PLAYER_SEPARATORS.split(self.players) if p.strip()]
        side: dict[str, Any] = {"players": players}
        if self.score.strip():
            side["score"] = typed_number(self.score.strip())
        return side


def side_rows_from(data: Mapping[str, Any], *, minimum: int = MIN_SIDES) -> list[SideRow]:
    """The posted rows (``sides-N-players`` / ``sides-N-score``), renumbered from 0."""
    found: dict[int, SideRow] = {}
    for key in data:
        match = _SIDE_FIELD.match(key)
        if match is None:
            continue
        index = int(match.group(1))
        row = found.setdefault(index, SideRow(index=index))
        value = str(data.get(key, ""))[:2000]
        if match.group(2) == "players":
            row.players = value
        else:
            row.score = value
    rows = [found[i] for i in sorted(found)]
    for position, row in enumerate(rows):
        row.index = position
    while len(rows) < minimum:
        rows.append(SideRow(index=len(rows)))
    return rows


def side_rows_of(sides: Sequence[Mapping[str, Any]]) -> list[SideRow]:
    """Rows prefilled from a payload's sides (a correction starts from the stored match)."""
    rows = [
        SideRow(
            index=i, players=TEAM_JOIN.join(s.get("players", [])), score=str(s.get("score", ""))
        )
        for i, s in enumerate(sides)
    ]
    while len(rows) < MIN_SIDES:
        rows.append(SideRow(index=len(rows)))
    return rows


def apply_problems(form: MatchForm, rows: Sequence[SideRow], problems: Iterable[Problem]) -> None:
    """Show every problem next to its field or side row (blank rows were not submitted)."""
    submitted = [row for row in rows if not row.is_blank]
    for problem in problems:
        side = _SIDE_PATH.match(problem.path)
        if side is not None:
            index = int(side.group(1))
            if index >= len(submitted):
                form.add_error(None, problem.message)
                continue
            row = submitted[index]
            target = {"players": row.player_errors, "score": row.score_errors}.get(
                side.group(2) or "", row.errors
            )
            target.append(problem.message)
            continue
        if problem.path == "sides":
            form.sides_errors.append(problem.message)
            continue
        name = _FIELD_OF_PATH.get(problem.path.split(".", 1)[0])
        if name is not None and name in form.fields:
            form.add_error(name, problem.message)
        else:
            form.add_error(None, problem.message)
    form.mark_invalid()


class CsvUploadForm(forms.Form):
    club = _own_club_field()
    file = forms.FileField(
        label=_("CSV file"),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        files: Any = None,
        *,
        clubs: Sequence[Club],
        initial: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(data, files, initial=initial)
        _offer_clubs(self, clubs)
        for name, bound in self.fields.items():
            bound.widget.attrs.setdefault("aria-describedby", f"id_{name}_error")
