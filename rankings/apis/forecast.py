"""The drop-out calendar through the API:
``GET /api/rankings/{discipline}/players/{player_id}/forecast``.

For each of the next 12 lists from the open month on
(:func:`rankings.selectors.forecast.player_forecast`): the player's FLADUB if they play
nothing more (``fladub``, two decimals), its ``change`` against the month before, and the
results that leave the window in that list (``leaving``). ``provisional`` is always true:
results stored later change it. 404 for an unknown discipline or player.
"""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ..numbers import cents_decimal
from ..selectors.forecast import player_forecast
from . import inputs
from .fields import PlayerAnswerOutput, fladub_field
from .ledger import LedgerResultOutput


class ForecastMonthOutput(serializers.Serializer):
    month = serializers.CharField()
    fladub = fladub_field()
    change = fladub_field()
    leaving = LedgerResultOutput(many=True)


class ForecastOutput(PlayerAnswerOutput):
    provisional = serializers.BooleanField()
    start = serializers.CharField(allow_null=True)
    months = ForecastMonthOutput(many=True)


class PlayerForecastAPI(inputs.PublicAPI):
    @inputs.player_schema(
        "rankings_player_forecast",
        ForecastOutput,
        "A player's number in each of the next 12 lists if they play nothing",
    )
    def get(self, request: Request, discipline: str, player_id: str) -> Response:
        discipline = inputs.discipline(discipline)
        player = inputs.player(player_id)
        found = player_forecast(player.pk, discipline=discipline)
        return Response(
            ForecastOutput(
                {
                    "player_id": player.player_id,
                    "discipline": discipline,
                    "provisional": True,
                    "start": None if found.start is None else str(found.start),
                    "months": [
                        {
                            "month": str(m.month),
                            "fladub": cents_decimal(m.fladub_cents),
                            "change": cents_decimal(m.change_cents),
                            "leaving": m.leaving,
                        }
                        for m in found.months
                    ],
                }
            ).data
        )
