"""The one number convention of the API and the downloads (docs/api.md, "Numbers").

Every non-integer quantity is served as a **string with a fixed number of decimal places**,
the same in the REST API, the CSV and JSON downloads and the OpenAPI schema (DRF's
``DecimalField`` with ``coerce_to_string``: ``type: string, format: decimal``):

- FLADUB: 2 places (``"9.17"``), as published (SPEC section 4: rounded half away from zero);
- a result's weight (12 - age) / 12: 4 places (``"0.9167"``);
- a result's match points and weighted points: 4 places (``"17.5000"``, ``"16.0417"``),
  enough to add the best 20 up to the published FLADUB's 2 places.

Counts, ranks, ages and scores are integers and served as JSON numbers. Strings keep the
places a reader sees on the pages (a JSON number 10.00 arrives as 10.0 in most clients) and
never pass through a binary float. No Django here: the serializers, the export and the
rows that show FLADUB (:func:`cents_decimal`, integer cents to the exact Decimal) use it.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol, overload

FLADUB_PLACES = 2
WEIGHT_PLACES = 4
POINTS_PLACES = 4


def fixed(value: float | Decimal | int, places: int) -> str:
    """``value`` as text with exactly ``places`` decimals, rounded half away from zero."""
    quantum = Decimal(1).scaleb(-places)
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    return str(number.quantize(quantum, rounding=ROUND_HALF_UP))


def cents_text(cents: int) -> str:
    """Integer cents (how lists store FLADUB) as the 2-place text: 917 -> ``9.17``."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:0{FLADUB_PLACES}d}"


@overload
def cents_decimal(cents: int) -> Decimal: ...
@overload
def cents_decimal(cents: None) -> None: ...
@overload
def cents_decimal(cents: int | None) -> Decimal | None: ...
def cents_decimal(cents: int | None) -> Decimal | None:
    """Integer cents as the exact FLADUB: 917 -> ``Decimal("9.17")``; None stays None."""
    return None if cents is None else Decimal(cents) / 100


class _TwoLists(Protocol):
    old_rank: int | None
    new_rank: int | None
    old_cents: int | None
    new_cents: int | None


class TwoListsMove:
    """What a row comparing a player's place in two lists means (the review's movers, the
    difference of two versions of a list): its FLADUB in each from integer cents, and the
    places moved. None stands for "not on that list"."""

    __slots__ = ()

    @property
    def old_fladub(self: _TwoLists) -> Decimal | None:
        return cents_decimal(self.old_cents)

    @property
    def new_fladub(self: _TwoLists) -> Decimal | None:
        return cents_decimal(self.new_cents)

    @property
    def places(self: _TwoLists) -> int | None:
        """Places moved: positive up, negative down; None when the player is on one list only."""
        if self.old_rank is None or self.new_rank is None:
            return None
        return self.old_rank - self.new_rank
