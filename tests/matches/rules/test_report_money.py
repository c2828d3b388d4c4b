"""Money in reports: decimal strings with two places, more only where a stake needs them."""

from decimal import Decimal

import pytest

from matches.rules.report import money


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        ("5.000", "5.00"),
        ("-2.500", "-2.50"),
        ("0.625", "0.625"),
        ("500", "500.00"),
        ("0", "0.00"),
        ("-0.00", "0.00"),
        ("12.5", "12.50"),
        ("1E+1", "10.00"),
    ],
)
def test_money_strings(amount: str, text: str) -> None:
    assert money(Decimal(amount)) == text
