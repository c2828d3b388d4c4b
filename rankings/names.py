"""What the public pages call the disciplines and categories (translatable, short)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

DISCIPLINE_NAMES: dict[str, Promise] = {
    "fido": _("FIDO"),
    "allfives": _("All Fives"),
    "austrian": _("Austrian"),
}
DISCIPLINE_TITLES: dict[str, Promise] = {
    "fido": _("FIDO world ranking"),
    "allfives": _("All Fives world ranking"),
    "austrian": _("Austrian world ranking"),
}
DISCIPLINE_GAMES: dict[str, Promise] = {
    "fido": _("the divisor game"),
    "allfives": _("Muggins and Five Up"),
    "austrian": _("double-eight block and draw games"),
}
CATEGORY_NAMES: dict[str, Promise] = {
    "club": _("Club"),
    "league": _("League"),
    "national": _("National"),
    "international": _("International"),
    "world": _("World"),
}
