"""Serializer fields of the one number convention (rankings/numbers.py): decimals as strings
with fixed places, so that the OpenAPI schema says ``type: string, format: decimal``."""

from __future__ import annotations

from decimal import ROUND_HALF_UP
from typing import Any

from rest_framework import serializers

from ..numbers import FLADUB_PLACES


def fladub_field(**options: Any) -> serializers.DecimalField:
    """FLADUB as a string with 2 places (rankings/numbers.py: the one number convention)."""
    return serializers.DecimalField(
        max_digits=12,
        decimal_places=FLADUB_PLACES,
        coerce_to_string=True,
        rounding=ROUND_HALF_UP,
        help_text='FLADUB, a decimal string with 2 places, e.g. "9.17"',
        **options,
    )


def decimal_field(places: int, help_text: str) -> serializers.DecimalField:
    return serializers.DecimalField(
        max_digits=12,
        decimal_places=places,
        coerce_to_string=True,
        rounding=ROUND_HALF_UP,
        help_text=help_text,
    )


# The head of every answer about one player in one discipline (results, ledger, forecast,
# what-if, head-to-head): who and which ranking, first. (A comment, not a docstring: the
# schema would give it to every answer that has no description of its own.)
class PlayerAnswerOutput(serializers.Serializer):
    player_id = serializers.CharField()
    discipline = serializers.CharField()
