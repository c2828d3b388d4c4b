"""Money amounts as a game record writes them: decimal strings, never floats.

:func:`parse_amount` is the one reading of them, for the loader (stakes, raises, bets in
``moves``) and for the variants' own keys (Buki's ``stakes``, Pulle's ``stake``);
``RecordError`` at ``path`` for anything else.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from matches.rules.errors import RecordError
from matches.rules.i18n import _


def parse_amount(raw: object, path: str, *, positive: bool = True) -> Decimal:
    """A money amount of the record: a decimal string (never a float), > 0 or >= 0."""
    if not isinstance(raw, str):
        raise RecordError(
            path, _('an amount is a decimal string such as "4.50", got %(raw)r') % {"raw": raw}
        )
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise RecordError(path, _("not a decimal amount: %(raw)r") % {"raw": raw}) from None
    if not value.is_finite() or value < 0 or (positive and value == 0):
        text = (
            _("an amount is a finite, positive number, got %(raw)r")
            if positive
            else _("an amount is a finite, non-negative number, got %(raw)r")
        )
        raise RecordError(path, text % {"raw": raw})
    return value
