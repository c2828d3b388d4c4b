"""A conflicting match of a CSV preview, side by side (issue 15, item 3): a match id of the
file that is already stored with other content, compared field by field with the stored
revision so that the secretary sees what differs.

In: two matches in the submission format (``date``, ``discipline``, ``category``, ``sides``
with ``players`` and ``score``): the stored one and the file's; the names of the players.
Out: :class:`ConflictLine` rows in a fixed order (date, discipline, category, then each
side's players and score, by side number), each with both values as text and whether they
differ. Pure: reads and writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

MISSING = "—"  # a side one of the two versions does not have


@dataclass(frozen=True, slots=True)
class ConflictLine:
    label: str  # in the user's words: "date", "side 2: players"
    stored: str
    file: str

    @property
    def differs(self) -> bool:
        return self.stored != self.file


@dataclass(frozen=True, slots=True)
class Conflict:
    key: int  # the CsvMatch.key of the file's match
    external_id: str
    first_row: int  # the file's first row of the match
    stored_pk: int  # the stored revision, for the link to its correction
    lines: list[ConflictLine]

    @property
    def differing(self) -> list[str]:
        return [line.label for line in self.lines if line.differs]


def conflict_lines(
    stored: Mapping[str, Any], file: Mapping[str, Any], names: Mapping[str, str]
) -> list[ConflictLine]:
    """Both versions of a match, field by field (see the module doc)."""
    lines = [
        ConflictLine(_("date"), str(stored["date"]), str(file["date"])),
        ConflictLine(_("discipline"), str(stored["discipline"]), str(file["discipline"])),
        ConflictLine(_("category"), str(stored["category"]), str(file["category"])),
    ]
    old: Sequence[Mapping[str, Any]] = stored["sides"]
    new: Sequence[Mapping[str, Any]] = file["sides"]
    for index in range(max(len(old), len(new))):
        number = index + 1
        before = old[index] if index < len(old) else None
        after = new[index] if index < len(new) else None
        lines.append(
            ConflictLine(
                _("side %(n)s: players") % {"n": number},
                _players(before, names),
                _players(after, names),
            )
        )
        lines.append(
            ConflictLine(
                _("side %(n)s: score") % {"n": number},
                MISSING if before is None else str(before.get("score", MISSING)),
                MISSING if after is None else str(after.get("score", MISSING)),
            )
        )
    return lines


def _players(side: Mapping[str, Any] | None, names: Mapping[str, str]) -> str:
    """A side's players as "P-000001 Ana Castro + P-000002 Juan Pérez" (ids in order)."""
    if side is None:
        return MISSING
    shown = []
    for pid in side.get("players", []):
        name = names.get(pid, "")
        shown.append(f"{pid} {name}" if name else str(pid))
    return " + ".join(shown) or MISSING
