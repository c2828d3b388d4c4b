"""The what-if calculator through the API: ``POST /api/rankings/{discipline}/whatif``.

Body::

    {"player_id": "P-000123", "month": "2026-04",
     "results": [{"category": "club", "placing": 1,
                  "opponents": [{"player_id": "P-000456", "placing": 2}, ...]}, ...]}

Each result is one table: the player's ``placing`` (1 = first; ties share a placing) or
``score`` (higher is better) and each opponent's, all by placing or all by score; at most
:data:`~rankings.whatif_question.MAX_RESULTS` results of 1..8 opponents. ``month`` must be
the open month (the next list). Out: the player's ``fladub`` and ``rank`` in the projected
list with those results (:func:`rankings.selectors.whatif.what_if`), the
``projected_fladub`` and ``projected_rank`` without them, each result's match points
(``result_points``), ``provisional: true`` and ``as_of``. Writes nothing.

The checks are :mod:`rankings.whatif_question`'s, the calculator page's too: 400 naming the
field, in the request's language (``Accept-Language``): an unknown player or opponent, the
player among their own opponents or an opponent twice, a placing outside 1..number of
sides, placings mixed with scores, a month already closed or not the next list, no result
or too many. 404: unknown discipline, or no projection yet.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from matches.apis.errors import ApiProblems
from matches.months import MONTH_PATTERN
from matches.validation import Problem

from .. import fladub
from ..numbers import cents_decimal, fixed
from ..selectors.projection import projected_list
from ..selectors.whatif import what_if
from ..whatif_question import Question, Refused, question_checked
from . import inputs
from .fields import PlayerAnswerOutput, decimal_field, fladub_field


class OpponentInput(serializers.Serializer):
    player_id = serializers.CharField(max_length=64)
    placing = serializers.IntegerField(required=False, min_value=1)
    score = serializers.IntegerField(required=False, min_value=-(10**6), max_value=10**6)


class ResultInput(serializers.Serializer):
    category = serializers.ChoiceField(choices=list(fladub.CATEGORY_BASE), default="club")
    placing = serializers.IntegerField(required=False, min_value=1)
    score = serializers.IntegerField(required=False, min_value=-(10**6), max_value=10**6)
    opponents = serializers.ListField(
        child=OpponentInput(), min_length=1, max_length=fladub.MAX_SIDES - 1
    )


class WhatIfInput(serializers.Serializer):
    player_id = serializers.CharField(max_length=64)
    month = serializers.RegexField(
        MONTH_PATTERN,
        trim_whitespace=False,
        help_text="YYYY-MM",
        error_messages={"invalid": gettext_lazy("Give the month as YYYY-MM.")},
    )
    # How many: checked with the page's checks (rankings.whatif_question), in the same words.
    results = serializers.ListField(child=ResultInput())


class WhatIfOutput(PlayerAnswerOutput):
    month = serializers.CharField()
    provisional = serializers.BooleanField()
    as_of = serializers.DateTimeField()
    fladub = fladub_field()
    rank = serializers.IntegerField(allow_null=True)
    projected_fladub = fladub_field()
    projected_rank = serializers.IntegerField(allow_null=True)
    result_points = serializers.ListField(
        child=decimal_field(4, "a result's match points, a decimal string with 4 places")
    )


def _question(data: dict[str, Any], discipline: str) -> Question:
    try:
        return question_checked(data, discipline)
    except Refused as exc:
        raise ApiProblems([Problem(path=exc.path, message=exc.message)]) from exc


class WhatIfAPI(inputs.PublicAPI):
    @extend_schema(
        operation_id="rankings_whatif",
        parameters=[inputs.DISCIPLINE],
        request=WhatIfInput,
        responses={
            200: WhatIfOutput,
            400: OpenApiResponse(description="bad input, naming the field"),
            404: OpenApiResponse(description="unknown discipline or no projection yet"),
        },
        summary="A player's number and rank in the next list with hypothetical results",
    )
    def post(self, request: Request, discipline: str) -> Response:
        discipline = inputs.discipline(discipline)
        given = WhatIfInput(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        question = _question(data, discipline)
        month, player = question.month, question.player
        projected = projected_list(discipline)
        if projected is None or projected.ranking_list.month != month.first_day:
            raise NotFound(_("There is no projected list yet."))
        found = what_if(
            player.pk, discipline=discipline, projected=projected, tables=question.tables
        )
        return Response(
            WhatIfOutput(
                {
                    "player_id": player.player_id,
                    "discipline": discipline,
                    "month": str(found.month),
                    "provisional": True,
                    "as_of": found.as_of,
                    "fladub": cents_decimal(found.fladub_cents),
                    "rank": found.rank,
                    "projected_fladub": cents_decimal(found.projected_cents),
                    "projected_rank": found.projected_rank,
                    "result_points": [Decimal(fixed(p, 4)) for p in found.results_points],
                }
            ).data
        )
