"""The ranking disciplines (SPEC.md section 2): one registry, keyed by code.

In: nothing. Out: :data:`DISCIPLINES`, code -> :class:`DisciplineInfo`, in the order the
site shows them (FIDO first), and :data:`CODES`. Each entry carries every word the service
uses for the discipline: its short ``name`` (tabs, navigation, badges), the ``title`` of
its list, the ``game`` played and the full ``label`` (form choices, the admin's dashboard).
Guaranteed: this is the only place those words are defined; ``matches.models.Discipline``
takes its choices' labels from here, and the public pages, the dashboard and the feed read
them here. Django-free but for ``gettext_lazy``: the words are translated when shown, so
both apps import this module without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise as Words
else:
    Words = str


@dataclass(frozen=True)
class DisciplineInfo:
    """One discipline: its code and what the service calls it."""

    code: str
    name: Words
    """Short: "FIDO", "All Fives"."""
    title: Words
    """The title of its list: "FIDO world ranking"."""
    game: Words
    """What is played: "the divisor game"."""
    label: Words
    """The full name: "FIDO divisor game" (form choices, the cycle dashboard)."""


DISCIPLINES: dict[str, DisciplineInfo] = {
    code: DisciplineInfo(code, name, title, game, label)
    for code, name, title, game, label in [
        # code, name, title, game, label
        (
            "fido",
            _("FIDO"),
            _("FIDO world ranking"),
            _("the divisor game"),
            _("FIDO divisor game"),
        ),
        (
            "allfives",
            _("All Fives"),
            _("All Fives world ranking"),
            _("Muggins and Five Up"),
            _("All Fives (Muggins / Five Up)"),
        ),
        (
            "austrian",
            _("Austrian"),
            _("Austrian world ranking"),
            _("double-eight block and draw games"),
            _("Austrian double-eight"),
        ),
    ]
}
CODES: tuple[str, ...] = tuple(DISCIPLINES)
